import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSecretsKeys, SecretsKeyring, setSmsProvider, signUnsubscribeToken } from '@holdfast/db';
import type { RunningProjector } from '@holdfast/projector';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { call, newAccount } from '../test-support/harness.js';
import { readTopic } from '../test-support/topic-reader.js';
import { runProjector, startWebStack, type WebStack } from '../webhooks/testing/web-stack.js';
import { twilioSignature } from './twilio-signature.js';

let t: TestEnv;
let projector: RunningProjector;
let stack: WebStack;
const keyring = new SecretsKeyring(parseSecretsKeys(`k1:${randomBytes(32).toString('base64')}`));
const AUTH_TOKEN = 'inbound-auth-token-0123456789';
const PUBLIC_URL = 'https://hf.example.com';

beforeAll(async () => {
  t = await createTestEnv('consent');
  projector = await runProjector(t);
  stack = await startWebStack(t, { keyring, config: { publicUrl: PUBLIC_URL } });
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

const form = async (path: string, params: Record<string, string>, signature?: string) => {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (signature !== undefined) headers['x-twilio-signature'] = signature;
  const res = await fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers,
    body: new URLSearchParams(params),
  });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
};

describe('unsubscribe links', () => {
  it('given a signed link, GET shows a confirmation and changes nothing; the one-click POST suppresses the customer through the log', async () => {
    const a = await shopWithCustomers([
      { external_id: 'U1', email: 'ann@example.com', consent: { marketing_email: true } },
      { external_id: 'U2', email: 'bob@example.com', consent: { marketing_email: true } },
    ]);
    const [ann, bob] = await customers(a.accountId);
    const token = signUnsubscribeToken(keyring, {
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
    const other = new SecretsKeyring(parseSecretsKeys(`k1:${randomBytes(32).toString('base64')}`));
    const forged = signUnsubscribeToken(other, {
      accountId: a.accountId,
      customerId: c!.customer_id,
      channel: 'email',
    });
    const real = signUnsubscribeToken(keyring, {
      accountId: a.accountId,
      customerId: c!.customer_id,
      channel: 'email',
    });
    const tampered = `${real.slice(0, -3)}${real.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    for (const token of [forged, tampered, 'not-a-token', randomUUID()]) {
      expect((await fetch(`${stack.url}/unsubscribe/${token}`)).status).toBe(404);
      expect((await form(`/unsubscribe/${token}`, { 'List-Unsubscribe': 'One-Click' })).status).toBe(404);
    }
    expect((await customers(a.accountId))[0]).toMatchObject({ consent_suppressed: false });
  });
});

describe('inbound SMS STOP webhook (Twilio-style)', () => {
  it('given a signed STOP from a customer phone, then SMS consent is withdrawn through the log; other messages and bad signatures change nothing', async () => {
    const a = await shopWithCustomers([
      { external_id: 'S1', email: 's1@example.com', phone: '+12025550143', consent: { sms: true } },
      { external_id: 'S2', email: 's2@example.com', phone: '+12025550187', consent: { sms: true } },
    ]);
    await setSmsProvider(
      t.db,
      a.accountId,
      { provider: 'twilio', baseUrl: 'https://api.twilio.com', accountSid: 'AC1', from: '+15550109999' },
      AUTH_TOKEN,
      keyring,
    );
    const path = `/providers/sms/${a.accountId}/inbound`;
    const sign = (p: Record<string, string>, token = AUTH_TOKEN) =>
      twilioSignature(token, `${PUBLIC_URL}${path}`, Object.entries(p));
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

  it('given an account without an SMS provider, or no account, then 404', async () => {
    const a = await newAccount(t);
    const p = { From: '+12025550143', Body: 'STOP' };
    expect((await form(`/providers/sms/${a.accountId}/inbound`, p, 'x')).status).toBe(404);
    expect((await form(`/providers/sms/not-an-id/inbound`, p, 'x')).status).toBe(404);
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
    const token = signUnsubscribeToken(keyring, {
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
