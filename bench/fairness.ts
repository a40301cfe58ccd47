// npm run bench -- fairness [--phase S] [--warmup S] [--quiet-rps N] [--upload-kibps N]: one noisy
// tenant must not stall or starve a quiet one (issue 28 item 2). Both phases in the same run, on the
// shared stack (a database and topics of the bench's own) with a real gateway and dispatcher:
//
//   A. the quiet tenant alone: small order batches at a steady rate, and one campaign.sent event every
//      250 ms delivered to its webhook receiver;
//   B. the same quiet load while a noisy tenant holds eight slow 32 MiB uploads (four keys, two each,
//      restarted as they end or are refused), gets 20 campaign.sent events a second to a tarpit
//      receiver (never answers) and to a poison subscription (its secret sealed under a master key the
//      dispatcher lacks), and runs its campaign step against an SMTP relay that trickles its greeting.
//
// Reported: the quiet tenant's ingest latency and webhook delivery latency (enqueue committed → the
// receiver read it), median and p99 per phase, and B / A. The guarantee: both p99 within 2×.
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import type { Kysely } from 'kysely';
import { EventCodec, type CampaignSent } from '@holdfast/contracts';
import {
  createAccount,
  createWebhookSubscription,
  mintApiKey,
  parseSecretsKeys,
  SecretsKeyring,
  setEmailProvider,
} from '@holdfast/db';
import { createKafka, topicName, TransactionalAppender } from '@holdfast/kafka';
import {
  EnvReader,
  parseOutboundAllow,
  readKafkaClientKind,
  silentLogger,
  STRICT_OUTBOUND_POLICY,
} from '@holdfast/platform';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { createCampaignStep, migrateAnalytics, migrateCampaigns } from '@holdfast/recompute';
import { startTarpitReceiver, startTricklingSmtpRelay } from '@holdfast/testing';
import { campaignSentEvent as campaignSent, slowUpload } from './noisy-tenant.js';
import { report } from './report.js';
import { benchStack } from './stack.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The guarantee: the quiet tenant's p99 with the noisy one beside it within this factor of alone. */
export const FAIRNESS_LIMIT = 2;

