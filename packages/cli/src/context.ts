import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import { createDb, createPool, migrateToLatest, type Database, type Pool } from '@holdfast/postgres';
import { ConfigError, EnvReader, readInfraConfig, type InfraConfig, type Logger } from '@holdfast/platform';

/** Where the CLI writes: stdout carries results only (scripts parse it), stderr everything else. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** True when stderr is a terminal: progress bars redraw in place instead of printing lines. */
  readonly stderrIsTTY: boolean;
  /** What `-` reads (the backfill from stdin); the process's stdin when absent. */
  readonly stdin?: Readable;
}

/** The process's own streams. */
export const processIo: CliIo = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  get stderrIsTTY() {
    return Boolean(process.stderr.isTTY);
  },
};

/** What a command needs, created lazily so `--help` works without a database. */
export interface CliContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly io: CliIo;
  config(): InfraConfig;
  /** The control-plane database, migrated to the latest schema on first use. */
  db(): Promise<Kysely<Database>>;
  /** The pg pool under `db()` (for code that takes a pool, such as the projector's schema DDL). */
  pool(): Pool;
  /** Runs the control-plane migrations now; returns the names of those it applied. */
  migrate(): Promise<string[]>;
  /** Prints a result: JSON with --json, else the human text. */
  out(json: unknown, human: string | (() => string)): void;
  /** A diagnostic line on stderr (never on stdout, which belongs to results). */
  log(line: string): void;
  /** A logger for library clients (the Kafka client): warnings and errors as JSON lines on stderr. */
  logger(): Logger;
  readonly json: boolean;
  close(): Promise<void>;
}

/** A failure the user can act on: printed without a stack. Exit code 1 (runtime), 2 (usage) or 3 (not found). */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

function stderrLogger(io: CliIo, bindings: Record<string, unknown> = {}): Logger {
  const write =
    (level: string) =>
    (event: string, context?: Record<string, unknown>): void =>
      io.stderr(`${JSON.stringify({ level, event, ...bindings, ...context })}\n`);
  return {
    debug: () => {},
    info: () => {},
    warn: write('warn'),
    error: write('error'),
    child: (more) => stderrLogger(io, { ...bindings, ...more }),
  };
}

/**
 * Reads the stack's connection settings from the environment, falling back to what `npm run infra:up`
 * wrote (~/.cache/holdfast/run/env.json), so `npx holdfast ...` works right after `npm start`.
 */
export function createContext(
  env: Readonly<Record<string, string | undefined>>,
  json: boolean,
  fallbackEnv: Record<string, string> = {},
  io: CliIo = processIo,
): CliContext {
  let pool: Pool | undefined;
  let db: Kysely<Database> | undefined;
  let migrated = false;
  let config: InfraConfig | undefined;
  const merged = { ...fallbackEnv, ...env };
  return {
    env: merged,
    json,
    io,
    config() {
      if (!config) {
        try {
          const r = new EnvReader(merged);
          config = r.done(readInfraConfig(r));
        } catch (err) {
          if (err instanceof ConfigError)
            throw new CliError(`${err.message}. Start the stack with \`npm start\` (or set DATABASE_URL).`);
          throw err;
        }
      }
      return config;
    },
    pool() {
      // No statement timeout: the console runs long operator work (a rebuild's index builds) on purpose.
      pool ??= createPool(this.config().databaseUrl, 'holdfast-cli', 4, { statementTimeoutMs: 0 });
      return pool;
    },
    async migrate() {
      db ??= createDb(this.pool());
      try {
        const applied = await migrateToLatest(db as Kysely<unknown>);
        migrated = true;
        return applied;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'ECONNREFUSED' || code === '3D000' || code === '28P01' || code === 'ENOTFOUND')
          throw new CliError(
            `cannot reach the database (${code}): is the stack running (\`npm start\`) and DATABASE_URL right?`,
          );
        throw err;
      }
    },
    async db() {
      if (!migrated) await this.migrate();
      return db!;
    },
    out(jsonValue, human) {
      if (json) io.stdout(`${JSON.stringify(jsonValue, null, 2)}\n`);
      else io.stdout(`${typeof human === 'function' ? human() : human}\n`);
    },
    log(line) {
      io.stderr(`${line}\n`);
    },
    logger() {
      return stderrLogger(io, { service: 'holdfast-cli' });
    },
    async close() {
      // Destroying kysely ends the pool it wraps; a pool used without kysely is ended here.
      if (db) await db.destroy();
      else await pool?.end();
    },
  };
}
