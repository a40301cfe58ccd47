import type { EventCodec } from '@holdfast/contracts';
import {
  beginStatement,
  lockCheckpointVersion,
  namedSql,
  writeCheckpoint,
  type CheckpointKey,
  type Pool,
  type PoolClient,
} from '@holdfast/postgres';
import {
  headerText,
  requestIdOfRecord,
  type BatchOutcome,
  type ConsumedRecord,
  type PartitionBatch,
} from '@holdfast/kafka';
import { countsAgainstRetryBudget, recordChildSpan, tracingOn, type Logger } from '@holdfast/platform';
import type { AnyProjection, ChunkLookahead, ProjectedEvent, ProjectionTx } from '../projection.js';
import { isDataError, reasonOf } from './data-errors.js';
import { insertDeadLetters, type DeadLetter, type DeadLetterPublisher } from './dead-letters.js';
import { deadLetterOf, decodeChunk, decodeKnownChunk, type DecodedChunk } from './decode-chunk.js';
import type { ProjectorMetrics } from './metrics.js';
import { SeekGuard } from './seek-guard.js';

/** The chunk's transaction (why each setting: in `handle`), begun in one round trip. */
const CHUNK_BEGIN = beginStatement({
  settings: { enable_hashjoin: 'off', enable_mergejoin: 'off', synchronous_commit: 'off' },
});

export interface RunnerDeps {
  readonly pool: Pool;
  readonly codec: EventCodec;
  readonly schema: string;
  readonly logger: Logger;
  readonly publisher: DeadLetterPublisher;
  readonly metrics?: ProjectorMetrics;
}

/** What the wiring of a projection adds to its runner (see `WiredProjection`). */
export interface RunnerOptions {
  /** Offered the next chunk while the current one is written, and told of every commit. */
  readonly lookahead?: ChunkLookahead;
}

/**
 * The lock a schema switch takes exclusively (see replay/switch-tables.ts): every chunk transaction
 * holds it shared, so no chunk ever straddles a switch (half in the old tables, half in the new).
 */
export const SCHEMA_LOCK_SQL = namedSql(
  'projection-runner.schema-lock',
  `select pg_advisory_xact_lock_shared(hashtext('holdfast.read_schema:' || $1))`,
);

/** The runner's statements on `schema`, named once per runner (they run every chunk). */
function runnerStatements(schema: string) {
  return {
    ensureCheckpoint: namedSql(
      'projection-runner.ensure-checkpoint',
      `insert into "${schema}".projection_checkpoints (projection, topic, partition, last_offset)
         values ($1, $2, $3, -1) on conflict do nothing`,
    ),
    checkpoints: namedSql(
      'projection-runner.checkpoints',
      `select partition, last_offset from "${schema}".projection_checkpoints where projection = $1 and topic = $2`,
    ),
  };
}

/**
 * Applies partition batches of one projection exactly once: in one transaction it locks the
 * checkpoint, drops what is already applied, applies the rest, records dead letters, and moves the
 * checkpoint. A chunk that fails on a data error is re-applied in halves under savepoints until the
 * poison records are isolated; everything else is applied in order and the projection never stops.
 */
export class ProjectionRunner {
  private readonly seeks = new SeekGuard();
  private readonly statements: ReturnType<typeof runnerStatements>;
  /** The projection's statements on this runner's schema, by name (see `ProjectionTx.named`). */
  private readonly namedTexts = new Map<string, string>();
  private readonly named = (name: string, build: (schema: string) => string): string => {
    let text = this.namedTexts.get(name);
    if (text === undefined) {
      text = namedSql(name, build(this.deps.schema));
      this.namedTexts.set(name, text);
    }
    return text;
  };
  /** The next chunk, decoded while the database wrote the previous one (see `prepare`). */
  private prepared:
    { readonly records: readonly ConsumedRecord[]; readonly decoded: DecodedChunk } | undefined;

  constructor(
    readonly projection: AnyProjection,
    private readonly deps: RunnerDeps,
    private readonly options: RunnerOptions = {},
  ) {
    this.statements = runnerStatements(deps.schema);
  }

