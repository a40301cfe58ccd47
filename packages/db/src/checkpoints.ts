import type { PoolClient } from 'pg';

/** The identity of a projection's position in one partition of one (logical) topic. */
export interface CheckpointKey {
  readonly schema: string;
  readonly projection: string;
  readonly topic: string;
  readonly partition: number;
}

/** The DDL of the checkpoint table, created in every read-model schema beside the rows it guards. */
export function checkpointTableDdl(schema: string): string {
  return `create table if not exists "${schema}".projection_checkpoints (
    projection text not null,
    topic text not null,
    partition integer not null,
    last_offset bigint not null,
    updated_at timestamptz not null default now(),
    primary key (projection, topic, partition)
  )`;
}

/**
 * Locks and reads the last applied offset (−1 when nothing was applied). Call inside the transaction
 * that applies the records, then `writeCheckpoint` in the same transaction.
 */
export async function readCheckpoint(client: PoolClient, key: CheckpointKey): Promise<number> {
  const res = await client.query<{ last_offset: number }>(
    `select last_offset from "${key.schema}".projection_checkpoints
      where projection = $1 and topic = $2 and partition = $3 for update`,
    [key.projection, key.topic, key.partition],
  );
  return res.rows[0]?.last_offset ?? -1;
}

/**
 * Moves the checkpoint and returns its version: the id of the writing transaction (the row's xmin).
 * A process that remembers the version of its last commit knows, on reading the same version back
 * (`lockCheckpointVersion`), that nothing else wrote this partition's rows since.
 */
export async function writeCheckpoint(
  client: PoolClient,
  key: CheckpointKey,
  offset: number,
): Promise<string> {
  const { rows } = await client.query<{ version: string }>(
    `insert into "${key.schema}".projection_checkpoints (projection, topic, partition, last_offset)
     values ($1, $2, $3, $4)
     on conflict (projection, topic, partition) do update set last_offset = excluded.last_offset, updated_at = now()
     returning xmin::text as version`,
    [key.projection, key.topic, key.partition, offset],
  );
  return rows[0]!.version;
}

/** Like `readCheckpoint`, with the version of the row (see `writeCheckpoint`); '' when there is none. */
export async function lockCheckpointVersion(
  client: PoolClient,
  key: CheckpointKey,
): Promise<{ offset: number; version: string }> {
  const res = await client.query<{ last_offset: number; version: string }>(
    `select last_offset, xmin::text as version from "${key.schema}".projection_checkpoints
      where projection = $1 and topic = $2 and partition = $3 for update`,
    [key.projection, key.topic, key.partition],
  );
  const row = res.rows[0];
  return row ? { offset: Number(row.last_offset), version: row.version } : { offset: -1, version: '' };
}
