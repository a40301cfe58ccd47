import { createDb, kyselyOn, sql, withTransaction, type Pool } from '@holdfast/postgres';
import { keptSince } from '@holdfast/domain';
import { topicName, type Appender } from '@holdfast/kafka';
import type { AnyEvent, EventCodec, TopicName } from '@holdfast/contracts';
import type { DeadLetterFilter, DeadLetterRow, ReadModelTables } from '@holdfast/read-models';
import type { Kysely, SelectQueryBuilder } from 'kysely';

export type { DeadLetterFilter, DeadLetterRow };

const readModels = (pool: Pool, schema: string) =>
  (createDb(pool) as unknown as Kysely<ReadModelTables>).withSchema(schema);

/** `= any($1)` of a text array: one parameter however many ids (`in (…)` would make one each). */
const anyOf = (ids: readonly string[]) => sql<string>`any(${ids}::text[])`;

/** The letters of `filter`'s projection and ids, in log order (projection, topic, partition, offset). */
function selected<O>(
  query: SelectQueryBuilder<ReadModelTables, 'dead_letters', O>,
  filter: Pick<DeadLetterFilter, 'projection' | 'ids'>,
  limit: number,
): SelectQueryBuilder<ReadModelTables, 'dead_letters', O> {
  let q = query;
  if (filter.projection !== undefined) q = q.where('projection', '=', filter.projection);
  if (filter.ids !== undefined) q = q.where('id', '=', anyOf(filter.ids));
  return q.orderBy('projection').orderBy('topic').orderBy('partition').orderBy('record_offset').limit(limit);
}

/** Lists dead letters, oldest position first. */
export async function listDeadLetters(
  pool: Pool,
  schema: string,
  filter: DeadLetterFilter = {},
): Promise<DeadLetterRow[]> {
  const status = filter.status ?? 'dead';
  let query = readModels(pool, schema)
    .selectFrom('dead_letters')
    .select([
      'id',
      'projection',
      'topic',
      'partition',
      'record_offset',
      'account_id',
      'request_id',
      'reason',
      'record_timestamp',
      'status',
      'redriven_at',
      sql<number | null>`octet_length(record_value)`.as('value_bytes'),
    ]);
  if (status !== 'all') query = query.where('status', '=', status);
  const rows = await selected(query, filter, filter.limit ?? 100).execute();
  return rows.map((r) => ({
    id: r.id,
    projection: r.projection,
    topic: r.topic,
    partition: r.partition,
    offset: Number(r.record_offset),
    accountId: r.account_id,
    requestId: r.request_id,
    reason: r.reason,
    recordTimestamp: r.record_timestamp,
    status: r.status,
    redrivenAt: r.redriven_at,
    valueBytes: r.value_bytes ?? 0,
  }));
}

/**
 * Re-drives dead letters: appends each original record (same key, same bytes) to the end of its topic
 * and marks the letter `redriven`. The log stays the only source of truth: the projector applies the
 * copy in log order like any re-post (after the fix that made it applicable, e.g. a new build that
 * knows its schema), and a rebuild reproduces it. A copy that fails again becomes a new dead letter.
 */
export async function redriveDeadLetters(
  pool: Pool,
  appender: Appender,
  opts: { schema: string; topicPrefix: string } & Omit<DeadLetterFilter, 'status'>,
): Promise<{ redriven: string[] }> {
  return withTransaction(pool, async (client) => {
    const db = kyselyOn<ReadModelTables>(client).withSchema(opts.schema);
    const query = db
      .selectFrom('dead_letters')
      .select(['id', 'topic', 'record_key', 'record_value'])
      .where('status', '=', 'dead');
    const rows = await selected(query, opts, opts.limit ?? 10_000)
      .forUpdate()
      .skipLocked()
      .execute();
    // An empty record has nothing to re-drive: it stays dead.
    const redrivable = rows.filter((r) => r.record_value !== null);
    const records = redrivable.map((r) => ({
      topic: topicName(opts.topicPrefix, r.topic as TopicName),
      key: r.record_key?.toString('utf8') ?? '',
      value: r.record_value!,
    }));
    // Appended before the status commits: a crash in between re-drives twice, and a re-driven
    // record is a re-post, which every projection absorbs (upserts, dedup keys).
    await appender.append(records);
    await db
      .updateTable('dead_letters')
      .set({ status: 'redriven', redriven_at: sql<Date>`now()` })
      .where('id', '=', anyOf(redrivable.map((r) => r.id)))
      .execute();
    return { redriven: redrivable.map((r) => r.id) };
  });
}

