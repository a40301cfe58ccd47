import {
  adoptSchema,
  rawQuery,
  SERVICE_ROLES,
  withTransaction,
  type Pool,
  type PoolClient,
} from '@holdfast/postgres';
import { applyReadModelPrivileges, readModelAccess, viewsDdl } from '@holdfast/read-models';
import type { AnyProjection } from '../projection.js';

/**
 * Takes the live schema's switch lock in the caller's transaction. Every chunk transaction of a
 * projector writing `live` holds it shared, so this waits for in-flight chunks and then holds the
 * live projector back until the transaction ends: nothing is applied to `live` meanwhile.
 */
export async function lockLiveSchema(client: PoolClient, live: string): Promise<void> {
  await rawQuery(
    client,
    'switch-tables.lock-live-schema',
    `select pg_advisory_xact_lock(hashtext('holdfast.read_schema:' || $1))`,
    [live],
  );
}

/**
 * Moves the tables of `projections` from `next` into `live`, in the caller's transaction (which holds
 * `lockLiveSchema`), and the replaced ones to a new schema `<live>_old_<stamp>` (kept for comparison or
 * rollback; drop it when done). ALTER TABLE … SET SCHEMA carries indexes and grants along; tables in
 * `live` owned by other services are untouched. Checkpoints and dead letters are shared by every
 * projection, so theirs move as rows.
 */
export async function moveTables(
  client: PoolClient,
  live: string,
  next: string,
  projections: readonly AnyProjection[],
  stamp: string,
): Promise<{ oldSchema: string }> {
  // Two switches within one second share a stamp: the second gets a numbered name of its own.
  let old = `${live}_old_${stamp}`;
  for (
    let n = 2;
    (
      await rawQuery(client, 'switch-tables.schema-exists', 'select 1 from pg_namespace where nspname = $1', [
        old,
      ])
    ).rowCount;
    n++
  ) {
    old = `${live}_old_${stamp}_${n}`;
  }
  const names = projections.map((p) => p.name);
  await rawQuery(client, 'switch-tables.create-old-schema', `create schema "${old}"`);
  for (const t of projections.flatMap((p) => p.tables)) {
    await rawQuery(
      client,
      'switch-tables.retire-table',
      `alter table if exists "${live}"."${t}" set schema "${old}"`,
    );
    await rawQuery(
      client,
      'switch-tables.switch-in-table',
      `alter table "${next}"."${t}" set schema "${live}"`,
    );
  }
  const shared = [
    ['projection_checkpoints', 'projection, topic, partition, last_offset, updated_at'],
    [
      'dead_letters',
      'projection, topic, partition, record_offset, account_id, reason, record_key, record_value, record_timestamp, status, redriven_at, request_id',
    ],
  ] as const;
  for (const [t, cols] of shared) {
    await rawQuery(
      client,
      'switch-tables.keep-old-rows',
      `create table "${old}"."${t}" as select * from "${live}"."${t}" where projection = any($1)`,
      [names],
    );
    await rawQuery(
      client,
      'switch-tables.delete-live-rows',
      `delete from "${live}"."${t}" where projection = any($1)`,
      [names],
    );
    await rawQuery(
      client,
      'switch-tables.move-rows',
      `insert into "${live}"."${t}" (${cols}) select ${cols} from "${next}"."${t}" where projection = any($1)`,
      [names],
    );
  }
  // Views follow a table into the old schema when it moves; re-create them over the live tables.
  await rawQuery(client, 'switch-tables.create-views', viewsDdl(live));
  // The moved tables carry their grants and policies; a view re-created here by another user is given
  // back to the projector's role and granted again.
  if ((await readModelAccess(client)) === 'owner') {
    await adoptSchema(
      (text) => rawQuery(client, 'switch-tables.adopt-schema', text),
      live,
      SERVICE_ROLES.projector,
    );
    await applyReadModelPrivileges(client, live);
  }
  await rawQuery(client, 'switch-tables.drop-next-schema', `drop schema "${next}" cascade`);
  return { oldSchema: old };
}

/** Lock and move in one transaction of its own (when `next` is complete and nothing must catch up). */
export async function switchTables(
  pool: Pool,
  live: string,
  next: string,
  projections: readonly AnyProjection[],
  stamp: string,
): Promise<{ oldSchema: string }> {
  return withTransaction(pool, async (client) => {
    await lockLiveSchema(client, live);
    return moveTables(client, live, next, projections, stamp);
  });
}
