import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createPool, migrateToLatest, SERVICE_ROLES, type Pool } from '@holdfast/postgres';
import {
  createWebhookSubscription,
  disableWebhookSubscription,
  listWebhookSubscriptions,
  rotateWebhookSecret,
  grantAnalystAccount,
} from '@holdfast/control-plane';
import { defaultSecretsKeyring, parseWebhookSealKey } from '@holdfast/secrets';
import {
  listDeliveries,
  outboundEventId,
  recordOutboundEvents,
  redeliver,
} from '@holdfast/webhook-deliveries';
import { rebuildReadModels } from '@holdfast/projections';
import {
  DEFAULT_READ_MODEL_SCHEMA,
  ensureReadModelSchema,
  missingReadModelTables,
} from '@holdfast/read-models';
import { silentLogger } from '@holdfast/platform';
import { loadPrivacyKeyring, PgSubjectKeyStore } from '@holdfast/privacy';
import {
  findErasure,
  openExportDocument,
  queueErasure,
  queueExport,
  runErasure,
  runExport,
} from '@holdfast/privacy-requests';
import {
  migrateAnalytics,
  migrateCampaigns,
  migrateRecompute,
  migrateDispatcher,
} from '@holdfast/migrations';
import { refreshFunnelCounts } from '@holdfast/recompute';
import { createTestEnv, type TestEnv } from '@holdfast/testing';

// Each service connects as its own role (trust authentication locally, so no password): every grant
// below is what the role needs, and every write outside them fails with "permission denied".
let t: TestEnv;
const pools = new Map<string, Pool>();
const A = randomUUID();
const B = randomUUID();

function poolAs(role: string): Pool {
  let p = pools.get(role);
  if (!p) {
    const url = new URL(t.databaseUrl);
    url.username = role;
    url.password = '';
    p = createPool(url.toString(), `test-${role}`, 2);
    pools.set(role, p);
  }
  return p;
}

const as = (role: string, text: string, values: unknown[] = []) => poolAs(role).query(text, values);
const denied = (role: string, text: string, values: unknown[] = []) =>
  expect(as(role, text, values)).rejects.toThrow(/permission denied/);

// An analyst's own login, granted account A only (roles are cluster-wide: a name unique to this run).
const ANALYST_LOGIN = `hf_lp_${randomBytes(3).toString('hex')}_analyst`;

/** As the analyst's login, in one transaction. */
async function asAnalyst<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await poolAs(ANALYST_LOGIN).connect();
  try {
    await c.query('begin');
    return await fn(c);
  } finally {
    await c.query('rollback').catch(() => {});
    c.release();
  }
}

const countOrders = (c: pg.PoolClient) =>
  c.query<{ account_id: string }>('select account_id from read_models.orders order by account_id');

async function seedOrders(): Promise<void> {
  for (const [account, n] of [
    [A, 2],
    [B, 3],
  ] as const)
    for (let i = 0; i < n; i++)
      await as(
        SERVICE_ROLES.projector,
        `insert into read_models.orders (account_id, order_id, customer_id, order_date, order_amount, product_name,
                                         first_seen_at, updated_at)
         values ($1, $2, $3, now(), 10, 'tea', now(), now())`,
        [account, `o-${i}`, randomUUID()],
      );
}

beforeAll(async () => {
  t = await createTestEnv('privileges');
  const db = t.db as Kysely<unknown>;
  // The migration owner (the superuser locally) migrates everything first, as `holdfast migrate` does.
  await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
  await migrateAnalytics(db);
  await migrateCampaigns(db);
  await migrateRecompute(db);
  await migrateDispatcher(db);
  for (const id of [A, B])
    await t.pool.query(`insert into control.accounts (id, name) values ($1, 'x')`, [id]);
  await t.pool.query(
    `insert into control.api_keys (id, account_id, kind, prefix, key_hash) values ($1, $2, 'ingest_live', 'tk_live_', $3)`,
    [randomUUID(), A, Buffer.from(randomUUID())],
  );
  await t.pool.query(
    `insert into control.webhook_subscriptions (id, account_id, url, secret) values ($1, $2, 'https://example.com/h', 'whsec_x')`,
    [randomUUID(), A],
  );
  await seedOrders();
  await t.pool.query(`create role "${ANALYST_LOGIN}" login`);
  await grantAnalystAccount(t.db, ANALYST_LOGIN, A);
  for (const id of [A, B])
    await t.pool.query(
      `insert into analytics.model_fits (account_id, as_of, model, params, customers, repeat_customers, converged)
       values ($1, now(), 'heuristic', '{}', 1, 0, true)`,
      [id],
    );
});

