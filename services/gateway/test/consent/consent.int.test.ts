import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InboundKeyring,
  legacyUnsubscribeKeys,
  parseSecretsKeys,
  parseUnsubscribeKeys,
  SecretsKeyring,
  signUnsubscribeToken,
  UnsubscribeKeys,
} from '@holdfast/secrets';
import { sealInboundSecrets, setSmsProvider } from '@holdfast/control-plane';
import type { RunningProjector } from '@holdfast/projections';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { call, newAccount, runProjector, startGateway, type TestGateway } from '@holdfast/testing/services';
import { readTopic } from '../test-support/topic-reader.js';
import { twilioSignature } from '../../src/consent/twilio-signature.js';

let t: TestEnv;
let projector: RunningProjector;
let stack: TestGateway;
const key = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
// The master keyring is the CLI's (it connects the provider); the gateway gets only its own two keys.
const keyring = new SecretsKeyring(parseSecretsKeys(key('k1')));
const unsubscribeKeys = new UnsubscribeKeys(parseUnsubscribeKeys(key('u1')));
const inboundKeys = new InboundKeyring(parseSecretsKeys(key('i1')));
const AUTH_TOKEN = 'inbound-auth-token-0123456789';
const PUBLIC_URL = 'https://hf.example.com';

beforeAll(async () => {
  t = await createTestEnv('consent');
  projector = await runProjector(t);
  stack = await startGateway(t, { config: { publicUrl: PUBLIC_URL, unsubscribeKeys, inboundKeys } });
});
afterAll(async () => {
  await stack?.close();
  await projector?.stop();
  await t?.close();
});

interface Row {
  customer_id: string;
  consent_marketing_email: boolean;
  consent_suppressed: boolean;
  consent_sms: boolean;
}
const customers = async (accountId: string): Promise<Row[]> =>
  (
    await t.pool.query<Row>(
      `select customer_id, consent_marketing_email, consent_suppressed, consent_sms
         from read_models.customers where account_id = $1 order by email`,
      [accountId],
    )
  ).rows;

/** An account with customers posted through the spec's route and folded by the projector. */
async function shopWithCustomers(rows: Record<string, unknown>[]) {
  const a = await newAccount(t);
  const res = await call(stack.url, 'POST', '/ingest/customers', { key: a.key, body: { customers: rows } });
  expect(res.status).toBe(200);
  for (let i = 0; i < 200 && (await customers(a.accountId)).length < rows.length; i++)
    await new Promise((r) => setTimeout(r, 50));
  expect(await customers(a.accountId)).toHaveLength(rows.length);
  return a;
}

const form = async (
  path: string,
  params: Record<string, string>,
  signature?: string,
  ip = '198.51.100.1',
) => {
  // The stack trusts X-Forwarded-For: each test fails signatures from an IP of its own.
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    'x-forwarded-for': ip,
  };
  if (signature !== undefined) headers['x-twilio-signature'] = signature;
  const res = await fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers,
    body: new URLSearchParams(params),
  });
  return {
    status: res.status,
    text: await res.text(),
    type: res.headers.get('content-type'),
    retryAfter: res.headers.get('retry-after'),
  };
};