/**
 * Deletes the dead letters whose record has a Kafka timestamp older than `days` before `now`,
 * whatever their status (a re-driven letter's copy is in the log; a dead one past the retention was
 * not fixed in time, and its record is still in its topic for a later re-post). Letters keep a whole
 * copy of a record, personal data included, so they must not outlive the retention
 * (HOLDFAST_DEAD_LETTER_RETENTION_DAYS). By the record's timestamp, not the time of the failure, so a
 * rebuild that dead-letters the same records again cuts the same ones.
 *
 * @example
 * const deleted = await expireDeadLetters(pool, 'read_models', new Date(), 30);
 */
export async function expireDeadLetters(
  pool: Pool,
  schema: string,
  now: Date,
  days: number,
): Promise<number> {
  const r = await readModels(pool, schema)
    .deleteFrom('dead_letters')
    .where('record_timestamp', '<', keptSince(now, days))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** A stored dead letter as `deadLettersOfEvents` looks at it: its id and the record's raw bytes. */
export interface StoredLetter {
  readonly id: string;
  readonly value: Buffer | null;
}

/**
 * The ids of the letters whose record carries one of `eventIds` (`metadata.event_id`), decoded with
 * `decode`. A letter whose bytes cannot be decoded (often why it is a letter) or that are empty is
 * never matched: nothing in it can be attributed; the retention deletes it in time.
 *
 * @example
 * deadLettersOfEvents(letters, (b) => codec.decodeKnown(b), ['5f0c…']); // ['commerce:0:42']
 */
export function deadLettersOfEvents(
  letters: readonly StoredLetter[],
  decode: (value: Buffer) => AnyEvent | undefined,
  eventIds: readonly string[],
): string[] {
  const wanted = new Set(eventIds);
  return letters
    .filter((l) => {
      if (!l.value) return false;
      let decoded: AnyEvent | undefined;
      try {
        decoded = decode(l.value);
      } catch {
        return false;
      }
      const eventId = (decoded?.value as { metadata?: { event_id?: unknown } } | undefined)?.metadata
        ?.event_id;
      return typeof eventId === 'string' && wanted.has(eventId);
    })
    .map((l) => l.id);
}

/**
 * Deletes the dead letters of `accountId` whose record is one of `eventIds` (for an erasure: a
 * letter holds a whole copy of the record), and answers their ids. Only the account's letters are
 * decoded (letters are keyed by account id, like the records). The holdfast.dlq topic's copies are
 * not touched: they expire with the topic's retention.ms.
 *
 * @example
 * const { deleted } = await deleteDeadLettersForEvents(pool, 'read_models', codec, accountId, [eventId]);
 */
export async function deleteDeadLettersForEvents(
  pool: Pool,
  schema: string,
  codec: Pick<EventCodec, 'decode'>,
  accountId: string,
  eventIds: readonly string[],
): Promise<{ deleted: string[] }> {
  if (!eventIds.length) return { deleted: [] };
  return withTransaction(pool, async (client) => {
    const db = kyselyOn<ReadModelTables>(client).withSchema(schema);
    const rows = await db
      .selectFrom('dead_letters')
      .select(['id', 'record_value'])
      .where('account_id', '=', accountId)
      .forUpdate()
      .execute();
    // Decoded up front (a schema id the process has not seen is fetched), then matched purely.
    const decoded = new Map<Buffer, AnyEvent | undefined>();
    for (const r of rows)
      if (r.record_value)
        decoded.set(r.record_value, await codec.decode(r.record_value).catch(() => undefined));
    const ids = deadLettersOfEvents(
      rows.map((r) => ({ id: r.id, value: r.record_value })),
      (value) => decoded.get(value),
      eventIds,
    );
    if (ids.length) await db.deleteFrom('dead_letters').where('id', '=', anyOf(ids)).execute();
    return { deleted: ids };
  });
}
