import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANALYST_POLICY, migrateToLatest, SERVICE_ROLES } from '@holdfast/postgres';
import { analystLoginFacts, grantAnalystAccount, revokeAnalystAccount } from '@holdfast/control-plane';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { migrateAnalytics, migrateCampaigns, migrateRecompute } from '@holdfast/migrations';
import { createTestEnv, type TestEnv } from '@holdfast/testing';

// The analysts' tenant boundary (docs/security.md, "The analyst boundary"): each analyst connects as
// a login role of their own, and row-level security shows the accounts granted to that login
// (control.analyst_grants, keyed on session_user). Every test here connects as a real login and
// tries a way around it. Roles are cluster-wide: the logins get names unique to this run.
let t: TestEnv;
const run = randomBytes(3).toString('hex');
const ALICE = `hf_an_${run}_alice`; // granted A
const BOB = `hf_an_${run}_bob`; // granted B and C
const NOBODY = `hf_an_${run}_nobody`; // a member of holdfast_analyst, no grant
const A = randomUUID();
const B = randomUUID();
const C = randomUUID();
const clients: pg.Client[] = [];

/** A session of its own, logged in as `login` (trust authentication locally, so no password). */
async function login(name: string): Promise<pg.Client> {
  const url = new URL(t.databaseUrl);
  url.username = name;
  url.password = '';
  const c = new pg.Client({ connectionString: url.toString() });
  await c.connect();
  clients.push(c);
  return c;
}

/** The distinct account ids `sql` returns, sorted. */
async function accountsIn(c: pg.Client, sql: string): Promise<string[]> {
  const { rows } = await c.query<{ account_id: string }>(
    `select distinct account_id::text from (${sql}) q order by 1`,
  );
  return rows.map((r) => r.account_id);
}

const sorted = (...ids: string[]) => [...ids].sort();

/** The relations checked in every test: tables, a partitioned table, views. */
const RELATIONS = [
  'select account_id from read_models.orders',
  'select account_id from read_models.customers',
  'select account_id from analytics.customer_scores',
  'select account_id from analytics.model_fits',
  'select account_id from read_models.pixel_events_stitched',
  'select account_id from read_models.orders_unconverted',
];

async function seed(): Promise<void> {
  for (const id of [A, B, C]) {
    await t.pool.query(`insert into control.accounts (id, name) values ($1, $2)`, [
      id,
      `shop ${id.slice(0, 4)}`,
    ]);
    await t.pool.query(
      `insert into read_models.orders (account_id, order_id, customer_id, order_date, order_amount, product_name,
                                       first_seen_at, updated_at)
       select $1, 'o-' || i, gen_random_uuid(), now(), 10, 'tea', now(), now() from generate_series(1, 3) i`,
      [id],
    );
    await t.pool.query(
      `insert into read_models.customers (account_id, customer_id, created_at, updated_at)
       values ($1, gen_random_uuid(), now(), now())`,
      [id],
    );
    await t.pool.query(
      `insert into read_models.pixel_events (account_id, event_id, pixel_key_id, origin, anonymous_id, event_type,
                                             occurred_at, received_at)
       values ($1, gen_random_uuid(), 'pk', 'https://shop.example', 'anon', 'page_view', now(), now())`,
      [id],
    );
    await t.pool.query(
      `insert into analytics.model_fits (account_id, as_of, model, params, customers, repeat_customers, converged)
       values ($1, now(), 'heuristic', '{}', 1, 0, true)`,
      [id],
    );
    await t.pool.query(
      `insert into analytics.customer_scores (account_id, customer_id, churn_risk, lifecycle_state, p_alive,
         expected_purchases, expected_spend, realised_revenue, predicted_value, lifetime_value, is_holdout,
         model, model_params, horizon_days, as_of)
       values ($1, gen_random_uuid(), 0.5, 'Stable', 0.5, 1, 10, 10, 10, 20, false, 'heuristic', '{}', 90, now())`,
      [id],
    );
  }
}

