// At most one message per planned send (docs/campaigns.md, "At most once"), on the real stack: real
// PostgreSQL, a real SMTP server (smtp-server, STARTTLS), an HTTP receiver in Twilio's shape. The
// faults are injected at the one point that matters: after the provider accepted a message and before
// its record is written (a markSent that throws; a process that SIGKILLs itself), then the step runs
// again as the task's retry does.
import { randomBytes, randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectProvider, createAccount } from '@holdfast/control-plane';
import { parseSecretsKeys, SecretsKeyring } from '@holdfast/secrets';
import { createOutboundClient } from '@holdfast/platform';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';
import { createTestEnv, spawnTs, type TestEnv } from '@holdfast/testing';
import { runCampaignStep, type CampaignStepDeps } from '../../src/campaigns/campaign-step.js';
import { createSendLedger, type SendLedger } from '../../src/campaigns/send-ledger.js';
import { CaptureAppender } from './test-support/capture-appender.js';
import { startLocalProvider, type LocalProvider } from './test-support/local-provider.js';
import {
  connectRealProviders,
  faultOnMarkSent,
  LOCAL_POLICY,
  SMTP_USER,
  startSmsReceiver,
  startSmtpReceiver,
  type SmsReceiver,
  type SmtpReceiver,
} from './test-support/real-providers.js';
import { insertCustomer, insertOrder, insertScore, prepareCampaignSchemas } from './test-support/seed.js';

const AS_OF = new Date('2025-03-01T02:00:00.000Z');
const NOW = new Date('2025-03-01T03:00:00.000Z');
const KEYS = `k1:${randomBytes(32).toString('base64')}`;
const keyring = new SecretsKeyring(parseSecretsKeys(KEYS));
const PUBLIC_URL = 'https://hf.example.com';
const config = {
  topicPrefix: 'tonce-',
  readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
  publicUrl: PUBLIC_URL,
  testMode: true,
  providerRetryBaseMs: 5,
  providerRetryMaxMs: 20,
};
const SEND = { send: true };

/** How many times each value occurs. */
const tally = (values: readonly string[]): Map<string, number> => {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return m;
};