describe('unsubscribe links', () => {
  it('given a signed link, GET shows a confirmation and changes nothing; the one-click POST suppresses the customer through the log', async () => {
    const a = await shopWithCustomers([
      { external_id: 'U1', email: 'ann@example.com', consent: { marketing_email: true } },
      { external_id: 'U2', email: 'bob@example.com', consent: { marketing_email: true } },
    ]);
    const [ann, bob] = await customers(a.accountId);
    const token = signUnsubscribeToken(unsubscribeKeys, {
      accountId: a.accountId,
      customerId: ann!.customer_id,
      channel: 'email',
    });

    const page = await fetch(`${stack.url}/unsubscribe/${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(await page.text()).toContain('<form method="post">');
    expect((await customers(a.accountId))[0]).toMatchObject({ consent_suppressed: false });

    // RFC 8058: what a mailbox provider sends
    const res = await form(`/unsubscribe/${token}`, { 'List-Unsubscribe': 'One-Click' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('You are unsubscribed');
    // Applied before the answer (read-your-writes), to that customer only.
    expect(await customers(a.accountId)).toEqual([
      { ...ann, consent_suppressed: true },
      { ...bob, consent_suppressed: false },
    ]);
    const { rows } = await t.pool.query(
      `select event_type, customer_id from read_models.customer_events where account_id = $1`,
      [a.accountId],
    );
    expect(rows).toEqual([{ event_type: 'unsubscribe', customer_id: ann!.customer_id }]);

    // The change is a record of the log (what a replay folds): the projector's own consent event.
    const events = await readTopic(t, 'holdfast.commerce', (es) =>
      es.some((e) => e.type === 'CustomerEventReceived' && e.value.metadata.account_id === a.accountId),
    );
    const record = events.find(
      (e) => e.type === 'CustomerEventReceived' && e.value.metadata.account_id === a.accountId,
    )!;
    expect(JSON.parse(JSON.stringify(record.value))).toMatchObject({
      dedup_key: expect.stringMatching(/^holdfast:unsubscribe:/),
      event: {
        external_id: 'U1',
        email: 'ann@example.com',
        consent: { marketing_email: null, sms: null, suppressed: true, bounced: null },
        event_type: 'unsubscribe',
      },
    });

    // Again: idempotent, nothing more is appended.
    expect((await form(`/unsubscribe/${token}`, { 'List-Unsubscribe': 'One-Click' })).status).toBe(200);
    const again = await t.pool.query(
      `select count(*)::int as n from read_models.customer_events where account_id = $1`,
      [a.accountId],
    );
    expect(again.rows[0]).toEqual({ n: 1 });
  });

  it('given a forged, tampered or foreign token, then 404 and nothing changes', async () => {
    const a = await shopWithCustomers([
      { external_id: 'F1', email: 'f@example.com', consent: { marketing_email: true } },
    ]);
    const [c] = await customers(a.accountId);
    const subject = { accountId: a.accountId, customerId: c!.customer_id, channel: 'email' as const };
    const forged = signUnsubscribeToken(new UnsubscribeKeys(parseUnsubscribeKeys(key('u1'))), subject);
    // Signed as before the upgrade (a key derived from the master key): unless the operator appended
    // its legacy key (`holdfast secrets legacy-unsubscribe-keys`), the gateway cannot verify it.
    const beforeUpgrade = signUnsubscribeToken(
      new UnsubscribeKeys(legacyUnsubscribeKeys(keyring, ['k1'])),
      subject,
    );
    const real = signUnsubscribeToken(unsubscribeKeys, subject);
    const tampered = `${real.slice(0, -3)}${real.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    for (const token of [forged, beforeUpgrade, tampered, 'not-a-token', randomUUID()]) {
      expect((await fetch(`${stack.url}/unsubscribe/${token}`)).status).toBe(404);
      expect((await form(`/unsubscribe/${token}`, { 'List-Unsubscribe': 'One-Click' })).status).toBe(404);
    }
    expect((await customers(a.accountId))[0]).toMatchObject({ consent_suppressed: false });
  });
});

describe('inbound SMS STOP webhook (Twilio-style)', () => {
  const REFUSED = { status: 403, text: '{"detail":"Invalid request signature"}' };
  const twilio = {
    provider: 'twilio',
    baseUrl: 'https://api.twilio.com',
    accountSid: 'AC1',
    from: '+15550109999',
  };
  const signer = (accountId: string, token = AUTH_TOKEN) => {
    const path = `/providers/sms/${accountId}/inbound`;
    return {
      path,
      sign: (p: Record<string, string>, t = token) =>
        twilioSignature(t, `${PUBLIC_URL}${path}`, Object.entries(p)),
    };
  };

  it('given a signed STOP from a customer phone, then SMS consent is withdrawn through the log; other messages and bad signatures change nothing', async () => {
    const a = await shopWithCustomers([
      { external_id: 'S1', email: 's1@example.com', phone: '+12025550143', consent: { sms: true } },
      { external_id: 'S2', email: 's2@example.com', phone: '+12025550187', consent: { sms: true } },
    ]);
    await setSmsProvider(t.db, a.accountId, twilio, AUTH_TOKEN, keyring, inboundKeys);
    // The gateway's copy: sealed under the inbound key, not the master key.
    const copy = await t.db
      .selectFrom('control.provider_inbound_secrets')
      .select('key_id')
      .where('account_id', '=', a.accountId)
      .execute();
    expect(copy).toEqual([{ key_id: 'i1' }]);
    const { path, sign } = signer(a.accountId);
    const hello = {
      MessageSid: 'SM0',
      From: '+12025550143',
      To: '+15550109999',
      Body: 'Hello, stop by later?',
    };
    const stop = { MessageSid: 'SM1', From: '+12025550143', To: '+15550109999', Body: ' Stop ' };

    expect((await form(path, stop)).status).toBe(403);
    expect((await form(path, stop, sign(stop, 'wrong-token'))).status).toBe(403);
    expect((await form(path, { ...stop, From: '+12025550187' }, sign(stop))).status).toBe(403);
    const chat = await form(path, hello, sign(hello));
    expect([chat.status, chat.type]).toEqual([200, 'text/xml; charset=utf-8']);
    expect((await customers(a.accountId)).map((c) => c.consent_sms)).toEqual([true, true]);

    const res = await form(path, stop, sign(stop));
    expect(res.status).toBe(200);
    expect(res.text).toBe('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
    expect((await customers(a.accountId)).map((c) => c.consent_sms)).toEqual([false, true]);
    const { rows } = await t.pool.query(
      `select event_type, dedup_key from read_models.customer_events where account_id = $1`,
      [a.accountId],
    );
    expect(rows).toEqual([
      { event_type: 'sms_stop', dedup_key: expect.stringMatching(/^holdfast:sms-stop:SM1:/) },
    ]);
  });

  it('given no account, an account without SMS provider, a token not sealed for the gateway yet, or a bad signature, then every answer is the same 403; after `secrets rewrap` sealed it, the provider is heard', async () => {
    const withProvider = await newAccount(t);
    await setSmsProvider(t.db, withProvider.accountId, twilio, AUTH_TOKEN, keyring, inboundKeys);
    const withoutProvider = await newAccount(t);
    // Connected before this release: the master-key-sealed secret only.
    const older = await newAccount(t);
    await setSmsProvider(t.db, older.accountId, twilio, AUTH_TOKEN, keyring, inboundKeys);
    await t.db
      .deleteFrom('control.provider_inbound_secrets')
      .where('account_id', '=', older.accountId)
      .execute();
    const hello = { MessageSid: 'SM9', From: '+12025550143', To: '+15550109999', Body: 'hi' };
    const ip = '198.51.100.2';
    const answers = [];
    for (const accountId of [randomUUID(), withoutProvider.accountId, older.accountId]) {
      const { path, sign } = signer(accountId);
      answers.push(await form(path, hello, sign(hello), ip));
    }
    const known = signer(withProvider.accountId);
    answers.push(await form(known.path, hello, known.sign(hello, 'wrong-token'), ip));
    answers.push(await form(known.path, hello, undefined, ip));
    answers.push(await form('/providers/sms/not-an-id/inbound', hello, 'x', ip));
    expect(answers.map((r) => ({ status: r.status, text: r.text }))).toEqual(Array(6).fill(REFUSED));
    expect(new Set(answers.map((r) => r.type))).toEqual(new Set(['application/json; charset=utf-8']));
    expect((await form(known.path, hello, known.sign(hello), ip)).status).toBe(200);

    // The operator's migration: the CLI (master and inbound keys) seals what is missing, once.
    expect(await sealInboundSecrets(t.db, keyring, inboundKeys)).toMatchObject({ sealed: 1 });
    expect(await sealInboundSecrets(t.db, keyring, inboundKeys)).toMatchObject({ sealed: 0 });
    const o = signer(older.accountId);
    expect((await form(o.path, hello, o.sign(hello), ip)).status).toBe(200);
  });

  it('given more than 30 failed signatures a minute from one IP, then 429 with Retry-After; another IP is still answered', async () => {
    const a = await newAccount(t);
    await setSmsProvider(t.db, a.accountId, twilio, AUTH_TOKEN, keyring, inboundKeys);
    const { path, sign } = signer(a.accountId);
    const p = { MessageSid: 'SM5', From: '+12025550143', To: '+15550109999', Body: 'hi' };
    const ip = '198.51.100.3';
    const statuses: number[] = [];
    let last = await form(path, p, 'bad', ip);
    statuses.push(last.status);
    for (let i = 0; i < 35 && last.status !== 429; i++) {
      last = await form(path, p, sign(p, 'wrong-token'), ip);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array<number>(30).fill(403), 429]);
    expect(Number(last.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(last.retryAfter)).toBeLessThanOrEqual(60);
    expect(JSON.parse(last.text)).toEqual({
      detail: `Rate limit exceeded, try again in about ${last.retryAfter} seconds`,
    });
    expect((await form(path, p, sign(p), '198.51.100.4')).status).toBe(200);
  });

  it('given an account whose webhook was called 600 times this minute, then 429 with Retry-After before any lookup, even signed', async () => {
    const a = await newAccount(t);
    await setSmsProvider(t.db, a.accountId, twilio, AUTH_TOKEN, keyring, inboundKeys);
    const { path, sign } = signer(a.accountId);
    const p = { MessageSid: 'SM6', From: '+12025550143', To: '+15550109999', Body: 'hi' };
    expect((await form(path, p, sign(p), '198.51.100.5')).status).toBe(200);
    // The shared counter of this account (every gateway process counts into it), filled to the
    // limit for this minute and the next (so the test cannot straddle a window).
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    for (const start of [minute, minute + 60_000])
      await t.pool.query(
        `insert into control.rate_counters (bucket, window_start, count) values ($1, $2, 600)
         on conflict (bucket, window_start) do update set count = 600`,
        [`req:sms-inbound:${a.accountId}`, new Date(start)],
      );
    const refused = await form(path, p, sign(p), '198.51.100.6');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
  });
});

describe('consent the service recorded wins over a stale upsert (mergeConsent)', () => {
  /** Re-posts customers through the spec's route and waits until the projector folded them (by name). */
  const upsert = async (a: { accountId: string; key: string }, rows: Record<string, unknown>[]) => {
    const marker = `n-${randomUUID().slice(0, 8)}`;
    const res = await call(stack.url, 'POST', '/ingest/customers', {
      key: a.key,
      body: { customers: rows.map((r) => ({ ...r, name: marker })) },
    });
    expect(res.status).toBe(200);
    const folded = async () =>
      (
        await t.pool.query<{ n: number }>(
          `select count(*)::int as n from read_models.customers where account_id = $1 and name = $2`,
          [a.accountId, marker],
        )
      ).rows[0]!.n;
    for (let i = 0; i < 200 && (await folded()) < rows.length; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await folded()).toBe(rows.length);
  };

  it('given a one-click unsubscribe, when the client re-posts suppressed false from a stale list, then still suppressed', async () => {
    const ann = { external_id: 'R1', email: 'ann@example.com', consent: { marketing_email: true } };
    const a = await shopWithCustomers([ann]);
    const [row] = await customers(a.accountId);
    const token = signUnsubscribeToken(unsubscribeKeys, {
      accountId: a.accountId,
      customerId: row!.customer_id,
      channel: 'email',
    });
    expect((await form(`/unsubscribe/${token}`, { 'List-Unsubscribe': 'One-Click' })).status).toBe(200);
    await upsert(a, [{ ...ann, consent: { marketing_email: true, suppressed: false } }]);
    expect(await customers(a.accountId)).toMatchObject([{ consent_suppressed: true }]);
  });

  it('given a STOP, when the client re-posts sms true, then still no SMS; a START reply restores it', async () => {
    const sam = {
      external_id: 'R2',
      email: 'sam@example.com',
      phone: '+12025550166',
      consent: { sms: true },
    };
    const a = await shopWithCustomers([sam]);
    await setSmsProvider(
      t.db,
      a.accountId,
      { provider: 'twilio', baseUrl: 'https://api.twilio.com', accountSid: 'AC1', from: '+15550109999' },
      AUTH_TOKEN,
      keyring,
      inboundKeys,
    );
    const path = `/providers/sms/${a.accountId}/inbound`;
    const reply = async (sid: string, body: string) => {
      const p = { MessageSid: sid, From: sam.phone, To: '+15550109999', Body: body };
      expect(
        (await form(path, p, twilioSignature(AUTH_TOKEN, `${PUBLIC_URL}${path}`, Object.entries(p)))).status,
      ).toBe(200);
    };
    await reply('SM10', 'STOP');
    expect(await customers(a.accountId)).toMatchObject([{ consent_sms: false }]);
    await upsert(a, [sam]);
    expect(await customers(a.accountId)).toMatchObject([{ consent_sms: false }]);
    // A second STOP appends nothing (already recorded); START reverses it.
    await reply('SM11', 'stop');
    await reply('SM12', 'START');
    expect(await customers(a.accountId)).toMatchObject([{ consent_sms: true }]);
    const { rows } = await t.pool.query(
      `select event_type from read_models.customer_events where account_id = $1 order by received_at`,
      [a.accountId],
    );
    expect(rows.map((r: { event_type: string }) => r.event_type)).toEqual(['sms_stop', 'sms_start']);
  });
});