  async handle(batch: PartitionBatch): Promise<BatchOutcome> {
    const { pool, schema, metrics } = this.deps;
    const started = process.hrtime.bigint();
    const startedAt = Date.now();
    const key: CheckpointKey = {
      schema,
      projection: this.projection.name,
      topic: this.projection.topic,
      partition: batch.partition,
    };
    const client = await pool.connect();
    try {
      // Every join a chunk makes is a key lookup of at most 5,000 keys: it must cost O(chunk), never
      // O(table). During a backfill statistics lag behind the table, and the planner then picks hash
      // joins over full scans of millions of rows; nested loops over the indexes are always right here.
      // synchronous_commit off: a commit lost in a database crash loses its checkpoint with it, so the
      // records are applied again from Kafka (SeekGuard rewinds); the chunk does not wait for fsync.
      await client.query(CHUNK_BEGIN);
      await client.query(SCHEMA_LOCK_SQL, [schema]);
      // The row must exist before `for update` can serialise two processes on this partition.
      await client.query(this.statements.ensureCheckpoint, [key.projection, key.topic, key.partition]);
      const { offset: checkpoint, version } = await lockCheckpointVersion(client, key);
      const seekTo = this.seeks.check(batch.partition, checkpoint, Number(batch.records[0]!.offset));
      if (seekTo !== undefined) {
        await client.query('rollback');
        return { kind: 'seek', offset: String(seekTo) };
      }
      const fresh = batch.records.filter((r) => Number(r.offset) > checkpoint);
      if (!fresh.length) {
        await client.query('rollback');
        return { kind: 'applied' };
      }
      const { events, dead } =
        this.takePrepared(fresh) ?? (await decodeChunk(this.deps.codec, this.projection, fresh));
      const upcoming = batch.upcoming;
      const meanwhile = upcoming?.length ? () => this.prepare(batch.partition, upcoming) : undefined;
      await this.applyIsolating(
        client,
        events,
        fresh,
        dead,
        batch.partition,
        version,
        meanwhile,
        batch.retryBudgetExhausted,
      );
      const last = Number(fresh[fresh.length - 1]!.offset);
      await insertDeadLetters(client, schema, dead);
      await this.deps.publisher.publish(dead);
      const written = await writeCheckpoint(client, key, last);
      await client.query('commit');
      this.seeks.committed(batch.partition, last);
      this.options.lookahead?.committed(schema, batch.partition, written);
      metrics?.observeChunk(this.projection.name, fresh.length - dead.length, dead.length, started);
      for (const d of dead)
        this.deps.logger.warn('record_dead_lettered', { ...addressOf(d), reason: forLogs(d.reason) });
      if (tracingOn()) this.traceApplied(fresh, batch.partition, startedAt);
      // The request ids cost a pass over the chunk: only when the line is written.
      if (this.deps.logger.debugEnabled?.() ?? true)
        this.deps.logger.debug('chunk_applied', {
          projection: this.projection.name,
          partition: batch.partition,
          first_offset: fresh[0]!.offset,
          last_offset: fresh[fresh.length - 1]!.offset,
          records: fresh.length,
          request_ids: requestIdsOf(fresh),
        });
      return { kind: 'applied' };
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * Tracing on: one `projector.apply` span per request whose records this chunk applied, a child of
   * that request's append span (the record's traceparent), covering the chunk's transaction.
   */
  private traceApplied(records: readonly ConsumedRecord[], partition: number, startedAt: number): void {
    const parents = new Map<string, Record<string, string>>();
    for (const r of records) {
      const traceparent = r.headers ? headerText(r, 'traceparent') : undefined;
      if (!traceparent || parents.has(traceparent)) continue;
      const tracestate = headerText(r, 'tracestate');
      parents.set(traceparent, tracestate ? { traceparent, tracestate } : { traceparent });
      if (parents.size >= 50) break;
    }
    for (const headers of parents.values())
      recordChildSpan('projector.apply', headers, startedAt, {
        'holdfast.projection': this.projection.name,
        'messaging.destination.partition.id': String(partition),
        'messaging.batch.message_count': records.length,
      });
  }

  /**
   * Decodes the next chunk and offers it to the lookahead while the database is still writing the
   * current one: on one partition the chunks are applied strictly one after another, so this is the
   * only place where Node's work (decoding, folding) and PostgreSQL's (COPY, index updates) overlap.
   */
  private prepare(partition: number, records: readonly ConsumedRecord[]): void {
    try {
      const decoded = decodeKnownChunk(this.deps.codec, this.projection, records);
      if (!decoded) return;
      this.prepared = { records, decoded };
      if (!decoded.dead.length) this.options.lookahead?.prepare(decoded.events, this.deps.schema, partition);
    } catch (err) {
      // Preparing is an optimisation: whatever failed here fails again, properly, when applied.
      this.prepared = undefined;
      this.deps.logger.warn('prepare_failed', { error: (err as Error).name });
    }
  }

  /** The prepared decode of exactly `records`, if there is one (consumed either way). */
  private takePrepared(records: readonly ConsumedRecord[]): DecodedChunk | undefined {
    const p = this.prepared;
    this.prepared = undefined;
    if (!p || p.records.length !== records.length) return undefined;
    const same =
      p.records[0]!.offset === records[0]!.offset && p.records.at(-1)!.offset === records.at(-1)!.offset;
    return same && p.records[0]!.partition === records[0]!.partition ? p.decoded : undefined;
  }

  /** Rewinds needed because this projection's checkpoints moved behind it (see SeekGuard.reconcile). */
  async reconcile(): Promise<{ partition: number; offset: number }[]> {
    const { rows } = await this.deps.pool.query<{ partition: number; last_offset: number }>(
      this.statements.checkpoints,
      [this.projection.name, this.projection.topic],
    );
    return this.seeks.reconcile(new Map(rows.map((r) => [r.partition, Number(r.last_offset)])));
  }

  /**
   * Applies `events` under a savepoint; on a data error splits them in halves, in order, down to the
   * single records at fault. One poison record in a chunk of 5,000 costs about 25 extra applies.
   */
  private async applyIsolating(
    client: PoolClient,
    events: readonly ProjectedEvent[],
    records: readonly ConsumedRecord[],
    dead: DeadLetter[],
    partition: number,
    /** The checkpoint version for the whole chunk; null for the halves of poison isolation. */
    position: string | null,
    meanwhile?: () => void,
    /**
     * Set by the runner once this chunk failed identically `retryBudget` times (a statement that
     * always exceeds its timeout): such a failure is then isolated and dead-lettered like a data error.
     */
    exhausted?: string,
  ): Promise<void> {
    if (!events.length) return;
    const whole = position !== null;
    let pending = meanwhile;
    const once = () => {
      const run = pending;
      pending = undefined;
      run?.();
    };
    const tx: ProjectionTx = {
      client,
      pool: this.deps.pool,
      schema: this.deps.schema,
      partition,
      position,
      meanwhile: once,
      named: this.named,
    };
    await client.query('savepoint apply_chunk');
    try {
      await this.projection.apply(events, tx);
      await client.query('release savepoint apply_chunk');
      return;
    } catch (err) {
      const givenUp = exhausted !== undefined && countsAgainstRetryBudget(err);
      if (!isDataError(err) && !givenUp) throw err;
      await client.query('rollback to savepoint apply_chunk');
      await client.query('release savepoint apply_chunk');
      if (events.length === 1) {
        const e = events[0]!;
        const record = records.find((r) => r.offset === e.offset)!;
        dead.push(deadLetterOf(this.projection, record, givenUp ? exhausted : reasonOf(err)));
        return;
      }
      if (whole)
        this.deps.logger.warn('chunk_isolating_poison', {
          projection: this.projection.name,
          size: events.length,
        });
    }
    const mid = Math.ceil(events.length / 2);
    await this.applyIsolating(
      client,
      events.slice(0, mid),
      records,
      dead,
      partition,
      null,
      undefined,
      exhausted,
    );
    await this.applyIsolating(
      client,
      events.slice(mid),
      records,
      dead,
      partition,
      null,
      undefined,
      exhausted,
    );
  }
}

// Database messages quote the offending value ("invalid input syntax for type uuid: \"…\""), which may
// be an email or a name; logs never carry those (the dead_letters row keeps the full reason).
const forLogs = (reason: string) => reason.replace(/"[^"]*"/g, '"…"');

/** The distinct request ids of a chunk's records (at most 20: one ingest batch is one request). */
function requestIdsOf(records: readonly ConsumedRecord[]): string[] {
  const ids = new Set<string>();
  for (const r of records) {
    if (!r.headers) continue;
    const id = requestIdOfRecord(r);
    if (id) ids.add(id);
    if (ids.size >= 20) break;
  }
  return [...ids];
}

function addressOf(d: DeadLetter) {
  return {
    projection: d.projection,
    topic: d.topic,
    partition: d.partition,
    offset: d.offset,
    request_id: d.requestId ?? null,
  };
}