beforeAll(async () => {
  t = await createTestEnv('analyst-boundary');
  const db = t.db as Kysely<unknown>;
  await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
  await migrateAnalytics(db);
  await migrateCampaigns(db);
  await migrateRecompute(db);
  for (const name of [ALICE, BOB, NOBODY]) await t.pool.query(`create role "${name}" login`);
  await t.pool.query(`grant ${SERVICE_ROLES.analyst} to "${NOBODY}"`);
  await seed();
  await grantAnalystAccount(t.db, ALICE, A);
  await grantAnalystAccount(t.db, BOB, B);
  await grantAnalystAccount(t.db, BOB, C);
});

afterAll(async () => {
  for (const c of clients) await c.end().catch(() => {});
  await t?.close();
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  for (const name of [ALICE, BOB, NOBODY]) await admin.query(`drop role if exists "${name}"`);
  await admin.end();
});

describe('each login sees exactly the accounts granted to it', () => {
  it.each(RELATIONS)('%s', async (sql) => {
    expect(await accountsIn(await login(ALICE), sql)).toEqual([A]);
    expect(await accountsIn(await login(BOB), sql)).toEqual(sorted(B, C));
    expect(await accountsIn(await login(NOBODY), sql)).toEqual([]);
  });

  it('reads its own grants only, and cannot write them', async () => {
    const alice = await login(ALICE);
    const { rows } = await alice.query<{ login: string; account_id: string }>(
      'select login, account_id from control.analyst_grants',
    );
    expect(rows).toEqual([{ login: ALICE, account_id: A }]);
    for (const sql of [
      `insert into control.analyst_grants (login, account_id) values ('${ALICE}', '${B}')`,
      `update control.analyst_grants set account_id = '${B}'`,
      `update control.analyst_grants set login = '${BOB}'`,
      `delete from control.analyst_grants`,
    ])
      await expect(alice.query(sql)).rejects.toThrow(/permission denied for table analyst_grants/);
    await expect(alice.query('select * from control.accounts')).rejects.toThrow(/permission denied/);
  });
});

describe('what the session chooses changes nothing', () => {
  it('ignores holdfast.account_id and any other custom setting', async () => {
    const alice = await login(ALICE);
    await alice.query(`set holdfast.account_id = '${B}'`);
    await alice.query(`select set_config('holdfast.login', $1, false)`, [BOB]);
    await alice.query(`set application_name = '${BOB}'`);
    for (const sql of RELATIONS) expect(await accountsIn(alice, sql)).toEqual([A]);
  });

  it('refuses SET ROLE to another analyst login or a service role, and SET SESSION AUTHORIZATION', async () => {
    const alice = await login(ALICE);
    for (const role of [
      BOB,
      NOBODY,
      ...Object.values(SERVICE_ROLES).filter((r) => r !== SERVICE_ROLES.analyst),
    ])
      await expect(alice.query(`set role "${role}"`)).rejects.toThrow(/permission denied to set role/);
    await expect(alice.query(`set session authorization "${BOB}"`)).rejects.toThrow(/permission denied/);
    // SET ROLE to the analyst role itself is allowed (a member) and changes current_user, not session_user.
    await alice.query(`set role ${SERVICE_ROLES.analyst}`);
    const who = await alice.query<{ cu: string; su: string }>(
      'select current_user as cu, session_user as su',
    );
    expect(who.rows[0]).toEqual({ cu: SERVICE_ROLES.analyst, su: ALICE });
    expect(await accountsIn(alice, RELATIONS[0]!)).toEqual([A]);
  });

  it('the logins are members of holdfast_analyst only', async () => {
    for (const name of [ALICE, BOB, NOBODY])
      expect((await analystLoginFacts(t.db, name)).memberOf).toEqual([SERVICE_ROLES.analyst]);
  });
});