/** The value at quantile q (0…1) of the samples (nearest rank); NaN for none. */
export function quantile(samples: readonly number[], q: number): number {
  if (!samples.length) return NaN;
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** One latency series of the quiet tenant in one phase. */
interface Series {
  samples: number[];
  failures: number;
}

const series = (): Series => ({ samples: [], failures: 0 });

/** A webhook receiver that answers 200 at once and notes when each tracking id arrived (and repeats). */
async function startQuietReceiver() {
  const arrived = new Map<string, number>();
  let repeats = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      try {
        const id = (JSON.parse(Buffer.concat(chunks).toString()) as { data: { tracking_id: string } }).data
          .tracking_id;
        if (arrived.has(id)) repeats++;
        else arrived.set(id, at);
      } catch {
        /* not a campaign.sent body: ignored */
      }
      res.writeHead(200).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrived,
    repeats: () => repeats,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export async function benchFairness(args: Record<string, string>): Promise<number> {
  const n = (k: string, d: number) => (args[k] !== undefined ? Number(args[k]) : d);
  const phaseS = n('phase', 45);
  const warmupS = n('warmup', 10);
  const quietRps = n('quiet-rps', 4);
  const uploadKiBps = n('upload-kibps', 384);
  const log = (m: string) => console.error(`[fairness] ${m}`);
  const stack = await benchStack(4);
  const stops: (() => Promise<unknown>)[] = [];
  let noisyOn = false;
  let running = true;
  try {
    await ensureReadModelSchema(stack.pool, DEFAULT_READ_MODEL_SCHEMA);
    await migrateAnalytics(stack.db as unknown as Kysely<unknown>);
    await migrateCampaigns(stack.db as unknown as Kysely<unknown>);
    const codec = await EventCodec.connect(stack.env.SCHEMA_REGISTRY_URL!);
    const kafka = createKafka(
      stack.env.KAFKA_BROKERS!.split(','),
      'fairness',
      silentLogger,
      undefined,
      readKafkaClientKind(new EnvReader(process.env)),
    );
    const secretsKeys = `k1:${randomBytes(32).toString('base64')}`;
    const keyring = new SecretsKeyring(parseSecretsKeys(secretsKeys));
    const gone = new SecretsKeyring(parseSecretsKeys(`gone:${randomBytes(32).toString('base64')}`));
    const svcEnv = {
      HOLDFAST_SECRETS_KEYS: secretsKeys,
      // The receivers listen on loopback.
      HOLDFAST_OUTBOUND_ALLOW_HTTP: 'true',
      HOLDFAST_OUTBOUND_ALLOW: '127.0.0.1:*',
    };

    const quietAccount = (
      await createAccount(stack.db, { name: 'quiet', storefrontDomain: 'quiet.example.com' })
    ).id;
    const noisyAccount = (
      await createAccount(stack.db, { name: 'noisy', storefrontDomain: 'noisy.example.com' })
    ).id;
    const quietKey = (await mintApiKey(stack.db, quietAccount, 'ingest_live')).key;
    const noisyKeys: string[] = [];
    for (let i = 0; i < 4; i++) noisyKeys.push((await mintApiKey(stack.db, noisyAccount, 'ingest_live')).key);

    const quietReceiver = await startQuietReceiver();
    stops.push(quietReceiver.close);
    const tarpit = await startTarpitReceiver();
    stops.push(tarpit.close);
    const relay = await startTricklingSmtpRelay(500);
    stops.push(relay.close);
    await createWebhookSubscription(stack.db, quietAccount, quietReceiver.url, keyring);
    await createWebhookSubscription(stack.db, noisyAccount, tarpit.url, keyring);
    await createWebhookSubscription(stack.db, noisyAccount, `${tarpit.url}/poison`, gone);

    // The noisy tenant's campaigns go to the trickling relay: 40 customers due a win-back.
    await setEmailProvider(
      stack.db,
      noisyAccount,
      {
        provider: 'smtp',
        host: '127.0.0.1',
        port: relay.port,
        user: 'u',
        from: 'Noisy <n@noisy.example.com>',
        tls: 'none',
        ca: null,
      },
      'p',
      keyring,
    );
    await stack.pool.query(
      `insert into analytics.campaign_type_settings (account_id, campaign_type, enabled, changed_at)
       values ($1, 'win_back', true, now())`,
      [noisyAccount],
    );
    // Customers due a win-back: each campaign step of the noisy tenant gets 8 fresh ones to send to.
    let dueSeq = 0;
    const seedDue = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const id = randomUUID();
        await stack.pool.query(
          `insert into read_models.customers (account_id, customer_id, email, consent_marketing_email, consent_sms,
             consent_suppressed, consent_bounced, created_at, updated_at)
           values ($1, $2, $3, true, false, false, false, now(), now())`,
          [noisyAccount, id, `c${dueSeq++}@noisy.example.com`],
        );
        await stack.pool.query(
          `insert into analytics.customer_scores (account_id, customer_id, external_id, churn_risk, lifecycle_state, p_alive,
             predicted_next_purchase_at, expected_purchases, expected_spend, realised_revenue, predicted_value,
             lifetime_value, is_holdout, model, model_params, horizon_days, as_of)
           values ($1, $2, null, 0.7, 'Overdue', 0.5, null, 1, 50, 100, 50, 100, false, 'heuristic', '{}', 365, now())`,
          [noisyAccount, id],
        );
      }
    };

    const gatewayPort = await stack.startService('gateway', svcEnv);
    await stack.startService('dispatcher', svcEnv);
    log(`gateway on ${gatewayPort}, dispatcher started`);

    const appender = await TransactionalAppender.create(kafka, { name: `${stack.prefix}fairness`, size: 2 });
    stops.push(() => appender.close());
    const campaigns = topicName(stack.prefix, 'holdfast.campaigns');
    const append = (events: CampaignSent[]) =>
      appender.append(
        events.map((e) => ({
          topic: campaigns,
          key: e.metadata.account_id,
          value: codec.encode('CampaignSent', e),
        })),
      );

    // The quiet tenant's load, measured into the current phase's series.
    let ingest = series();
    let webhook = series();
    const pendingHooks = new Map<string, { at: number; into: Series }>();
    let orderSeq = 0;
    const ingestLoop = (async () => {
      const inFlight = new Set<Promise<void>>();
      while (running) {
        const into = ingest;
        const orders = Array.from({ length: 20 }, () => {
          const k = orderSeq++;
          return {
            order_id: `q-${k}`,
            customer_id: `qc-${k % 500}`,
            order_date: new Date(Date.UTC(2025, 0, 1) + k * 60_000).toISOString(),
            order_amount: 10 + (k % 90),
            product_name: 'Tea',
          };
        });
        const p = (async () => {
          const t0 = performance.now();
          try {
            const r = await fetch(`http://127.0.0.1:${gatewayPort}/ingest/orders`, {
              method: 'POST',
              headers: { authorization: `Bearer ${quietKey}`, 'content-type': 'application/json' },
              body: JSON.stringify({ orders }),
              signal: AbortSignal.timeout(60_000),
            });
            await r.arrayBuffer();
            if (r.ok) into.samples.push(performance.now() - t0);
            else into.failures++;
          } catch {
            into.failures++;
          }
        })();
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
        await sleep(1000 / quietRps);
      }
      await Promise.all(inFlight);
    })();
    const hookLoop = (async () => {
      while (running) {
        const into = webhook;
        const e = campaignSent(quietAccount);
        try {
          await append([e]);
          pendingHooks.set(e.tracking_id, { at: performance.now(), into });
        } catch {
          into.failures++;
        }
        await sleep(250);
      }
    })();
    // Matches arrivals to their enqueue (the receiver's clock is this process's).
    const matcher = setInterval(() => {
      for (const [id, p] of pendingHooks) {
        const at = quietReceiver.arrived.get(id);
        if (at !== undefined) {
          p.into.samples.push(Math.max(0, at - p.at));
          pendingHooks.delete(id);
        }
      }
    }, 100);

    // The noisy tenant.
    const uploads = { started: 0, statuses: new Map<number, number>() };
    const noisyLoops: Promise<void>[] = [];
    const startNoisy = () => {
      noisyOn = true;
      for (let i = 0; i < 8; i++)
        noisyLoops.push(
          (async () => {
            while (noisyOn) {
              uploads.started++;
              const s = await slowUpload(gatewayPort, noisyKeys[i % 4]!, uploadKiBps, () => !noisyOn);
              uploads.statuses.set(s, (uploads.statuses.get(s) ?? 0) + 1);
              if (noisyOn) await sleep(s === 429 || s === 503 ? 1000 : 100);
            }
          })(),
        );
      noisyLoops.push(
        (async () => {
          while (noisyOn) {
            await append(Array.from({ length: 10 }, () => campaignSent(noisyAccount))).catch(() => {});
            await sleep(500);
          }
        })(),
      );
      const steps = { runs: 0, longestMs: 0, outcomes: new Map<string, number>() };
      noisyLoops.push(
        (async () => {
          while (noisyOn) {
            const t0 = performance.now();
            try {
              await seedDue(8);
              const r = await createCampaignStep(
                {
                  topicPrefix: stack.prefix,
                  readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
                  publicUrl: 'https://hf.example.com',
                  testMode: true,
                  providerTimeoutMs: 2_000,
                  providerMaxAttempts: 1,
                },
                {
                  pool: stack.pool,
                  appender,
                  codec,
                  keyring,
                  outboundPolicy: {
                    ...STRICT_OUTBOUND_POLICY,
                    allowHttp: true,
                    allow: parseOutboundAllow('127.0.0.1:*'),
                  },
                },
              )({ accountId: noisyAccount, taskId: null }, { send: true });
              const k = `${r.status}${r.reason ? `/${r.reason}` : ''} planned=${r.planned} sent=${r.sent} failed=${r.sendFailed} possibly_sent=${r.possiblySent}`;
              steps.outcomes.set(k, (steps.outcomes.get(k) ?? 0) + 1);
            } catch (err) {
              const k = `threw ${(err as Error).message.slice(0, 80)}`;
              steps.outcomes.set(k, (steps.outcomes.get(k) ?? 0) + 1);
            }
            steps.runs++;
            steps.longestMs = Math.max(steps.longestMs, performance.now() - t0);
            await sleep(1000);
          }
        })(),
      );
      return steps;
    };

    log(`warm-up ${warmupS} s`);
    await sleep(warmupS * 1000);
    const loadA = loadavg()[0]!;
    ingest = series();
    webhook = series();
    const a = { ingest, webhook };
    log(`phase A (quiet alone) ${phaseS} s`);
    await sleep(phaseS * 1000);
    const loadA2 = loadavg()[0]!;
    log('noisy tenant starts');
    // Not measured while the noisy tenant ramps up: the tarpit fills its cap, the uploads start.
    ingest = series();
    webhook = series();
    const steps = startNoisy();
    await sleep(warmupS * 1000);
    const loadB = loadavg()[0]!;
    ingest = series();
    webhook = series();
    const b = { ingest, webhook };
    log(`phase B (quiet + noisy) ${phaseS} s`);
    await sleep(phaseS * 1000);
    const loadB2 = loadavg()[0]!;
    // Measured no more: what runs while B's last deliveries drain goes nowhere.
    ingest = series();
    webhook = series();
    // The quiet load stops first (an append in flight still joins B's series), then B's deliveries
    // still arriving count toward B.
    running = false;
    await Promise.all([ingestLoop, hookLoop]);
    const drainUntil = Date.now() + 20_000;
    while ([...pendingHooks.values()].some((p) => p.into === b.webhook) && Date.now() < drainUntil)
      await sleep(200);
    noisyOn = false;
    clearInterval(matcher);
    await Promise.race([Promise.all(noisyLoops), sleep(15_000)]);
    const undelivered = {
      a: [...pendingHooks.values()].filter((p) => p.into === a.webhook).length,
      b: [...pendingHooks.values()].filter((p) => p.into === b.webhook).length,
    };
    // Why a quiet delivery did not arrive (its row in the dispatcher's table).
    const missing = [...pendingHooks]
      .filter(([, p]) => p.into === b.webhook || p.into === a.webhook)
      .map(([id]) => id);
    const missingRows = missing.length
      ? (
          await stack.pool.query<{
            status: string;
            attempts: number;
            last_error: string | null;
            next_attempt_at: Date | null;
          }>(
            `select status, attempts, last_error, next_attempt_at from dispatcher.deliveries
              where account_id = $1 and body like any($2)`,
            [quietAccount, missing.map((id) => `%${id}%`)],
          )
        ).rows
      : [];
    const quarantined = await stack.pool
      .query<{ n: number }>('select count(*)::int as n from dispatcher.subscription_quarantine')
      .then(
        (r) => r.rows[0]!.n,
        () => -1,
      );

    const stat = (s: Series) => ({
      n: s.samples.length,
      median: quantile(s.samples, 0.5),
      p99: quantile(s.samples, 0.99),
      failures: s.failures,
    });
    const rows = [
      ['quiet ingest (POST /ingest/orders, 20 rows)', stat(a.ingest), stat(b.ingest)],
      ['quiet webhook delivery (enqueue → receiver)', stat(a.webhook), stat(b.webhook)],
    ] as const;
    const ratios = rows.map(([, sa, sb]) => ({ median: sb.median / sa.median, p99: sb.p99 / sa.p99 }));
    const ok =
      ratios.every((r) => r.p99 <= FAIRNESS_LIMIT) &&
      rows.every(([, sa, sb]) => sa.failures === 0 && sb.failures === 0) &&
      undelivered.b === 0 &&
      quietReceiver.repeats() === 0;
    const f = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '-');
    console.log('\nfairness benchmark: the quiet tenant alone (A) and beside the noisy one (B), same run');
    console.log(
      '| series | A n | A median ms | A p99 ms | B n | B median ms | B p99 ms | B/A median | B/A p99 |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    rows.forEach(([name, sa, sb], i) =>
      console.log(
        `| ${name} | ${sa.n} | ${f(sa.median)} | ${f(sa.p99)} | ${sb.n} | ${f(sb.median)} | ${f(sb.p99)} | ${ratios[i]!.median.toFixed(2)} | ${ratios[i]!.p99.toFixed(2)} |`,
      ),
    );
    console.log(
      `quiet failures: ingest A ${a.ingest.failures} / B ${b.ingest.failures}, webhook A ${a.webhook.failures} / B ${b.webhook.failures}; ` +
        `undelivered at the end: A ${undelivered.a}, B ${undelivered.b} ${JSON.stringify(missingRows)}; repeated deliveries: ${quietReceiver.repeats()}`,
    );
    console.log(
      `noisy: ${uploads.started} uploads of 32 MiB at ${uploadKiBps} KiB/s (answers ${JSON.stringify(Object.fromEntries(uploads.statuses))}), ` +
        `tarpit read ${tarpit.received()} requests, ${quarantined} subscription(s) quarantined, ` +
        `${relay.accepted()} SMTP connections to the trickling relay, ${steps.runs} campaign steps (longest ${(steps.longestMs / 1000).toFixed(1)} s: ${JSON.stringify(Object.fromEntries(steps.outcomes))})`,
    );
    console.log(
      `load (1-min loadavg, 2 cores shared): A ${loadA.toFixed(2)} → ${loadA2.toFixed(2)}, B ${loadB.toFixed(2)} → ${loadB2.toFixed(2)}; quiet load ${quietRps} req/s × 20 orders + 4 campaign.sent/s`,
    );
    console.log(
      ok
        ? `RESULT: both p99 within ${FAIRNESS_LIMIT}×`
        : `RESULT: FAILED (must show: both p99 within ${FAIRNESS_LIMIT}×, no quiet failure, every quiet delivery once)`,
    );
    report(
      'fairness',
      {
        phase_s: phaseS,
        ok: ok ? 'yes' : 'no',
        ingest_p99_ratio: Number(ratios[0]!.p99.toFixed(2)),
        webhook_p99_ratio: Number(ratios[1]!.p99.toFixed(2)),
        loadavg_a: Number(loadA2.toFixed(2)),
        loadavg_b: Number(loadB2.toFixed(2)),
      },
      rows.map(([name, sa, sb]) => [
        name,
        `A ${f(sa.median)}/${f(sa.p99)} ms, B ${f(sb.median)}/${f(sb.p99)} ms (median/p99)`,
      ]),
    );
    return ok ? 0 : 1;
  } finally {
    noisyOn = false;
    running = false;
    for (const s of stops.reverse()) await s().catch(() => {});
    await stack.close();
  }
}
