// Personal data never reaches a log line: every service runs as a real process at LOG_LEVEL=debug,
// known personal values go through every public entry point (orders, customers, the custom-api and
// zero-party webhooks, the pixel, unsubscribe links, failing requests), and none of them may appear in
// any service's stdout or stderr.
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTile, createAccount, createPixelKey, mintApiKey } from '@holdfast/control-plane';
import { loadUnsubscribeKeys, signUnsubscribeToken } from '@holdfast/secrets';
import { createTestEnv, spawnTs, type TestEnv } from '@holdfast/testing';

const tag = randomUUID().slice(0, 8);
/** Distinctive values: any of them in a log line is a leak. */
const PERSONAL = {
  email: `zelda.quartz.${tag}@example.org`,
  phone: '+15125559437',
  name: `Zelda Quartzmoor ${tag}`,
  street: `742 Evergreen Quartz Terrace ${tag}`,
  city: `Quartzville${tag}`,
  zip: '73301',
  forgedToken: `v1.Zm9yZ2VkLXF1YXJ0ei0${tag}.c2lnbmF0dXJlLXF1YXJ0eg`,
};

let t: TestEnv;
const children: Record<string, ChildProcess> = {};
const output: Record<string, string[]> = {};
let api = '';
/** The real unsubscribe token of the customer (signed with the services' keyring): must not be logged either. */
let realToken = '';

function start(name: string, entry: string, env: Record<string, string>): ChildProcess {
  const child = spawnTs(entry, { ...t.env, PORT: '0', LOG_LEVEL: 'debug', ...env });
  output[name] = [];
  // Read, not left in the pipe: a child whose pipe fills blocks on its next log line.
  child.stdout!.on('data', (d: Buffer) => output[name]!.push(d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => output[name]!.push(d.toString('utf8')));
  children[name] = child;
  return child;
}

const logOf = (name: string) => output[name]!.join('');

// Four tsx processes start on a busy machine in 20 to 60 s: the waits are generous, the test itself is not.
async function until<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined && ok(v)) return v;
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}; the services' last lines:\n` +
          Object.keys(output)
            .map((n) => `${n}: ${logOf(n).slice(-1500)}`)
            .join('\n'),
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function send(
  method: string,
  path: string,
  o: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: {
      ...(o.key ? { authorization: `Bearer ${o.key}` } : {}),
      ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...o.headers,
    },
    body: o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body),
  });
  const text = await res.text();
  return { status: res.status, text };
}

beforeAll(async () => {
  t = await createTestEnv('logprivacy');
  // The projector first: it creates the read models the others wait for.
  start('projector', 'services/projector/src/main.ts', {});
  await until(
    'the projector started',
    () => Promise.resolve(logOf('projector')),
    (l) => l.includes('"projector_started"'),
  );
  const gateway = start('gateway', 'services/gateway/src/main.ts', {
    HOST: '127.0.0.1',
    HOLDFAST_OPS_HOST: '127.0.0.1',
    PRODUCER_POOL_SIZE: '1',
  });
  start('recompute', 'services/recompute/src/main.ts', {});
  start('dispatcher', 'services/dispatcher/src/main.ts', {});
  api = await until(
    'the gateway listening',
    () => Promise.resolve(/gateway listening on (http:\/\/[\d.]+:\d+)/.exec(logOf('gateway'))?.[1]),
    (u) => u !== undefined,
  ).then((u) => u!);
  expect(gateway.exitCode).toBeNull();
}, 200_000);

afterAll(async () => {
  for (const child of Object.values(children)) child.kill('SIGKILL');
  await t?.close();
});

