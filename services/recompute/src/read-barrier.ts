import type { KafkaAdmin, KafkaClient } from '@holdfast/kafka';
import type { LogPosition } from '@holdfast/contracts';
import type { Pool } from '@holdfast/postgres';
import { recomputeDb } from './recompute-database.js';

/** Where the projector stands on one partition: its checkpoint and its consumer group's committed offset. */
export interface ProjectorPosition {
  /** Last applied offset in the read models (−1: nothing); the lowest of the projections reading the topic. */
  readonly checkpoint: number;
  /** The projector group's committed offset (the next offset it will read; −1: none). */
  readonly committed: number;
}

/** Whether the read models hold everything below a barrier, and if not, where they stand. */
export type BarrierState =
  | { readonly passed: true }
  | { readonly passed: false; readonly at: LogPosition; readonly projector: ProjectorPosition };

/**
 * Whether the projector has passed `position`, i.e. applied every committed record below
 * `position.offset` (the high watermark when the sync was requested). Pure, so the rule is tested alone.
 *
 * - Its checkpoint at or beyond `offset − 1`: it applied the last record below the barrier, or a
 *   later one; it applies a partition in order, so everything below is in.
 * - Otherwise the records between its checkpoint and the barrier may be transaction markers or
 *   aborted records, which take offsets but never reach the checkpoint (every ingest call ends with a
 *   commit marker, so this is the usual case once the log is quiet). Those are told apart by the
 *   projector group's committed offset: the consumer commits only after the read-model transaction
 *   has committed, and moves past markers and aborted records on its own, so a committed offset at or
 *   beyond the barrier means nothing below it is left to apply.
 */
export function projectorPassed(position: LogPosition, projector: ProjectorPosition): boolean {
  if (position.offset <= 0) return true;
  return projector.checkpoint >= position.offset - 1 || projector.committed >= position.offset;
}

/** Reads the projector's position on a partition. */
export type ProjectorPositionReader = (position: LogPosition) => Promise<ProjectorPosition>;

const UNDEFINED_TABLE = '42P01';
const UNDEFINED_SCHEMA = '3F000';

/**
 * The projector's position from its checkpoint table (schema `readModelSchema`) and its consumer
 * group's committed offsets (`projectorGroupId`, the projector's default `<prefix>holdfast.projector`).
 * `close()` releases the admin client.
 */
export function projectorPositionReader(deps: {
  readonly pool: Pool;
  readonly kafka: KafkaClient;
  readonly readModelSchema: string;
  readonly topicPrefix: string;
  readonly projectorGroupId: string;
}): ProjectorPositionReader & { close(): Promise<void> } {
  let admin: Promise<KafkaAdmin> | undefined;
  const connect = () =>
    (admin ??= (async () => {
      const a = deps.kafka.admin();
      await a.connect();
      return a;
    })().catch((err: unknown) => {
      admin = undefined;
      throw err;
    }));
  const checkpointOf = async (p: LogPosition): Promise<number> => {
    try {
      const row = await recomputeDb(deps.pool)
        .withSchema(deps.readModelSchema)
        .selectFrom('projection_checkpoints')
        .select((eb) => eb.cast<string | null>(eb.fn.min('last_offset'), 'text').as('last'))
        .where('topic', '=', p.topic)
        .where('partition', '=', p.partition)
        .executeTakeFirst();
      return row?.last == null ? -1 : Number(row.last);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === UNDEFINED_TABLE || code === UNDEFINED_SCHEMA) return -1;
      throw err;
    }
  };
  const committedOf = async (p: LogPosition): Promise<number> => {
    const topic = `${deps.topicPrefix}${p.topic}`;
    const offsets = await (await connect()).groupOffsets(deps.projectorGroupId, [topic]);
    const offset = offsets.find((x) => x.topic === topic && x.partition === p.partition)?.offset;
    return offset === undefined ? -1 : Number(offset);
  };
  const read = async (p: LogPosition): Promise<ProjectorPosition> => {
    const checkpoint = await checkpointOf(p);
    // The cheap test first: most barriers of a busy log are passed by the checkpoint alone.
    if (projectorPassed(p, { checkpoint, committed: -1 })) return { checkpoint, committed: -1 };
    return { checkpoint, committed: await committedOf(p) };
  };
  return Object.assign(read, {
    close: async () => {
      const a = admin;
      admin = undefined;
      if (a) await (await a.catch(() => undefined))?.disconnect();
    },
  });
}

/** Checks every position of a barrier (null or empty: nothing to wait for). */
export async function checkBarrier(
  read: ProjectorPositionReader,
  barrier: readonly LogPosition[] | null,
): Promise<BarrierState> {
  for (const at of barrier ?? []) {
    const projector = await read(at);
    if (!projectorPassed(at, projector)) return { passed: false, at, projector };
  }
  return { passed: true };
}
