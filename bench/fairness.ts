// npm run bench -- fairness [--phase S] [--warmup S] [--quiet-rps N] [--upload-kibps N] [--rounds R]: one
// noisy tenant must not stall or starve a quiet one (issue 28 item 2). Both phases in the same run, on the
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
// --rounds R (default 1) repeats A then B R times in the same run (the noisy tenant stopped between
// rounds) and judges the median over rounds of each round's B/A, so a burst of the machine's own load
// in one phase does not decide; each phase also records the gateway's event-loop delay and GC time
// (its /metrics) and this process's own event-loop delay, to tell where a quiet request waited.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import { EventCodec, type CampaignSent } from '@holdfast/contracts';
import {
  createAccount,
  createWebhookSubscription,
  mintApiKey,
  setEmailProvider,
} from '@holdfast/control-plane';
import { parseSecretsKeys, SecretsKeyring } from '@holdfast/secrets';
import { createKafka, topicName, TransactionalAppender } from '@holdfast/kafka';
import { parseOutboundAllow, silentLogger, STRICT_OUTBOUND_POLICY } from '@holdfast/platform';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { migrateAnalytics, migrateCampaigns } from '@holdfast/migrations';
import { createCampaignStep } from '@holdfast/recompute';
import { startTarpitReceiver, startTricklingSmtpRelay } from '@holdfast/testing';
import { campaignSentEvent as campaignSent, slowUpload } from './noisy-tenant.js';
import { median, report } from './report.js';
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
  const rounds = n('rounds', 1);
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
    const kafka = createKafka(stack.env.KAFKA_BROKERS!.split(','), 'fairness', silentLogger);
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

    // /metrics on the API port too: the bench reads the gateway's event-loop delay and GC per phase.
    const gatewayPort = await stack.startService('gateway', { ...svcEnv, HOLDFAST_OPS_ON_API_PORT: 'true' });
    await stack.startService('dispatcher', svcEnv);
    log(`gateway on ${gatewayPort}, dispatcher started`);
    // The same quiet ingest load again, measured from a process of its own: the bench's process also
    // drives the noisy tenant, so its own measurement includes that process's event-loop waits.
    const quietClient = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'bench/quiet-ingest-client.ts',
        String(gatewayPort),
        quietKey,
        String(quietRps),
        'qp',
      ],
      { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
    stops.push(() => {
      if (quietClient.exitCode === null) quietClient.kill('SIGTERM');
      return Promise.resolve();
    });
    const cutQuietClient = () =>
      new Promise<Series>((resolve) => {
        quietClient.once('message', (m) => resolve(m as Series));
        quietClient.send({ cmd: 'cut' });
      });

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

    // The gateway's event loop and GC over a phase: prom-client resets its event-loop histogram on
    // every scrape, so a scrape at the phase start and one at its end measure the phase alone.
    const scrape = async () => {
      const text = await (await fetch(`http://127.0.0.1:${gatewayPort}/metrics`)).text();
      const v = (re: RegExp) => [...text.matchAll(re)].reduce((sum, m) => sum + Number(m[1]), 0);
      return {
        lagP99: v(/^nodejs_eventloop_lag_p99_seconds(?:\{[^}]*\})? (\S+)$/gm) * 1000,
        lagMax: v(/^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/gm) * 1000,
        gcS: v(/^nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm),
        gcCount: v(/^nodejs_gc_duration_seconds_count\{[^}]*\} (\S+)$/gm),
        // GC pauses of 10 ms or more: the histogram's count minus its le="0.01" bucket.
        gcUnder10ms: v(/^nodejs_gc_duration_seconds_bucket\{[^}]*le="0.01"[^}]*\} (\S+)$/gm),
        majorGcS: v(/^nodejs_gc_duration_seconds_sum\{[^}]*kind="major"[^}]*\} (\S+)$/gm),
        rssMiB: v(/^process_resident_memory_bytes(?:\{[^}]*\})? (\S+)$/gm) / 1024 / 1024,
      };
    };
    const benchLoop = monitorEventLoopDelay({ resolution: 10 });
    benchLoop.enable();
    interface Phase {
      readonly ingest: Series;
      /** The quiet ingest measured by bench/quiet-ingest-client.ts in its own process. */
      ingestApart: Series;
      readonly webhook: Series;
      load: [number, number];
      gateway: {
        lagP99Ms: number;
        lagMaxMs: number;
        gcMs: number;
        gcs: number;
        gcsOver10Ms: number;
        majorGcMs: number;
        rssMiB: number;
      };
      benchLoopP99Ms: number;
    }
    const measurePhase = async (name: string): Promise<Phase> => {
      ingest = series();
      webhook = series();
      const phase: Phase = {
        ingest,
        ingestApart: series(),
        webhook,
        load: [loadavg()[0]!, 0],
        gateway: { lagP99Ms: 0, lagMaxMs: 0, gcMs: 0, gcs: 0, gcsOver10Ms: 0, majorGcMs: 0, rssMiB: 0 },
        benchLoopP99Ms: 0,
      };
      const m0 = await scrape();
      await cutQuietClient();
      benchLoop.reset();
      log(`${name} ${phaseS} s`);
      await sleep(phaseS * 1000);
      phase.ingestApart = await cutQuietClient();
      const m1 = await scrape();
      phase.benchLoopP99Ms = benchLoop.percentile(99) / 1e6;
      phase.load[1] = loadavg()[0]!;
      phase.gateway = {
        lagP99Ms: m1.lagP99,
        lagMaxMs: m1.lagMax,
        gcMs: (m1.gcS - m0.gcS) * 1000,
        gcs: m1.gcCount - m0.gcCount,
        gcsOver10Ms: m1.gcCount - m0.gcCount - (m1.gcUnder10ms - m0.gcUnder10ms),
        majorGcMs: (m1.majorGcS - m0.majorGcS) * 1000,
        rssMiB: m1.rssMiB,
      };
      // Not measured until the next phase starts.
      ingest = series();
      webhook = series();
      return phase;
    };
    let steps: ReturnType<typeof startNoisy> | null = null;
    const stopNoisy = async () => {
      noisyOn = false;
      await Promise.race([Promise.all(noisyLoops), sleep(15_000)]);
      noisyLoops.length = 0;
    };

    log(`warm-up ${warmupS} s`);
    await sleep(warmupS * 1000);
    const phases: { a: Phase; b: Phase }[] = [];
    for (let round = 1; round <= rounds; round++) {
      if (round > 1) {
        // The noisy tenant stopped; its tarpit's attempts in flight end within their timeout.
        await stopNoisy();
        await sleep(warmupS * 1000);
      }
      const a = await measurePhase(`round ${round}/${rounds}: phase A (quiet alone)`);
      log('noisy tenant starts');
      // Not measured while the noisy tenant ramps up: the tarpit fills its cap, the uploads start.
      steps = startNoisy();
      await sleep(warmupS * 1000);
      const b = await measurePhase(`round ${round}/${rounds}: phase B (quiet + noisy)`);
      phases.push({ a, b });
    }
    benchLoop.disable();
    const a = phases[0]!.a;
    const b = phases[phases.length - 1]!.b;
    // The quiet load stops first (an append in flight still joins B's series), then B's deliveries
    // still arriving count toward B.
    running = false;
    quietClient.send({ cmd: 'stop' });
    await Promise.all([ingestLoop, hookLoop]);
    const drainUntil = Date.now() + 20_000;
    while ([...pendingHooks.values()].some((p) => p.into === b.webhook) && Date.now() < drainUntil)
      await sleep(200);
    clearInterval(matcher);
    await stopNoisy();
    const aHooks = new Set(phases.map((p) => p.a.webhook));
    const bHooks = new Set(phases.map((p) => p.b.webhook));
    const undelivered = {
      a: [...pendingHooks.values()].filter((p) => aHooks.has(p.into)).length,
      b: [...pendingHooks.values()].filter((p) => bHooks.has(p.into)).length,
    };
    // Why a quiet delivery did not arrive (its row in the dispatcher's table).
    const missing = [...pendingHooks]
      .filter(([, p]) => aHooks.has(p.into) || bHooks.has(p.into))
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
    const f = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '-');
    const perRound = phases.map(({ a, b }) => ({
      ingest: [stat(a.ingest), stat(b.ingest)] as const,
      webhook: [stat(a.webhook), stat(b.webhook)] as const,
      ingestP99Ratio: stat(b.ingest).p99 / stat(a.ingest).p99,
      apart: [stat(a.ingestApart), stat(b.ingestApart)] as const,
      apartP99Ratio: stat(b.ingestApart).p99 / stat(a.ingestApart).p99,
      webhookP99Ratio: stat(b.webhook).p99 / stat(a.webhook).p99,
      a,
      b,
    }));
    const ingestRatio = median(perRound.map((r) => r.ingestP99Ratio));
    const webhookRatio = median(perRound.map((r) => r.webhookP99Ratio));
    const apartRatio = median(perRound.map((r) => r.apartP99Ratio));
    const failures = phases.reduce(
      (n, { a, b }) => n + a.ingest.failures + b.ingest.failures + a.webhook.failures + b.webhook.failures,
      0,
    );
    const ok =
      ingestRatio <= FAIRNESS_LIMIT &&
      webhookRatio <= FAIRNESS_LIMIT &&
      failures === 0 &&
      undelivered.b === 0 &&
      quietReceiver.repeats() === 0;
    console.log('\nfairness benchmark: the quiet tenant alone (A) and beside the noisy one (B), same run');
    console.log(
      '| round | series | A n | A median / p99 ms | B n | B median / p99 ms | B/A p99 | load A → B | gateway loop p99 / max ms A → B | gateway GC A → B | bench loop p99 ms A → B |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    perRound.forEach((r, i) => {
      const ph = (p: Phase) => `${p.load[0].toFixed(1)}–${p.load[1].toFixed(1)}`;
      const gw = (p: Phase) => `${f(p.gateway.lagP99Ms)} / ${f(p.gateway.lagMaxMs)}`;
      const gc = (p: Phase) =>
        `${f(p.gateway.gcMs)} ms, ${p.gateway.gcs} GCs, ${p.gateway.gcsOver10Ms} ≥ 10 ms (major ${f(p.gateway.majorGcMs)} ms)`;
      const line = (
        name: string,
        [sa, sb]: readonly [ReturnType<typeof stat>, ReturnType<typeof stat>],
        ratio: number,
        extra: string,
      ) =>
        console.log(
          `| ${i + 1} | ${name} | ${sa.n} | ${f(sa.median)} / ${f(sa.p99)} | ${sb.n} | ${f(sb.median)} / ${f(sb.p99)} | ${ratio.toFixed(2)} | ${extra}`,
        );
      line(
        'quiet ingest (POST /ingest/orders, 20 rows)',
        r.ingest,
        r.ingestP99Ratio,
        `${ph(r.a)} → ${ph(r.b)} | ${gw(r.a)} → ${gw(r.b)} | ${gc(r.a)} → ${gc(r.b)} | ${f(r.a.benchLoopP99Ms)} → ${f(r.b.benchLoopP99Ms)} |`,
      );
      line('quiet ingest, measured from its own process', r.apart, r.apartP99Ratio, '| | | |');
      line('quiet webhook delivery (enqueue → receiver)', r.webhook, r.webhookP99Ratio, '| | | |');
    });
    console.log(
      `median over ${rounds} round(s) of B/A p99: ingest ${ingestRatio.toFixed(2)} (from its own process ${apartRatio.toFixed(2)}), webhook ${webhookRatio.toFixed(2)}`,
    );
    console.log(
      `quiet failures (all phases): ${failures}; ` +
        `undelivered at the end: A ${undelivered.a}, B ${undelivered.b} ${JSON.stringify(missingRows)}; repeated deliveries: ${quietReceiver.repeats()}`,
    );
    console.log(
      `noisy: ${uploads.started} uploads of 32 MiB at ${uploadKiBps} KiB/s (answers ${JSON.stringify(Object.fromEntries(uploads.statuses))}), ` +
        `tarpit read ${tarpit.received()} requests, ${quarantined} subscription(s) quarantined, ` +
        `${relay.accepted()} SMTP connections to the trickling relay, last round ${steps?.runs ?? 0} campaign steps (longest ${((steps?.longestMs ?? 0) / 1000).toFixed(1)} s: ${JSON.stringify(Object.fromEntries(steps?.outcomes ?? []))})`,
    );
    console.log(`quiet load ${quietRps} req/s × 20 orders + 4 campaign.sent/s; 2 cores shared`);
    console.log(
      ok
        ? `RESULT: both p99 within ${FAIRNESS_LIMIT}×`
        : `RESULT: FAILED (must show: both p99 within ${FAIRNESS_LIMIT}×, no quiet failure, every quiet delivery once)`,
    );
    report(
      'fairness',
      {
        phase_s: phaseS,
        rounds,
        ok: ok ? 'yes' : 'no',
        ingest_p99_ratio: Number(ingestRatio.toFixed(2)),
        webhook_p99_ratio: Number(webhookRatio.toFixed(2)),
        ingest_apart_p99_ratio: Number(apartRatio.toFixed(2)),
        ingest_p99_ratios: Object.fromEntries(
          perRound.map((r, i) => [`r${i + 1}`, Number(r.ingestP99Ratio.toFixed(2))]),
        ),
        loadavg_a: Number(a.load[1].toFixed(2)),
        loadavg_b: Number(b.load[1].toFixed(2)),
      },
      perRound.map((r, i) => [
        `round ${i + 1}: quiet ingest / webhook p99 B/A`,
        `${r.ingestP99Ratio.toFixed(2)} / ${r.webhookP99Ratio.toFixed(2)}`,
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
