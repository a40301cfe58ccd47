import { withTransaction, type Pool } from '@holdfast/db';
import { topicName, type Appender } from '@holdfast/kafka';
import type { TopicName } from '@holdfast/contracts';
import type { DeadLetterFilter, DeadLetterRow } from '@holdfast/read-models';

export type { DeadLetterFilter, DeadLetterRow };

/** Lists dead letters, oldest position first. */
export async function listDeadLetters(
  pool: Pool,
  schema: string,
  filter: DeadLetterFilter = {},
): Promise<DeadLetterRow[]> {
  const status = filter.status ?? 'dead';
  const { rows } = await pool.query<{
    id: string;
    projection: string;
    topic: string;
    partition: number;
    record_offset: number;
    account_id: string | null;
    request_id: string | null;
    reason: string;
    record_timestamp: Date | null;
    status: 'dead' | 'redriven';
    redriven_at: Date | null;
    value_bytes: number | null;
  }>(
    `select id, projection, topic, partition, record_offset, account_id, request_id, reason, record_timestamp, status,
       redriven_at, octet_length(record_value) as value_bytes
     from "${schema}".dead_letters
     where ($1::text is null or projection = $1) and ($2 = 'all' or status = $2)
       and ($3::text[] is null or id = any($3))
     order by projection, topic, partition, record_offset
     limit $4`,
    [filter.projection ?? null, status, filter.ids ?? null, filter.limit ?? 100],
  );
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
    const { rows } = await client.query<{
      id: string;
      topic: string;
      record_key: Buffer | null;
      record_value: Buffer | null;
    }>(
      `select id, topic, record_key, record_value from "${opts.schema}".dead_letters
     where status = 'dead' and ($1::text is null or projection = $1) and ($2::text[] is null or id = any($2))
     order by projection, topic, partition, record_offset
     limit $3
     for update skip locked`,
      [opts.projection ?? null, opts.ids ?? null, opts.limit ?? 10_000],
    );
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
    await client.query(
      `update "${opts.schema}".dead_letters set status = 'redriven', redriven_at = now() where id = any($1)`,
      [redrivable.map((r) => r.id)],
    );
    return { redriven: redrivable.map((r) => r.id) };
  });
}