describe('campaign sends: at most one message per planned send', () => {
  let t: TestEnv;
  let smtp: SmtpReceiver;
  let sms: SmsReceiver;
  let json: LocalProvider;
  let deps: CampaignStepDeps;
  let ledger: SendLedger;

  const rows = async (accountId: string) =>
    (
      await t.pool.query<{
        customer_id: string;
        channel: string;
        status: string;
        tracking_id: string;
        last_error: string | null;
        sent_at: Date | null;
      }>(
        `select customer_id, channel, status, tracking_id, last_error, sent_at from analytics.campaign_assignments
          where account_id = $1 and arm = 'treated' order by customer_id`,
        [accountId],
      )
    ).rows;
  const mailTo = () => smtp.received.map((m) => m.rcptTo[0]!);
  const smsTo = () => sms.forms.map((f) => f.get('To')!);

  /** An account with `emails` email customers and `phones` SMS customers, all due a win-back. */
  const shop = async (emails: number, phones: number, real = true) => {
    const { id } = await createAccount(t.db, { name: 'Tea', storefrontDomain: 'tea.example.com' });
    await t.pool.query(
      `insert into analytics.campaign_type_settings (account_id, campaign_type, enabled, changed_at)
       values ($1, 'win_back', true, now())`,
      [id],
    );
    if (real) await connectRealProviders(t.db, id, smtp, sms, keyring);
    else await connectProvider(t.db, id, 'relay', 'email', json.url);
    const addresses: string[] = [];
    const phoneNumbers: string[] = [];
    for (let i = 0; i < emails; i++) {
      const email = `c${i}-${randomUUID().slice(0, 8)}@example.com`;
      addresses.push(email);
      const c = await insertCustomer(t, id, { email });
      await insertScore(t, id, c, { asOf: AS_OF, lifecycleState: 'Overdue' });
    }
    for (let i = 0; i < phones; i++) {
      const phone = `+1202555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
      if (phoneNumbers.includes(phone)) {
        i--;
        continue;
      }
      phoneNumbers.push(phone);
      const c = await insertCustomer(t, id, { email: null, phone, sms: true });
      await insertScore(t, id, c, { asOf: AS_OF, lifecycleState: 'Lapsed' });
    }
    return { id, addresses, phoneNumbers };
  };

  beforeAll(async () => {
    t = await createTestEnv('atmostonce');
    await prepareCampaignSchemas(t);
    smtp = await startSmtpReceiver(SMTP_USER);
    sms = await startSmsReceiver();
    json = await startLocalProvider('/relay');
    ledger = createSendLedger(t.pool, DEFAULT_READ_MODEL_SCHEMA);
    deps = {
      pool: t.pool,
      appender: new CaptureAppender(),
      codec: t.codec,
      now: () => NOW,
      outbound: createOutboundClient(LOCAL_POLICY),
      outboundPolicy: LOCAL_POLICY,
      keyring,
    };
  });
  afterAll(async () => {
    await smtp?.close();
    await sms?.close();
    await json?.close();
    await t?.close();
  });

  it('a record write that fails after the SMTP relay or the SMS API accepted: the step stops, the retry sends nothing twice', async () => {
    const { id, addresses, phoneNumbers } = await shop(16, 8);
    smtp.received.length = 0;
    sms.forms.length = 0;
    // The first send the provider accepts is not recorded: its write throws (a lost connection).
    const failing = faultOnMarkSent(ledger, 1, () => {
      throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    });
    await expect(
      runCampaignStep(config, { ...deps, sendLedger: failing }, { accountId: id, taskId: 't1' }, SEND),
    ).rejects.toThrow('Connection terminated unexpectedly');

    const afterFailure = await rows(id);
    const byStatus = tally(afterFailure.map((r) => r.status));
    // Exactly the unrecorded send is left claimed; the others in flight were recorded; the rest were
    // never handed over (the workers stopped): 8 workers, so at most 2 × 8 messages left.
    expect(byStatus.get('sending')).toBe(1);
    const handedOver = mailTo().length + smsTo().length;
    expect(handedOver).toBe((byStatus.get('sent') ?? 0) + 1);
    expect(handedOver).toBeLessThanOrEqual(16);
    expect(byStatus.get('planned') ?? 0).toBe(24 - handedOver);
    const unconfirmed = afterFailure.find((r) => r.status === 'sending')!;
    // An order through the unconfirmed message's link: attributed to it once it is possibly_sent.
    await insertOrder(t, id, {
      customerId: unconfirmed.customer_id,
      orderDate: new Date(NOW.getTime() + 3_600_000),
      source: `https://tea.example.com/?utm_source=holdfast&utm_content=${unconfirmed.tracking_id}`,
    });

    // The task's retry: the same step again, with the production ledger.
    const retry = await runCampaignStep(config, deps, { accountId: id, taskId: 't1' }, SEND);
    expect(retry).toMatchObject({ status: 'done', possiblySent: 1, sendFailed: 0 });

    // Every customer got exactly one message: none twice, none lost.
    expect([...tally(mailTo()).values()].every((n) => n === 1)).toBe(true);
    expect([...tally(smsTo()).values()].every((n) => n === 1)).toBe(true);
    expect(mailTo().sort()).toEqual([...addresses].sort());
    expect(smsTo().sort()).toEqual([...phoneNumbers].sort());
    const final = await rows(id);
    expect(final.find((r) => r.tracking_id === unconfirmed.tracking_id)).toMatchObject({
      status: 'possibly_sent',
      last_error: 'unconfirmed_claim',
    });
    expect(final.find((r) => r.tracking_id === unconfirmed.tracking_id)!.sent_at).not.toBeNull();
    const attributed = await t.pool.query(
      `select tracking_id, method from analytics.attributions where account_id = $1`,
      [id],
    );
    expect(attributed.rows).toEqual([{ tracking_id: unconfirmed.tracking_id, method: 'exact' }]);
    // Counted as sent for the cool-down and the cap: the next run plans nobody again.
    const next = await runCampaignStep(config, deps, { accountId: id, taskId: 't1b' }, SEND);
    expect(next).toMatchObject({ status: 'done', planned: 0, sent: 0 });
    expect(mailTo().length + smsTo().length).toBe(24);
    expect(tally(final.map((r) => r.status))).toEqual(
      new Map([
        ['sent', 23],
        ['possibly_sent', 1],
      ]),
    );
  }, 60_000);

  it('a process killed after the provider accepted a message and before its record: the next run never sends it twice', async () => {
    const { id, addresses, phoneNumbers } = await shop(10, 4);
    smtp.received.length = 0;
    sms.forms.length = 0;
    const run = async (killAt: number) => {
      const child = spawnTs('services/recompute/test/campaigns/test-support/send-runner.ts', {
        ...t.env,
        HOLDFAST_SECRETS_KEYS: KEYS,
        HOLDFAST_TEST_MODE: '1',
        RUNNER_ACCOUNT_ID: id,
        RUNNER_PUBLIC_URL: PUBLIC_URL,
        RUNNER_NOW: NOW.toISOString(),
        RUNNER_KILL_ON_MARK_SENT: String(killAt),
      });
      const out: string[] = [];
      const err: string[] = [];
      createInterface({ input: child.stdout! }).on('line', (l) => out.push(l));
      child.stderr!.on('data', (d: Buffer) => err.push(d.toString()));
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.once('exit', (c, s) => resolve([c, s])),
      );
      return { code, signal, out, err: err.join('') };
    };

    const killed = await run(3);
    expect(killed.signal).toBe('SIGKILL');
    const claimed = (await rows(id)).filter((r) => r.status === 'sending');
    expect(claimed.length).toBeGreaterThanOrEqual(1);
    const before = { mail: mailTo().length, sms: smsTo().length };
    expect(before.mail + before.sms).toBeGreaterThanOrEqual(3);

    const again = await run(0);
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out.at(-1)!)).toMatchObject({ status: 'done', possiblySent: claimed.length });

    // Never twice; every message confirmed sent arrived once; the claims the kill left are
    // possibly_sent (delivered once or not at all), never re-sent.
    expect([...tally(mailTo()).values()].every((n) => n === 1)).toBe(true);
    expect([...tally(smsTo()).values()].every((n) => n === 1)).toBe(true);
    const final = await rows(id);
    expect(
      final
        .filter((r) => r.status === 'possibly_sent')
        .map((r) => r.tracking_id)
        .sort(),
    ).toEqual(claimed.map((r) => r.tracking_id).sort());
    expect(final.every((r) => r.status === 'sent' || r.status === 'possibly_sent')).toBe(true);
    const delivered = mailTo().length + smsTo().length;
    const sentRows = final.filter((r) => r.status === 'sent').length;
    expect(delivered).toBeGreaterThanOrEqual(sentRows);
    expect(delivered).toBeLessThanOrEqual(addresses.length + phoneNumbers.length);
    // Those whose send the kill interrupted after the hand-over arrived once: at least the accepted one.
    expect(delivered - sentRows).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('a provider that drops repeats of an Idempotency-Key (the JSON endpoint) is asked again with the same key', async () => {
    const { id } = await shop(3, 0, false);
    json.requests.length = 0;
    const failing = faultOnMarkSent(ledger, 1, () => {
      throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    });
    await expect(
      runCampaignStep(
        { ...config, sendConcurrency: 1 },
        { ...deps, sendLedger: failing },
        { accountId: id, taskId: 't2' },
        SEND,
      ),
    ).rejects.toThrow();
    // One worker: the failure stopped it after the first message.
    expect(json.requests).toHaveLength(1);
    const key = json.requests[0]!.headers['idempotency-key'];
    const retry = await runCampaignStep(config, deps, { accountId: id, taskId: 't2' }, SEND);
    expect(retry).toMatchObject({ status: 'done', sent: 3, possiblySent: 0 });
    const keys = json.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(4);
    expect(keys.filter((k) => k === key)).toHaveLength(2);
    expect(new Set(keys).size).toBe(3);
  }, 60_000);

  it('consent is read right before each message: a customer who unsubscribes during the run is not sent', async () => {
    const { id, addresses } = await shop(4, 0);
    smtp.received.length = 0;
    // The unsubscribe lands (the projector folds it) while the run is sending: the customer of the
    // third message opts out just before that message's claim, after the run read its queue.
    let claims = 0;
    let victim = '';
    const unsubscribing: SendLedger = {
      ...ledger,
      claim: async (send, from, at) => {
        if (++claims === 3) {
          const res = await t.pool.query<{ email: string }>(
            `update read_models.customers set consent_suppressed = true
              where account_id = $1 and customer_id = $2 returning email`,
            [id, send.customerId],
          );
          victim = res.rows[0]!.email;
        }
        return ledger.claim(send, from, at);
      },
    };
    const r = await runCampaignStep(
      { ...config, sendConcurrency: 1 },
      { ...deps, sendLedger: unsubscribing },
      { accountId: id, taskId: 't3' },
      SEND,
    );
    expect(r).toMatchObject({ status: 'done', planned: 4, sent: 3, sendFailed: 1 });
    expect(mailTo().sort()).toEqual(addresses.filter((a) => a !== victim).sort());
    const victimRow = (
      await t.pool.query<{ status: string; last_error: string; send_attempts: number }>(
        `select a.status, a.last_error, a.send_attempts from analytics.campaign_assignments a
           join read_models.customers c using (account_id, customer_id)
          where a.account_id = $1 and c.email = $2`,
        [id, victim],
      )
    ).rows[0];
    expect(victimRow).toEqual({ status: 'failed', last_error: 'consent_withdrawn', send_attempts: 0 });
  }, 60_000);
});