describe('log privacy', () => {
  it('no service logs an email, phone, name, street, city or unsubscribe token it was sent', async () => {
    const { id: accountId } = await createAccount(t.db, { name: 'Quartz Shop' });
    const { key } = await mintApiKey(t.db, accountId, 'ingest_live');
    await connectTile(t.db, accountId, 'custom_integration');
    const zeroParty = await connectTile(t.db, accountId, 'zero_party');
    const pixel = await createPixelKey(t.db, accountId, ['https://shop.example.com']);

    const customer = {
      customer_id: `C-${tag}`,
      email: PERSONAL.email,
      phone: PERSONAL.phone,
      name: PERSONAL.name,
      address: { line1: PERSONAL.street, city: PERSONAL.city, zip: PERSONAL.zip },
    };
    const answers = [
      await send('POST', '/ingest/customers', { key, body: { customers: [customer] } }),
      await send('POST', '/ingest/orders', {
        key,
        body: {
          orders: [
            {
              order_id: `O-${tag}`,
              customer_id: customer.customer_id,
              order_date: '2026-01-02T10:00:00Z',
              order_amount: 12.5,
              product_name: 'Tea',
              email: PERSONAL.email,
              phone: PERSONAL.phone,
              customer_name: PERSONAL.name,
              shipping_city: PERSONAL.city,
              shipping_zip: PERSONAL.zip,
            },
          ],
        },
      }),
      await send('POST', '/webhooks/custom-api', {
        key,
        body: {
          external_id: customer.customer_id,
          email: PERSONAL.email,
          phone: PERSONAL.phone,
          event_type: 'signup',
        },
      }),
      await send('POST', `/webhooks/zero-party?account_id=${accountId}&token=${zeroParty.token}`, {
        body: {
          email: PERSONAL.email,
          customer_id: customer.customer_id,
          attributes: { name: PERSONAL.name },
        },
      }),
      await send('POST', '/pixel/collect', {
        headers: { origin: 'https://shop.example.com', 'x-forwarded-for': '203.0.113.9' },
        body: {
          key: pixel.key,
          events: [
            {
              event_id: randomUUID(),
              event_type: 'page_view',
              occurred_at: new Date().toISOString(),
              anonymous_id: `anon-${tag}`,
              consent_state: 'granted',
              url_path: `/account/${PERSONAL.email}`,
              raw_props: { email: PERSONAL.email, street: PERSONAL.street },
            },
          ],
        },
      }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 204]);
    const customerId = (JSON.parse(answers[2]!.text) as { customer_id: string }).customer_id;
    realToken = signUnsubscribeToken(loadUnsubscribeKeys(process.env), {
      accountId,
      customerId,
      channel: 'email',
    });

    const failures = [
      // A forged token (404), the real one (its page, then the one-click POST), a row rejected for its
      // values (200 with the row's error), a wrong key (401), personal data in an unknown path and a
      // query (404), a body that is not JSON (422).
      await send('GET', `/unsubscribe/${PERSONAL.forgedToken}`),
      await send('GET', `/unsubscribe/${realToken}`),
      await send('POST', `/unsubscribe/${realToken}`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      }),
      await send('POST', '/ingest/customers', {
        key,
        body: {
          customers: [{ ...customer, email: `${PERSONAL.email} not an email`, extra: PERSONAL.street }],
        },
      }),
      await send('POST', '/ingest/orders', {
        key: `tk_live_${tag}`,
        body: { orders: [{ email: PERSONAL.email }] },
      }),
      await send('GET', `/ingest/customers/${PERSONAL.email}?phone=${encodeURIComponent(PERSONAL.phone)}`, {
        key,
      }),
      await send('POST', '/ingest/orders', { key, body: `{"orders": [{"email": "${PERSONAL.email}"` }),
    ];
    expect(failures.map((f) => f.status)).toEqual([404, 200, 200, 200, 401, 404, 422]);

    // The records went all the way through: the projector applied them (and logged at debug meanwhile).
    await until(
      'the projector to apply the customer, the order and the pixel event',
      async () => {
        const { rows } = await t.pool.query<{ n: number }>(
          `select (select count(*) from read_models.orders where account_id = $1)::int
                + (select count(*) from read_models.pixel_events where account_id = $1)::int
                + (select count(*) from read_models.customers where account_id = $1 and consent_suppressed)::int as n`,
          [accountId],
        );
        return rows[0]!.n;
      },
      (n) => n === 3,
    );
    // A moment for the last lines (access log at close, consumers' debug lines) to be written.
    await new Promise((r) => setTimeout(r, 1_500));

    for (const name of Object.keys(output)) {
      const log = logOf(name);
      // Each service did log (at debug): an empty log would prove nothing.
      expect(log.length, `${name} wrote nothing`).toBeGreaterThan(0);
      for (const value of [...Object.values(PERSONAL), realToken, encodeURIComponent(PERSONAL.email)])
        expect(log.includes(value), `${name} logged "${value}"`).toBe(false);
    }
    // The gateway logged the requests, by template: the unsubscribe calls among them.
    expect(logOf('gateway')).toContain('"route":"/unsubscribe/:token"');
    // LOG_LEVEL=debug took: the projector wrote its per-chunk debug lines.
    expect(logOf('projector')).toMatch(/"level":20,[^\n]*"event":"chunk_applied"/);
  });
});
