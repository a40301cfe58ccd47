// npm run bench -- erasure --customers N [--runs R]: how long one erasure takes in an account of N
// customers (2 orders each), by the worker's own function (`runErasure`), on a private database.
// Three paths: by external id found through its subject (customer_subjects, indexed), by email index,
// and by an external id no subject row names (legacy records in clear): then every external id of the
// account is indexed, the one cost that grows with the account.
import { randomUUID } from 'node:crypto';
import { blindIndex, loadPrivacyKeyring, PgSubjectKeyStore } from '@holdfast/privacy';
import { createAccount } from '@holdfast/control-plane';
import { indexPerson, runErasure } from '@holdfast/privacy-requests';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { median, report } from './report.js';
import { benchStack } from './stack.js';

export async function benchErasure(args: Record<string, string>): Promise<void> {
  const customers = Number(args.customers ?? 100_000);
  const runs = Number(args.runs ?? 3);
  const stack = await benchStack(1);
  try {
    const { pool, db } = stack;
    await ensureReadModelSchema(pool, DEFAULT_READ_MODEL_SCHEMA);
    const keyring = loadPrivacyKeyring(process.env);
    const keys = new PgSubjectKeyStore(pool, keyring);
    const { id: accountId } = await createAccount(db, { name: 'bench' });
    const indexKey = await keys.indexKey(accountId);
    // N customers with external id c-i and (fake but well-formed) email indexes; 2 orders each.
    await pool.query(
      `insert into read_models.customers (account_id, customer_id, external_id, email, name, email_index, created_at, updated_at)
       select $1, gen_random_uuid(), 'c-' || i, 'p' || i || '@example.com', 'Person ' || i, 'ix-' || i, now(), now()
         from generate_series(1, $2) i`,
      [accountId, customers],
    );
    await pool.query(
      `insert into read_models.orders (account_id, order_id, customer_id, external_customer_id, order_date, order_amount,
         product_name, email, customer_name, first_seen_at, updated_at)
       select c.account_id, c.external_id || '-' || k, c.customer_id, c.external_id, now(), 10, 'Tea', c.email, c.name, now(), now()
         from read_models.customers c, generate_series(1, 2) k where c.account_id = $1`,
      [accountId],
    );
    // Every customer's subject x:<index of its external id>, as the projector records it.
    const { rows: ids } = await pool.query<{ customer_id: string; external_id: string }>(
      'select customer_id, external_id from read_models.customers where account_id = $1',
      [accountId],
    );
    for (let i = 0; i < ids.length; i += 10_000) {
      const part = ids.slice(i, i + 10_000);
      await pool.query(
        `insert into read_models.customer_subjects (account_id, customer_id, subject_id)
         select $1, unnest($2::uuid[]), unnest($3::text[])`,
        [
          accountId,
          part.map((r) => r.customer_id),
          part.map((r) => `x:${blindIndex(indexKey, 'external_id', r.external_id)}`),
        ],
      );
    }
    await pool.query(
      `analyze read_models.customers; analyze read_models.orders; analyze read_models.customer_subjects`,
    );
    const byExternalId: number[] = [];
    const byEmail: number[] = [];
    const byScan: number[] = [];
    for (let run = 0; run < runs; run++) {
      const target = 1 + Math.floor(((run + 1) * customers) / (runs + 1));
      const viaExternal = indexPerson(indexKey, { externalId: `c-${target}`, email: null, phone: null });
      let t0 = performance.now();
      const c1 = await runErasure(
        { pool, schema: DEFAULT_READ_MODEL_SCHEMA, keys },
        { id: randomUUID(), accountId, suppress: false, ...viaExternal },
        () => new Date(),
      );
      byExternalId.push(performance.now() - t0);
      t0 = performance.now();
      const c2 = await runErasure(
        { pool, schema: DEFAULT_READ_MODEL_SCHEMA, keys },
        {
          id: randomUUID(),
          accountId,
          suppress: false,
          externalId: null,
          email: `ix-${target + 1}`,
          phone: null,
        },
        () => new Date(),
      );
      byEmail.push(performance.now() - t0);
      // A customer no subject names (as one folded from records stored in clear): the scan path.
      await pool.query(
        `delete from read_models.customer_subjects cs using read_models.customers c
          where c.account_id = $1 and c.external_id = $2 and cs.account_id = c.account_id and cs.customer_id = c.customer_id`,
        [accountId, `c-${target + 2}`],
      );
      const viaScan = indexPerson(indexKey, { externalId: `c-${target + 2}`, email: null, phone: null });
      t0 = performance.now();
      const c3 = await runErasure(
        { pool, schema: DEFAULT_READ_MODEL_SCHEMA, keys },
        { id: randomUUID(), accountId, suppress: false, ...viaScan },
        () => new Date(),
      );
      byScan.push(performance.now() - t0);
      for (const c of [c1, c2, c3])
        if (c.customers !== 1 || c.orders !== 2)
          throw new Error(`expected one customer and two orders each: ${JSON.stringify([c1, c2, c3])}`);
      console.error(
        `run ${run + 1}: by external id ${Math.round(byExternalId.at(-1)!)} ms, by email ${Math.round(byEmail.at(-1)!)} ms, by scan ${Math.round(byScan.at(-1)!)} ms`,
      );
    }
    const ext = Math.round(median(byExternalId));
    const email = Math.round(median(byEmail));
    const scan = Math.round(median(byScan));
    report('erasure', { customers, runs, by_external_id_ms: ext, by_email_ms: email, by_scan_ms: scan }, [
      ['customers in the account', customers],
      ['runs (median reported)', runs],
      ['erasure by external id, via its subject (ms)', ext],
      ['erasure by email index (ms)', email],
      ['erasure by an external id no subject names: scan (ms)', scan],
    ]);
  } finally {
    await stack.close();
  }
}