describe('no way to plant an object that reads past the policy', () => {
  it('has CREATE on no schema and not on the database', async () => {
    const alice = await login(ALICE);
    const { rows } = await alice.query<{ nspname: string }>(
      `select nspname from pg_namespace
        where has_schema_privilege(oid, 'CREATE') and nspname not like 'pg\\_temp\\_%' and nspname not like 'pg\\_toast\\_temp\\_%'`,
    );
    expect(rows).toEqual([]);
    await expect(alice.query(`create schema mine`)).rejects.toThrow(/permission denied for database/);
    await expect(
      alice.query(`create view public.all_orders as select * from read_models.orders`),
    ).rejects.toThrow(/permission denied for schema public/);
    await expect(
      alice.query(`create function public.peek() returns setof read_models.orders language sql
                   security definer as 'select * from read_models.orders'`),
    ).rejects.toThrow(/permission denied for schema public/);
  });

  it('a temporary view or function runs as the login and sees its accounts only', async () => {
    const alice = await login(ALICE);
    await alice.query(`create temp view mine as select * from read_models.orders`);
    await alice.query(
      `create function pg_temp.everything() returns setof read_models.orders language sql
        as 'select * from read_models.orders'`,
    );
    expect(await accountsIn(alice, 'select account_id from mine')).toEqual([A]);
    expect(await accountsIn(alice, 'select account_id from pg_temp.everything()')).toEqual([A]);
  });

  it('a leaky function in the WHERE clause sees granted rows only (the policy is applied first)', async () => {
    const alice = await login(ALICE);
    await alice.query(
      `create function pg_temp.leak(a uuid) returns boolean language plpgsql cost 0.0001
        as $$ begin raise notice 'saw %', a; return true; end $$`,
    );
    const seen = new Set<string>();
    alice.on('notice', (n) => seen.add(n.message?.replace('saw ', '') ?? ''));
    await alice.query('select 1 from read_models.orders where pg_temp.leak(account_id)');
    expect([...seen]).toEqual([A]);
  });
});

describe('the planner statistics', () => {
  it("pg_stats hides the account-keyed tables' values from a login subject to their policy", async () => {
    await t.pool.query('analyze read_models.orders, read_models.customers');
    const count = `select count(*)::int as n from pg_stats where schemaname = 'read_models' and tablename = 'orders'`;
    expect((await t.pool.query<{ n: number }>(count)).rows[0]!.n).toBeGreaterThan(0);
    expect((await (await login(ALICE)).query<{ n: number }>(count)).rows[0]!.n).toBe(0);
  });
});

describe('COPY', () => {
  const copied = async (c: pg.Client, sql: string): Promise<string[]> => {
    let text = '';
    const stream = c.query(copyTo(sql));
    for await (const chunk of stream) text += (chunk as Buffer).toString();
    return [
      ...new Set(
        text
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\t')[0]!),
      ),
    ].sort();
  };

  it('COPY (select …) TO STDOUT and COPY table TO STDOUT return granted rows only', async () => {
    const bob = await login(BOB);
    expect(await copied(bob, 'copy (select account_id from read_models.orders) to stdout')).toEqual(
      sorted(B, C),
    );
    expect(await copied(bob, 'copy read_models.orders (account_id) to stdout')).toEqual(sorted(B, C));
    // A partitioned parent under RLS is copied as `select … from only parent`: no rows at all here,
    // and never another account's.
    const parent = await copied(bob, 'copy analytics.customer_scores (account_id) to stdout');
    expect(parent.filter((id) => id !== B && id !== C)).toEqual([]);
    expect(await copied(bob, 'copy (select account_id from analytics.customer_scores) to stdout')).toEqual(
      sorted(B, C),
    );
    await expect(copied(bob, `copy read_models.orders from stdin`)).rejects.toThrow(/permission denied/);
  });
});

