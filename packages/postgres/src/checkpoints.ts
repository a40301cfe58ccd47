import { sql } from 'kysely';
import { kyselyOn } from './kysely-on-client.js';
import type { PoolClient } from './pool.js';
import type { CheckpointDatabase } from './schema.js';

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

const checkpoints = (client: PoolClient, key: CheckpointKey) =>
  kyselyOn<CheckpointDatabase>(client).withSchema(key.schema);

/** The row of `key`, locked (for update), with its version. */
function lockedRow(client: PoolClient, key: CheckpointKey) {
  return checkpoints(client, key)
    .selectFrom('projection_checkpoints')
    .select(['last_offset', sql<string>`xmin::text`.as('version')])
    .where('projection', '=', key.projection)
    .where('topic', '=', key.topic)
    .where('partition', '=', key.partition)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Locks and reads the last applied offset (−1 when nothing was applied). Call inside the transaction
 * that applies the records, then `writeCheckpoint` in the same transaction.
 */
export async function readCheckpoint(client: PoolClient, key: CheckpointKey): Promise<number> {
  return (await lockedRow(client, key))?.last_offset ?? -1;
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
  const { version } = await checkpoints(client, key)
    .insertInto('projection_checkpoints')
    .values({ projection: key.projection, topic: key.topic, partition: key.partition, last_offset: offset })
    .onConflict((oc) =>
      oc
        .columns(['projection', 'topic', 'partition'])
        .doUpdateSet((eb) => ({ last_offset: eb.ref('excluded.last_offset'), updated_at: sql`now()` })),
    )
    .returning(sql<string>`xmin::text`.as('version'))
    .executeTakeFirstOrThrow();
  return version;
}

/** Like `readCheckpoint`, with the version of the row (see `writeCheckpoint`); '' when there is none. */
export async function lockCheckpointVersion(
  client: PoolClient,
  key: CheckpointKey,
): Promise<{ offset: number; version: string }> {
  const row = await lockedRow(client, key);
  return row ? { offset: Number(row.last_offset), version: row.version } : { offset: -1, version: '' };
}
