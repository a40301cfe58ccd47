// The message path as a merchant's customers meet it: a campaign run sends an email over SMTP (a real
// SMTP server) and an SMS through a Twilio-shaped API (a local receiver); the customer clicks the
// email's one-click unsubscribe, the other replies STOP; both go through the gateway into the log, the
// projector folds them, and the next run does not message either of them.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, mintApiKey, setEmailProvider, setSmsProvider } from '@holdfast/control-plane';
import {
  InboundKeyring,
  parseSecretsKeys,
  parseUnsubscribeKeys,
  SecretsKeyring,
  UnsubscribeKeys,
  verifyUnsubscribeToken,
} from '@holdfast/secrets';
import { LogPositions, TransactionalAppender } from '@holdfast/kafka';
import {
  createOutboundClient,
  parseOutboundAllow,
  silentLogger,
  STRICT_OUTBOUND_POLICY,
} from '@holdfast/platform';
import { rebuildReadModels, startProjector, type RunningProjector } from '@holdfast/projections';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { migrateAnalytics, migrateCampaigns } from '@holdfast/migrations';
import { createCampaignStep, type CampaignStepDeps } from '@holdfast/recompute';
import { createTestEnv, startSmtpReceiver, type SmtpReceiver, type TestEnv } from '@holdfast/testing';
import { createGateway, type Gateway } from '../../src/app.js';
import { loadGatewayConfig } from '../../src/config.js';
import { twilioSignature } from '../../src/consent/twilio-signature.js';

const DAY = 86_400_000;
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const SID = 'AC00000000000000000000000000000001';
const TOKEN = 'flow-auth-token';
const keyring = new SecretsKeyring(parseSecretsKeys(`k1:${randomBytes(32).toString('base64')}`));
// The recompute signs links and the gateway verifies them with these; the gateway opens the SMS token
// with the inbound keys. Neither is the master keyring, which only the recompute gets.
const unsubscribeKeys = new UnsubscribeKeys(parseUnsubscribeKeys(`u1:${randomBytes(32).toString('base64')}`));
const inboundKeys = new InboundKeyring(parseSecretsKeys(`i1:${randomBytes(32).toString('base64')}`));
const policy = {
  ...STRICT_OUTBOUND_POLICY,
  allowHttp: true,
  allow: parseOutboundAllow('127.0.0.1:*,[::1]:*'),
};