describe('grants and revocations', () => {
  it('a revoked grant takes effect at the next query of an open session', async () => {
    const bob = await login(BOB);
    expect(await accountsIn(bob, RELATIONS[0]!)).toEqual(sorted(B, C));
    await bob.query('begin isolation level read committed');
    await revokeAnalystAccount(t.db, BOB, C);
    expect(await accountsIn(bob, RELATIONS[0]!)).toEqual([B]);
    await bob.query('commit');
    await grantAnalystAccount(t.db, BOB, C);
    expect(await accountsIn(bob, RELATIONS[0]!)).toEqual(sorted(B, C));
  });

  it('refuses a login that is a member of a service role, and a missing one', async () => {
    const rogue = `hf_an_${run}_rogue`;
    await t.pool.query(`create role "${rogue}" login in role ${SERVICE_ROLES.gateway}`);
    try {
      await expect(grantAnalystAccount(t.db, rogue, A)).rejects.toThrow(
        `"${rogue}" is a member of ${SERVICE_ROLES.gateway}: an analyst login may be a member of holdfast_analyst only`,
      );
    } finally {
      await t.pool.query(`drop role "${rogue}"`);
    }
    await expect(grantAnalystAccount(t.db, `hf_an_${run}_ghost`, A)).rejects.toThrow(/^no role "/);
  });

  it('the operator still sees every account', async () => {
    const operator = await login(SERVICE_ROLES.operator);
    for (const sql of RELATIONS) expect(await accountsIn(operator, sql)).toEqual(sorted(A, B, C));
  });
});

describe('every relation the analyst can read is behind the boundary', () => {
  it('has RLS with the login-keyed policy only (tables) or security_invoker (views); no setting anywhere', async () => {
    // A policy left from the setting-keyed release would add to the new one (permissive policies OR):
    // a re-run of the schema code drops it.
    await t.pool.query(
      `create policy holdfast_analyst_one_account on read_models.customers for select to ${SERVICE_ROLES.analyst}
         using (account_id = nullif(current_setting('holdfast.account_id', true), '')::uuid)`,
    );
    await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
    await migrateToLatest(t.db as Kysely<unknown>);
    const { rows } = await t.pool.query<{
      rel: string;
      kind: string;
      keyed: boolean;
      rls: boolean;
      invoker: boolean;
      policies: string[];
      quals: string[];
    }>(
      `select n.nspname || '.' || c.relname as rel, c.relkind::text as kind,
              exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id'
                       and not a.attisdropped) as keyed,
              c.relrowsecurity as rls,
              coalesce('security_invoker=true' = any (c.reloptions), false) as invoker,
              array(select p.policyname::text from pg_policies p
                     where p.schemaname = n.nspname and p.tablename = c.relname
                       and '${SERVICE_ROLES.analyst}' = any (p.roles) order by 1) as policies,
              array(select p.qual from pg_policies p
                     where p.schemaname = n.nspname and p.tablename = c.relname
                       and '${SERVICE_ROLES.analyst}' = any (p.roles)) as quals
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where has_table_privilege('${SERVICE_ROLES.analyst}', c.oid, 'SELECT')
          and n.nspname not in ('pg_catalog', 'information_schema')
        order by 1`,
    );
    const readable = rows.map((r) => r.rel);
    expect(readable).toContain('read_models.orders');
    expect(readable).toContain('analytics.customer_scores');
    expect(readable).not.toContain('analytics.customer_scores_default');
    for (const r of rows) {
      if (r.rel === 'fx.rates') continue; // reference data, no account
      if (r.kind === 'v') {
        expect({ rel: r.rel, invoker: r.invoker }).toEqual({ rel: r.rel, invoker: true });
        continue;
      }
      expect({ rel: r.rel, kind: r.kind, keyed: r.keyed, rls: r.rls }).toEqual({
        rel: r.rel,
        kind: expect.stringMatching(/^[rp]$/) as string,
        keyed: true,
        rls: true,
      });
      if (r.rel === 'control.analyst_grants') {
        expect(r.quals).toEqual(['(login = SESSION_USER)']);
        continue;
      }
      expect({ rel: r.rel, policies: r.policies }).toEqual({ rel: r.rel, policies: [ANALYST_POLICY] });
      expect(r.quals[0]).toContain('SESSION_USER');
      expect(r.quals[0]).toContain('control.analyst_grants');
      expect(r.quals[0]).not.toContain('current_setting');
    }
  });
});