afterAll(async () => {
  for (const p of pools.values()) await p.end();
  await t?.close();
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`drop role if exists "${ANALYST_LOGIN}"`);
  await admin.end();
});

describe('every service starts as its own role', () => {
  it('runs its start-up migrations and schema checks without DDL rights (already migrated)', async () => {
    for (const role of [SERVICE_ROLES.gateway, SERVICE_ROLES.recompute, SERVICE_ROLES.dispatcher])
      await expect(migrateToLatest(createDb(poolAs(role)) as Kysely<unknown>)).resolves.toEqual([]);
    await expect(
      migrateAnalytics(createDb(poolAs(SERVICE_ROLES.recompute)) as Kysely<unknown>),
    ).resolves.toEqual([]);
    await expect(
      migrateCampaigns(createDb(poolAs(SERVICE_ROLES.recompute)) as Kysely<unknown>),
    ).resolves.toEqual([]);
    await expect(
      migrateRecompute(createDb(poolAs(SERVICE_ROLES.recompute)) as Kysely<unknown>),
    ).resolves.toEqual([]);
    await expect(
      migrateDispatcher(createDb(poolAs(SERVICE_ROLES.dispatcher)) as Kysely<unknown>),
    ).resolves.toEqual([]);
    // The projector owns its tables and re-runs its DDL; a reader's role (the gateway's) may only
    // check they exist (the gateway's readiness does, it runs no DDL).
    await ensureReadModelSchema(poolAs(SERVICE_ROLES.projector), DEFAULT_READ_MODEL_SCHEMA);
    expect(await missingReadModelTables(poolAs(SERVICE_ROLES.gateway), DEFAULT_READ_MODEL_SCHEMA)).toEqual(
      [],
    );
    await ensureReadModelSchema(poolAs(SERVICE_ROLES.gateway), DEFAULT_READ_MODEL_SCHEMA);
    await expect(
      ensureReadModelSchema(poolAs(SERVICE_ROLES.gateway), 'read_models_elsewhere'),
    ).rejects.toThrow('read-model schema "read_models_elsewhere" lacks orders, customers');
  });

  it('the read models belong to the projector, analytics and recompute to the recompute, dispatcher to the dispatcher', async () => {
    const { rows } = await t.pool.query<{ schema: string; owner: string }>(
      `select distinct n.nspname as schema, pg_get_userbyid(c.relowner) as owner
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname in ($1, 'analytics', 'recompute', 'dispatcher') and c.relkind in ('r', 'p', 'v')
        order by 1, 2`,
      [DEFAULT_READ_MODEL_SCHEMA],
    );
    expect(rows).toEqual([
      { schema: 'analytics', owner: SERVICE_ROLES.recompute },
      { schema: 'dispatcher', owner: SERVICE_ROLES.dispatcher },
      { schema: DEFAULT_READ_MODEL_SCHEMA, owner: SERVICE_ROLES.projector },
      { schema: 'recompute', owner: SERVICE_ROLES.recompute },
    ]);
  });
});