describe('providers, unsubscribe and STOP, end to end on the real stack', () => {
  let t: TestEnv;
  let projector: RunningProjector;
  let gateway: Gateway;
  let gatewayServer: Server;
  let gatewayUrl: string;
  let appender: TransactionalAppender;
  let positions: LogPositions;
  let smtp: SmtpReceiver;
  let smsServer: Server;
  let smsUrl: string;
  const smsForms: URLSearchParams[] = [];

  beforeAll(async () => {
    t = await createTestEnv('provflow');
    await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
    await migrateAnalytics(t.db as unknown as Kysely<unknown>);
    await migrateCampaigns(t.db as unknown as Kysely<unknown>);
    projector = await startProjector(
      {
        topicPrefix: t.topicPrefix,
        readSchema: DEFAULT_READ_MODEL_SCHEMA,
        groupId: `${t.topicPrefix}proj`,
        sessionTimeoutMs: 6_000,
      },
      { pool: t.pool, kafka: t.kafka, codec: t.codec, logger: silentLogger },
    );
    appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}gw`, size: 2 });
    positions = LogPositions.create(t.kafka, t.topicPrefix);
    gateway = await createGateway(
      {
        ...loadGatewayConfig({ ...t.env, HOLDFAST_TEST_MODE: '1' }),
        trustProxy: true,
        unsubscribeKeys,
        inboundKeys,
      },
      { pool: t.pool, appender, codec: t.codec, logPositions: positions },
    );
    gatewayServer = gateway.app.listen(0, '127.0.0.1');
    await once(gatewayServer, 'listening');
    gatewayUrl = `http://127.0.0.1:${(gatewayServer.address() as AddressInfo).port}`;
    smtp = await startSmtpReceiver({ user: 'relay', pass: 'relay-password' });
    smsServer = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        smsForms.push(new URLSearchParams(Buffer.concat(chunks).toString()));
        res.writeHead(201, { 'content-type': 'application/json' }).end('{"sid":"SM1"}');
      });
    });
    smsServer.listen(0, '127.0.0.1');
    await once(smsServer, 'listening');
    smsUrl = `http://127.0.0.1:${(smsServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    gatewayServer?.closeAllConnections();
    await new Promise((r) => gatewayServer?.close(r));
    await gateway?.close();
    await appender?.close();
    await positions?.close();
    await projector?.stop();
    await smtp?.close();
    smsServer?.closeAllConnections();
    await new Promise((r) => smsServer?.close(r));
    await t?.close();
  });

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${gatewayUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });
  const customers = async (accountId: string) =>
    (
      await t.pool.query<{
        customer_id: string;
        external_id: string;
        consent_suppressed: boolean;
        consent_sms: boolean;
      }>(
        `select customer_id, external_id, consent_suppressed, consent_sms from read_models.customers
          where account_id = $1 order by external_id`,
        [accountId],
      )
    ).rows;

  it('sends over SMTP and SMS; the unsubscribe and the STOP reply take effect before the next run', async () => {
    const { id: account } = await createAccount(t.db, { name: 'Tea', storefrontDomain: 'tea.example.com' });
    const { key } = await mintApiKey(t.db, account, 'ingest_live');
    await t.pool.query(
      `insert into analytics.campaign_type_settings (account_id, campaign_type, enabled, changed_at)
       values ($1, 'win_back', true, now())`,
      [account],
    );
    await setEmailProvider(
      t.db,
      account,
      {
        provider: 'smtp',
        host: 'localhost',
        port: smtp.port,
        user: 'relay',
        from: 'Tea <news@tea.example.com>',
        tls: 'starttls',
        ca: smtp.certPem,
      },
      'relay-password',
      keyring,
    );
    await setSmsProvider(
      t.db,
      account,
      { provider: 'twilio', baseUrl: smsUrl, accountSid: SID, from: '+12025550100' },
      TOKEN,
      keyring,
      inboundKeys,
    );

    // Customers through the spec's route, folded by the projector.
    const res = await fetch(`${gatewayUrl}/ingest/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        customers: [
          { external_id: 'A', email: 'ann@example.com', consent: { marketing_email: true } },
          { external_id: 'B', phone: '+12025550143', consent: { sms: true } },
          { external_id: 'C', email: 'carl@example.com', consent: { marketing_email: true } },
        ],
      }),
    });
    expect(res.status).toBe(200);
    for (let i = 0; i < 300 && (await customers(account)).length < 3; i++)
      await new Promise((r) => setTimeout(r, 50));
    const [a, b, c] = await customers(account);
    for (const x of [a, b, c])
      await t.pool.query(
        `insert into analytics.customer_scores (account_id, customer_id, external_id, churn_risk, lifecycle_state,
           p_alive, predicted_next_purchase_at, expected_purchases, expected_spend, realised_revenue, predicted_value,
           lifetime_value, is_holdout, model, model_params, horizon_days, as_of)
         values ($1, $2, null, 0.8, 'Overdue', 0.3, null, 1, 50, 100, 50, 100, false, 'heuristic', '{}', 365, $3)`,
        [account, x!.customer_id, NOW],
      );

    const deps: CampaignStepDeps = {
      pool: t.pool,
      appender,
      codec: t.codec,
      now: () => NOW,
      outbound: createOutboundClient(policy),
      outboundPolicy: policy,
      keyring,
      unsubscribeKeys,
    };
    const config = {
      topicPrefix: t.topicPrefix,
      readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
      publicUrl: gatewayUrl,
    };
    const first = await createCampaignStep(config, deps)(
      { accountId: account, taskId: null },
      { send: true },
    );
    expect(first).toMatchObject({ status: 'done', sent: 3, sendFailed: 0 });
    expect(smtp.received.map((m) => m.rcptTo[0]).sort()).toEqual(['ann@example.com', 'carl@example.com']);
    expect(smsForms.map((f) => [f.get('To'), f.get('Body')!.endsWith('Reply STOP to opt out.')])).toEqual([
      ['+12025550143', true],
    ]);

    // Ann clicks her mail client's unsubscribe button: a POST to the List-Unsubscribe URL (RFC 8058).
    const annMail = smtp.received.find((m) => m.rcptTo[0] === 'ann@example.com')!;
    const list = annMail.mail.headers.get('list') as { unsubscribe: { url: string } };
    const unsubscribeUrl = new URL(list.unsubscribe.url);
    expect(verifyUnsubscribeToken(unsubscribeKeys, unsubscribeUrl.pathname.split('/').pop()!)).toEqual({
      accountId: account,
      customerId: a!.customer_id,
      channel: 'email',
    });
    expect(unsubscribeUrl.href).not.toMatch(/ann|example\.com\/.*@/);
    expect((await post(unsubscribeUrl.pathname, 'List-Unsubscribe=One-Click')).status).toBe(200);

    // B replies STOP; the provider posts it to the inbound webhook, signed.
    const path = `/providers/sms/${account}/inbound`;
    const params = { MessageSid: 'SMflow1', From: '+12025550143', To: '+12025550100', Body: 'STOP' };
    const signature = twilioSignature(TOKEN, `${gatewayUrl}${path}`, Object.entries(params));
    expect(
      (await post(path, new URLSearchParams(params).toString(), { 'x-twilio-signature': signature })).status,
    ).toBe(200);

    const after = await customers(account);
    expect(after.map((x) => [x.external_id, x.consent_suppressed, x.consent_sms])).toEqual([
      ['A', true, false],
      ['B', false, false],
      ['C', false, false],
    ]);

    // The next run (past the cool-down and the cap window): Carl again, nobody else.
    const later = new Date(NOW.getTime() + 31 * DAY);
    const second = await createCampaignStep(config, { ...deps, now: () => later })(
      { accountId: account, taskId: null },
      { send: true },
    );
    expect(second).toMatchObject({ status: 'done', sent: 1, suppressed: 1, noConsent: 1 });
    expect(smtp.received.map((m) => m.rcptTo[0])).toHaveLength(3);
    expect(smtp.received.at(-1)!.rcptTo).toEqual(['carl@example.com']);
    expect(smsForms).toHaveLength(1);
    const { rows } = await t.pool.query(
      `select customer_id, status from analytics.campaign_assignments where account_id = $1 and assigned_at = $2`,
      [account, later],
    );
    expect(
      new Map(rows.map((r: { customer_id: string; status: string }) => [r.customer_id, r.status])),
    ).toEqual(
      new Map([
        [a!.customer_id, 'suppressed'],
        [b!.customer_id, 'no_consent'],
        [c!.customer_id, 'sent'],
      ]),
    );

    // A replay of the log from offset 0 keeps both withdrawals: they are records, not row edits.
    const rebuilt = await rebuildReadModels(
      { topicPrefix: t.topicPrefix, readSchema: DEFAULT_READ_MODEL_SCHEMA, noSwitch: true },
      { pool: t.pool, kafka: t.kafka, codec: t.codec, logger: silentLogger },
    );
    const { rows: replayed } = await t.pool.query(
      `select external_id, consent_suppressed, consent_sms from "${rebuilt.nextSchema}".customers
        where account_id = $1 order by external_id`,
      [account],
    );
    expect(replayed).toEqual(
      after.map((x) => ({
        external_id: x.external_id,
        consent_suppressed: x.consent_suppressed,
        consent_sms: x.consent_sms,
      })),
    );
  });
});
