import type { EventName, EventTypes, TopicName } from '@holdfast/contracts';
import type { Pool, PoolClient } from '@holdfast/postgres';
import type { RetentionConfig } from '@holdfast/platform';

/** One decoded record handed to a projection, with its position in the log. */
export type ProjectedEvent<N extends EventName = EventName> = {
  [K in N]: {
    readonly type: K;
    readonly value: EventTypes[K];
    readonly partition: number;
    /** The record's offset (int64 as text): a stable tie-breaker and the dead-letter address. */
    readonly offset: string;
  };
}[N];

/** The transaction a projection writes in: the checkpoint is written in the same one by the runner. */
export interface ProjectionTx {
  readonly client: PoolClient;
  /** The pool `client` comes from: for work that must commit on its own (an account's index key). */
  readonly pool: Pool;
  /** The read-model schema being written (`read_models`, or `read_models_next` during a rebuild). */
  readonly schema: string;
  /** The partition the chunk comes from (a chunk never spans partitions). */
  readonly partition: number;
  /**
   * The version of the partition's checkpoint as this transaction found it (see `writeCheckpoint`),
   * or null while the runner isolates poison records. State kept in memory after the last commit
   * (reported to the runner's `ChunkLookahead`) is still exact iff this equals that commit's version:
   * nothing else has written the partition's rows since.
   */
  readonly position: string | null;
  /**
   * Work the runner wants done while the database is busy (preparing the next chunk). A projection
   * calls it once, after sending its largest statement and before awaiting it; calling it is optional.
   */
  readonly meanwhile?: () => void;
  /**
   * The text of a statement that depends only on the schema, named (`/* name *\/`) and built once per
   * runner (the schema never changes under it), so a chunk neither rebuilds nor renames it. One name,
   * one text: a statement built for several tables has a name per table.
   *
   * @example
   * await tx.client.query(tx.named('write-orders.update', updateSql), params);
   */
  readonly named: (name: string, build: (schema: string) => string) => string;
}

/**
 * A read model fed by one topic. The runner decodes, filters what is already applied, isolates
 * poison records and stores the checkpoint; `apply` only folds a chunk (up to 5,000 records, in log
 * order) into its tables, set-based. `apply` must be deterministic: no clock, no randomness, so a
 * replay from offset 0 rebuilds the same rows.
 *
 * @example
 * const accountSettings: Projection<'AccountSettingsChanged'> = {
 *   name: 'account-settings',
 *   topic: 'holdfast.account-settings',
 *   handles: ['AccountSettingsChanged'],
 *   tables: ['account_settings'],
 *   apply: async (events, tx) => { ... one multi-row upsert ... },
 * };
 */
export interface Projection<N extends EventName = EventName> {
  /** Stable name: the checkpoint key and the `--projection` of `holdfast replay`. */
  readonly name: string;
  readonly topic: TopicName;
  /** The record types it applies; anything else on the topic is dead-lettered. */
  readonly handles: readonly N[];
  /** Tables it owns (written by nothing else): what a rebuild of this projection swaps in. */
  readonly tables: readonly string[];
  apply(events: readonly ProjectedEvent<N>[], tx: ProjectionTx): Promise<void>;
  /**
   * Deletes the rows of its tables that a retention rule (of the spec, or `retention` of the
   * configuration) has expired at `now`, and answers how many. Run by the projector's retention pass
   * (`startRetention`) and by a rebuild right before its switch, never from `apply` (which has no
   * clock): a replay folds expired rows back, and the rebuild's cut removes them before anyone reads
   * them. Idempotent, so several projector processes may run it at once.
   */
  expire?(pool: Pool, schema: string, now: Date, retention: RetentionConfig): Promise<number>;
}

/** A projection over any record type, as the runner holds them. */
export type AnyProjection = Projection<EventName>;

/**
 * A port of the runner (its option `lookahead`), supplied by whoever wires a projection that keeps
 * state in memory between chunks (the commerce projection's identity memory). Not part of
 * `Projection`: a projection is what it folds; this is how one process makes it fast.
 */
export interface ChunkLookahead<N extends EventName = EventName> {
  /**
   * The chunk that will most likely be applied next, offered while the current one is still being
   * written: it may be folded in memory ahead of time, as long as `apply` checks that it is given
   * exactly these events at the position the current chunk commits. Synchronous by design: it runs
   * while the database works, not instead of it.
   */
  prepare(events: readonly ProjectedEvent<N>[], schema: string, partition: number): void;
  /**
   * Called after a chunk's transaction committed, with the checkpoint version it wrote: the position
   * at which memory kept by `apply` is valid. Not called when the transaction failed.
   */
  committed(schema: string, partition: number, position: string): void;
}

/** A projection and the runner options its wiring supplies (see `ChunkLookahead`). */
export interface WiredProjection {
  readonly projection: AnyProjection;
  readonly lookahead?: ChunkLookahead;
}

/**
 * A record that can never be applied, found by a projection itself (e.g. an unparseable timestamp
 * it must compare in memory). The runner treats it like a constraint violation: isolate, dead-letter.
 */
export class PoisonRecordError extends Error {
  override readonly name = 'PoisonRecordError';
  readonly isRetriable = false;
}

/** `"schema".table`, quoted: schema names come from configuration, never from records. */
export function qualified(schema: string, table: string): string {
  return `"${schema}"."${table}"`;
}
