import { createDb, kyselyOn, sql, withTransaction, type Pool } from '@holdfast/db';
import { topicName, type Appender } from '@holdfast/kafka';
import type { TopicName } from '@holdfast/contracts';
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
