/** Whether the privacy worker's passes work, or wait for the control-plane migrations. */
export type WorkerHealth = 'ok' | 'awaiting_migrations' | 'failing';

/** What one pass's outcome changes, and the one line (if any) to log about it. */
export interface PassVerdict {
  readonly health: WorkerHealth;
  readonly log: 'awaiting_migrations' | 'migrations_present' | 'recovered' | 'pass_failed' | null;
}

// undefined_table, invalid_schema_name: the `privacy` schema or its tables are not there yet.
const MISSING_SCHEMA = new Set(['42P01', '3F000']);

/**
 * The privacy worker on a database without the control-plane migrations (schema `privacy`): it does
 * not crash and does not log the same failure every interval. The first pass that finds the tables
 * missing says so once (`awaiting_migrations`, with the fix: run `holdfast migrate`); later passes
 * that find them missing say nothing; the first pass that works after says `migrations_present`.
 * Any other failure is logged on every pass (`pass_failed`), and its end once (`recovered`).
 *
 * @example
 * passVerdict('ok', Object.assign(new Error(), { code: '42P01' })); // { health: 'awaiting_migrations', log: 'awaiting_migrations' }
 */
export function passVerdict(previous: WorkerHealth, error: unknown): PassVerdict {
  if (error === undefined || error === null) {
    if (previous === 'awaiting_migrations') return { health: 'ok', log: 'migrations_present' };
    if (previous === 'failing') return { health: 'ok', log: 'recovered' };
    return { health: 'ok', log: null };
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && MISSING_SCHEMA.has(code))
    return {
      health: 'awaiting_migrations',
      log: previous === 'awaiting_migrations' ? null : 'awaiting_migrations',
    };
  return { health: 'failing', log: 'pass_failed' };
}