describe('gateway role', () => {
  const g = SERVICE_ROLES.gateway;
  it('reads the control plane and the read models, writes its counters, marks and tasks', async () => {
    expect((await as(g, 'select key_hash from control.api_keys')).rowCount).toBe(1);
    await as(g, 'update control.api_keys set last_used_at = now()');
    await as(g, `insert into control.rate_counters (bucket, window_start, count) values ('k', now(), 1)`);
    await as(
      g,
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at)
                 values (gen_random_uuid(), '${A}', 'api', 'queued', now())`,
    );
    // The task's command, in the outbox with it; the relay deletes it once appended.
    await as(
      g,
      `insert into control.sync_outbox (task_id, account_id, command)
         select id, account_id, '\\x00'::bytea from control.sync_tasks where account_id = '${A}' and trigger = 'api'`,
    );
    await as(g, `update control.sync_outbox set attempts = attempts + 1, last_error = 'x'`);
    await as(g, `delete from control.sync_outbox where account_id = '${A}'`);
    expect((await as(g, 'select 1 from read_models.orders')).rowCount).toBe(5);
    // The SMS tokens sealed for it under HOLDFAST_INBOUND_KEYS: the only provider secret it reads.
    await as(g, 'select key_id, wrapped_key, ciphertext from control.provider_inbound_secrets');
  });
  it('reads the scores and lift reports its /v1/ read routes serve, every account, and writes neither', async () => {
    const customer = randomUUID();
    await t.pool.query(
      `insert into analytics.customer_scores (account_id, customer_id, external_id, churn_risk, lifecycle_state,
         p_alive, expected_purchases, expected_spend, realised_revenue, predicted_value, lifetime_value, is_holdout,
         model, model_params, horizon_days, as_of)
       values ($1, $2, 'X', 0.5, 'Stable', 0.5, 1, 1, 1, 1, 1, false, 'heuristic', '{}', 365, now())`,
      [A, customer],
    );
    expect((await as(g, 'select 1 from analytics.customer_scores where account_id = $1', [A])).rowCount).toBe(
      1,
    );
    expect((await as(g, 'select 1 from analytics.lift_reports')).rowCount).toBe(0);
    await denied(g, 'update analytics.customer_scores set churn_risk = 0');
    await denied(g, 'delete from analytics.lift_reports');
    // The ledger: the decision columns a send claim's cool-down and cap read (POST /v1/sends), never
    // a tracking id, a link or a provider's error.
    await as(
      g,
      'select account_id, customer_id, campaign_type, status, assigned_at from analytics.campaign_assignments',
    );
    for (const column of ['tracking_id', 'url', 'last_error', 'run_id'])
      await denied(g, `select ${column} from analytics.campaign_assignments`);
    await denied(g, `update analytics.campaign_assignments set status = 'merchant_sent'`);
    await t.pool.query('delete from analytics.customer_scores where customer_id = $1', [customer]);
  });
  it('reads what GET /v1/reports/{name} aggregates: the campaign decisions as counts only, never the ledger', async () => {
    await t.pool.query(
      `insert into analytics.campaign_assignments (assignment_id, account_id, run_id, campaign_type, customer_id, arm,
         channel, provider, status, assigned_at)
       values (gen_random_uuid(), $1, gen_random_uuid(), 'win_back', gen_random_uuid(), 'holdout', 'email', 'p',
               'held_out', now())`,
      [A],
    );
    // The recompute counts the ledger for the dashboards: the gateway reads the count, not the row.
    await refreshFunnelCounts(t.pool, A, new Date());
    expect(
      (await as(g, 'select decisions from analytics.campaign_decision_counts where account_id = $1', [A]))
        .rows,
    ).toEqual([{ decisions: 1 }]);
    for (const table of [
      'model_fits',
      'lifecycle_mix',
      'score_bins',
      'cohort_activity',
      'campaign_attributed_totals',
    ])
      await as(g, `select 1 from analytics.${table} where account_id = $1`, [A]);
    await denied(g, 'select tracking_id from analytics.campaign_assignments');
    await denied(g, 'delete from analytics.lifecycle_mix');
    await denied(g, 'update analytics.model_fits set customers = 0');
    await denied(g, 'select 1 from analytics.attributions');
    await t.pool.query('delete from analytics.campaign_assignments where account_id = $1', [A]);
    await refreshFunnelCounts(t.pool, A, new Date());
  });
  it('cannot write the read models, rewrite a key, or read secrets and dead letters', async () => {
    // Sealed under the master keys, which the gateway does not hold; nor may it write its own copy.
    // A database upgraded from a release that granted it has the grant taken back by the next migrate.
    await t.pool.query(`grant select on control.provider_secrets to ${g}`);
    await migrateToLatest(t.db as Kysely<unknown>);
    await denied(g, `select * from control.provider_secrets`);
    await denied(g, `delete from control.provider_inbound_secrets`);
    await denied(
      g,
      `insert into read_models.orders (account_id, order_id, customer_id, order_date, order_amount, product_name,
                                       first_seen_at, updated_at)
       values ($1, 'x', $2, now(), 1, 'x', now(), now())`,
      [A, randomUUID()],
    );
    await denied(g, `update read_models.orders set order_amount = 0`);
    // Expired batch records are the projector's to delete (its retention pass).
    await denied(g, `delete from read_models.ingest_batches where received_at < now() - interval '90 days'`);
    await denied(g, `update control.api_keys set key_hash = 'x'`);
    await denied(g, `update control.api_keys set revoked_at = null`);
    await denied(g, `select secret from control.webhook_subscriptions`);
    await denied(g, `select * from read_models.dead_letters`);
    await denied(g, `insert into control.accounts (id, name) values (gen_random_uuid(), 'x')`);
    // The model fits are a report's now (GET /v1/reports/model-fit); the campaign runs are not read.
    await denied(g, `select * from analytics.campaign_runs`);
  });
});

describe('gateway role: /v1/webhooks', () => {
  const g = SERVICE_ROLES.gateway;
  it('creates, rotates, lists and removes subscriptions and redelivers, with the shared functions, as its role', async () => {
    const gdb = createDb(poolAs(g));
    const sealer = parseWebhookSealKey(defaultSecretsKeyring().webhookSealKeySetting());
    const sub = await createWebhookSubscription(gdb, A, 'https://example.com/g', sealer, ['lift.proven']);
    await rotateWebhookSecret(gdb, sub.id, 60, sealer, new Date(), A);
    expect((await listWebhookSubscriptions(gdb, A, { active: true, id: sub.id }))[0]?.event_types).toEqual([
      'lift.proven',
    ]);
    const deliveryId = randomUUID();
    await t.pool.query(
      `insert into dispatcher.deliveries (delivery_id, account_id, subscription_id, event, source_id, body, status,
         attempts, created_at) values ($1, $2, $3, 'lift.proven', 'x', '{}', 'failed', 4, now())`,
      [deliveryId, A, sub.id],
    );
    expect((await listDeliveries(gdb, sub.id, { accountId: A })).map((d) => d.delivery_id)).toEqual([
      deliveryId,
    ]);
    expect(await redeliver(gdb, { subscriptionId: sub.id, deliveryId, accountId: A })).toEqual([deliveryId]);
    await disableWebhookSubscription(gdb, sub.id, new Date(), A);
    // The dispatcher role's checks below count the one subscription seeded above and no delivery.
    await t.pool.query('delete from dispatcher.deliveries where delivery_id = $1', [deliveryId]);
    await t.pool.query('delete from control.webhook_secrets where subscription_id = $1', [sub.id]);
    await t.pool.query('delete from control.webhook_subscriptions where id = $1', [sub.id]);
  });
  it('never reads a secret (sealed or legacy) nor a delivery body, and rewrites no delivery', async () => {
    await denied(g, 'select ciphertext from control.webhook_secrets');
    await denied(g, 'select wrapped_key from control.webhook_secrets');
    await denied(g, 'select secret from control.webhook_subscriptions');
    await denied(g, 'select body from dispatcher.deliveries');
    await denied(g, `update dispatcher.deliveries set body = 'x'`);
    await denied(g, `update dispatcher.deliveries set attempts = 0`);
    await denied(g, 'delete from dispatcher.delivery_attempts');
    await denied(g, `update control.webhook_subscriptions set url = 'https://evil.example'`);
  });
});

describe('projector role', () => {
  const p = SERVICE_ROLES.projector;
  it('writes the read models, its checkpoints and dead letters', async () => {
    await as(
      p,
      `insert into read_models.projection_checkpoints (projection, topic, partition, last_offset)
                 values ('x', 't', 0, 1)`,
    );
    expect((await as(p, 'select 1 from read_models.dead_letters')).rowCount).toBe(0);
  });
  it("cannot touch the control plane's keys, nor analytics", async () => {
    await denied(p, 'select key_hash from control.api_keys');
    await denied(p, 'select token_hash from control.tiles');
    await denied(p, 'select * from analytics.model_fits');
    await denied(p, 'select * from dispatcher.deliveries');
  });
});

describe('erasure and access requests, each step as its own role', () => {
  it('the gateway queues, the projector destroys the keys, blanks the read models and builds the export', async () => {
    const keyring = loadPrivacyKeyring(t.env);
    const gatewayKeys = new PgSubjectKeyStore(poolAs(SERVICE_ROLES.gateway), keyring);
    const projectorKeys = new PgSubjectKeyStore(poolAs(SERVICE_ROLES.projector), keyring);
    const customer = randomUUID();
    await as(
      SERVICE_ROLES.projector,
      `insert into read_models.customers (account_id, customer_id, external_id, email, name, created_at, updated_at)
       values ($1, $2, 'erase-me', 'erase@example.com', 'Erase Me', now(), now())`,
      [A, customer],
    );
    await t.pool.query(
      `insert into analytics.customer_scores (account_id, customer_id, external_id, churn_risk, lifecycle_state, p_alive,
         expected_purchases, expected_spend, realised_revenue, predicted_value, lifetime_value, is_holdout, model,
         model_params, horizon_days, as_of)
       values ($1, $2, 'erase-me', 0.5, 'Stable', 0.5, 1, 1, 1, 1, 1, false, 'heuristic', '{}', 365, now())`,
      [A, customer],
    );
    const request = { identifiers: { externalId: 'erase-me', email: null, phone: null }, suppress: true };
    const now = new Date();
    const { export: x } = await queueExport(poolAs(SERVICE_ROLES.gateway), gatewayKeys, {
      accountId: A,
      request,
      requestedBy: 'api',
      now,
    });
    const deps = {
      pool: poolAs(SERVICE_ROLES.projector),
      schema: DEFAULT_READ_MODEL_SCHEMA,
      keys: projectorKeys,
      keyring,
    };
    const person = { externalId: null as string | null, email: null, phone: null };
    const { rows: xr } = await t.pool.query<{ external_id_index: string }>(
      'select external_id_index from privacy.person_exports where id = $1',
      [x.id],
    );
    person.externalId = xr[0]!.external_id_index;
    expect(await runExport(deps, { id: x.id, accountId: A, ...person }, () => new Date())).toBe(1);
    // The export read the person's score through the analytics policy granted to the projector.
    const doc = (await openExportDocument(poolAs(SERVICE_ROLES.gateway), keyring, A, x.id, new Date())) as {
      scores: unknown[];
      profile: unknown[];
    };
    expect([doc.profile.length, doc.scores.length]).toEqual([1, 1]);
    const { erasure } = await queueErasure(poolAs(SERVICE_ROLES.gateway), gatewayKeys, {
      accountId: A,
      request,
      requestedBy: 'api',
      now,
    });
    const counters = await runErasure(
      deps,
      { id: erasure.id, accountId: A, suppress: true, ...person },
      () => new Date(),
    );
    expect(counters).toMatchObject({ customers: 1, suppressions: 1 });
    expect((await findErasure(poolAs(SERVICE_ROLES.gateway), A, erasure.id))?.status).toBe('done');
    const { rows } = await t.pool.query(
      'select email, name from read_models.customers where customer_id = $1',
      [customer],
    );
    expect(rows).toEqual([{ email: null, name: null }]);
    // What neither may do: the gateway destroy keys or read an export's rows of the recompute's tables.
    await denied(SERVICE_ROLES.gateway, 'delete from privacy.subject_keys');
    await denied(SERVICE_ROLES.gateway, 'update privacy.erasure_requests set status = $1', ['done']);
    await denied(SERVICE_ROLES.recompute, 'select * from privacy.erasure_requests');
  });
});

describe('the outbound events, each step as its own role', () => {
  it('the recompute records an occurrence once, the dispatcher fans it out, the gateway sees none', async () => {
    const event = {
      accountId: A,
      type: 'sync.completed',
      subject: `task:${randomUUID()}`,
      data: { status: 'done' },
      occurredAt: new Date(),
    };
    const rdb = createDb(poolAs(SERVICE_ROLES.recompute));
    expect(await recordOutboundEvents(rdb, [event])).toBe(1);
    expect(await recordOutboundEvents(rdb, [event])).toBe(0);
    await as(
      SERVICE_ROLES.recompute,
      `select 1 from control.outbound_events where account_id = $1 and event_type = 'sync.completed' and subject = $2`,
      [A, event.subject],
    );
    await denied(SERVICE_ROLES.recompute, 'select data from control.outbound_events');
    await denied(SERVICE_ROLES.recompute, 'update control.outbound_events set fanned_out_at = now()');
    const id = outboundEventId(A, event.type, event.subject);
    await as(
      SERVICE_ROLES.dispatcher,
      'update control.outbound_events set fanned_out_at = now() where event_id = $1',
      [id],
    );
    await denied(SERVICE_ROLES.dispatcher, `update control.outbound_events set data = '{}'`);
    await denied(SERVICE_ROLES.gateway, 'select 1 from control.outbound_events');
    await t.pool.query('delete from control.outbound_events where event_id = $1', [id]);
  });
});

describe('send claims (POST /v1/sends), each step as its own role', () => {
  it('the gateway claims and confirms, the recompute reads and folds; neither rewrites the other’s column', async () => {
    const g = SERVICE_ROLES.gateway;
    const r = SERVICE_ROLES.recompute;
    const sendId = randomUUID();
    await as(
      g,
      `insert into control.send_claims (send_id, account_id, campaign_type, channel, claimed_at, expires_at)
       values ($1, $2, 'win_back', 'email', now(), now() + interval '1 day')`,
      [sendId, A],
    );
    await as(
      g,
      `insert into control.send_claim_pages (account_id, idempotency_key, send_id, held_out, left_out, created_at)
       values ($1, $2, $3, 0, '{}', now())`,
      [A, sendId, sendId],
    );
    await as(
      g,
      `insert into control.send_claim_members (member_id, send_id, account_id, idempotency_key, customer_id, holdout,
         tracking_id, cta_url)
       values (gen_random_uuid(), $1, $2, $3, gen_random_uuid(), false, 'hft_lp', 'https://s.example.com/')`,
      [sendId, A, sendId],
    );
    await as(g, `update control.send_claims set confirmed_at = now(), sent_at = now() where send_id = $1`, [
      sendId,
    ]);
    await denied(g, `update control.send_claims set folded_at = now()`);
    await denied(g, `delete from control.send_claims`);
    await denied(g, `update control.send_claim_members set tracking_id = 'x'`);
    expect(
      (await as(r, 'select 1 from control.send_claim_members where send_id = $1', [sendId])).rowCount,
    ).toBe(1);
    await as(r, `update control.send_claims set folded_at = now() where send_id = $1`, [sendId]);
    await denied(r, `update control.send_claims set confirmed_at = now()`);
    await denied(
      r,
      `insert into control.send_claims (send_id, account_id, campaign_type, channel, claimed_at,
      expires_at) values (gen_random_uuid(), gen_random_uuid(), 'vip', 'sms', now(), now())`,
    );
    await t.pool.query('delete from control.send_claims where send_id = $1', [sendId]);
  });
});

describe('recompute role', () => {
  const r = SERVICE_ROLES.recompute;
  it('reads the read models, writes analytics and sync tasks', async () => {
    expect((await as(r, 'select 1 from read_models.orders')).rowCount).toBe(5);
    await as(
      r,
      `insert into analytics.model_fits (account_id, as_of, model, params, customers, repeat_customers, converged)
                 values ('${A}', now() + interval '1 day', 'heuristic', '{}', 1, 0, true)`,
    );
    await as(
      r,
      `insert into control.sync_tasks (id, account_id, trigger, status, queued_at)
                 values (gen_random_uuid(), '${A}', 'nightly', 'queued', now())`,
    );
  });
  it('cannot write the read models nor read keys or webhook secrets', async () => {
    await denied(r, `delete from read_models.orders`);
    await denied(r, 'select key_hash from control.api_keys');
    await denied(r, 'select secret from control.webhook_subscriptions');
  });
});

describe('dispatcher role', () => {
  const d = SERVICE_ROLES.dispatcher;
  it('reads the subscriptions it delivers to and writes its delivery tables', async () => {
    expect((await as(d, 'select url, secret from control.webhook_subscriptions')).rowCount).toBe(1);
    expect((await as(d, 'select 1 from dispatcher.deliveries')).rowCount).toBe(0);
  });
  it('reads nothing else', async () => {
    await denied(d, 'select key_hash from control.api_keys');
    await denied(d, 'select * from control.accounts');
    await denied(d, 'select * from read_models.orders');
    await denied(d, 'select * from read_models.customers');
    await denied(d, 'select * from analytics.model_fits');
  });
});

// The whole boundary (settings, SET ROLE, COPY, planted objects, revocation) is tests/analyst-boundary.int.test.ts.
describe('analyst role: the accounts granted to its login', () => {
  it('sees nothing as the bare role (no login has grants under its name)', async () => {
    const c = await t.pool.connect();
    try {
      await c.query('begin');
      await c.query(`set local role ${SERVICE_ROLES.analyst}`);
      expect((await countOrders(c)).rows).toEqual([]);
      expect((await c.query('select 1 from analytics.model_fits')).rowCount).toBe(0);
    } finally {
      await c.query('rollback');
      c.release();
    }
  });
  it("sees the granted account's rows only, in read models, views and analytics", async () => {
    await t.pool.query(
      `insert into read_models.pixel_events (account_id, event_id, pixel_key_id, origin, anonymous_id, event_type,
                                           occurred_at, received_at)
       select a, gen_random_uuid(), 'pk', 'https://shop.example', 'anon', 'page_view', now(), now()
         from unnest($1::uuid[]) a`,
      [[A, B]],
    );
    await asAnalyst(async (c) => {
      expect((await countOrders(c)).rows).toEqual([{ account_id: A }, { account_id: A }]);
      const stitched = await c.query<{ account_id: string }>(
        'select account_id from read_models.pixel_events_stitched',
      );
      expect(stitched.rows).toEqual([{ account_id: A }]);
      expect((await c.query('select distinct account_id from analytics.model_fits')).rows).toEqual([
        { account_id: A },
      ]);
    });
  });
  it('cannot read dead letters, checkpoints or the control plane, nor write', async () => {
    for (const q of [
      'select * from read_models.dead_letters',
      'select * from read_models.projection_checkpoints',
      // a partition read directly would skip the parent's row-level security
      'select * from analytics.customer_scores_default',
      'select * from control.accounts',
      'delete from read_models.orders',
    ])
      await expect(asAnalyst((c) => c.query(q))).rejects.toThrow(/permission denied/);
  });
});

describe('operator role', () => {
  it('sees every account', async () => {
    const o = SERVICE_ROLES.operator;
    expect((await as(o, 'select 1 from read_models.orders')).rowCount).toBe(5);
    expect((await as(o, 'select 1 from analytics.model_fits')).rowCount).toBeGreaterThanOrEqual(2);
    expect((await as(o, 'select 1 from control.api_keys')).rowCount).toBe(1);
  });
});

describe('a rebuild switched in keeps every grant and policy', () => {
  it('rebuilds as the operator, then the roles see the new tables as they saw the old ones', async () => {
    const before = await t.pool.query<{ oid: number }>(`select 'read_models.orders'::regclass::oid as oid`);
    const result = await rebuildReadModels(
      { topicPrefix: t.topicPrefix, readSchema: DEFAULT_READ_MODEL_SCHEMA },
      { pool: poolAs(SERVICE_ROLES.operator), kafka: t.kafka, codec: t.codec, logger: silentLogger },
    );
    expect(result.oldSchema).toMatch(/^read_models_old_/);
    const after = await t.pool.query<{ oid: number; owner: string }>(
      `select c.oid, pg_get_userbyid(c.relowner) as owner from pg_class c where c.oid = 'read_models.orders'::regclass`,
    );
    expect(after.rows[0]!.oid).not.toBe(before.rows[0]!.oid);
    expect(after.rows[0]!.owner).toBe(SERVICE_ROLES.projector);
    // The log is empty here: the rebuilt tables start empty; fill them as the live projector would.
    await seedOrders();
    await asAnalyst(async (c) => expect((await countOrders(c)).rowCount).toBe(2));
    expect((await as(SERVICE_ROLES.gateway, 'select 1 from read_models.orders')).rowCount).toBe(5);
    await denied(SERVICE_ROLES.gateway, `delete from read_models.orders`);
    await denied(SERVICE_ROLES.dispatcher, `select 1 from read_models.orders`);
    await asAnalyst(async (c) =>
      expect((await c.query('select 1 from read_models.pixel_events_stitched')).rowCount).toBe(0),
    );
  });
});
