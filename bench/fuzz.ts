// npm run bench -- fuzz [--requests N (1,000,000)] [--seed S (1)] [--concurrency C (32)]
// [--accounts A (4)] [--max-seconds T (3600)] [--stop-at ISO-time] [--progress-seconds P (60)]:
// hostile requests over
// every route of a real gateway and projector (processes), loopback only, deterministic from the seed
// (services/gateway/src/http/testing/fuzz-run.ts: request i is built from (seed, i) alone). The
// gateway runs with HOLDFAST_TEST_MODE=1 and HOLDFAST_UNSAFE_LIFT_LIMITS=1 so that validation, not
// the 429, answers (the bench first checks that the lift is refused without test mode). Reports
// statuses per route, 5xx, wrongly accepted, malformed error bodies, leaks, canaries (each accepted
// one looked up in the read models), dead letters in the table AND on the holdfast.dlq topic once
// the projector drained, and peak RSS. A progress line every P seconds gives the same figures so far,
// so that a run stopped early still tells what it showed.
import { loadavg } from 'node:os';
import { connectTile, createPixelKey } from '@holdfast/control-plane';
import { Kafka, logLevel } from 'kafkajs';
import { topicName } from '@holdfast/kafka';
import { countTopicRecords } from '@holdfast/testing';
import { loadGatewayConfig } from '../services/gateway/src/config.js';
import {
  canary,
  FUZZ_ORIGIN,
  FuzzTally,
  runFuzz,
  type FuzzFixtures,
  Rng,
  rawRequest,
} from '@holdfast/testing/hostile';
import { report } from './report.js';
import { rssMb, RssSampler } from './rss.js';
import { benchStack, type BenchStack } from './stack.js';

async function fixtures(stack: BenchStack): Promise<FuzzFixtures> {
  const { accountId, key } = await stack.account();
  await connectTile(stack.db, accountId, 'custom_integration');
  const zp = await connectTile(stack.db, accountId, 'zero_party');
  const pixel = await createPixelKey(stack.db, accountId, [FUZZ_ORIGIN]);
  return {
    ingestKey: key,
    accountId,
    zeroPartyQuery: `?account_id=${accountId}&token=${zp.token}`,
    pixelKey: pixel.key,
  };
}

/** Accepted canaries that are not in the read models (accepted, then lost). */
async function lostCanaries(stack: BenchStack, tally: FuzzTally): Promise<number> {
  let lost = 0;
  for (const [accountId, { orderIds, eventIds }] of tally.acceptedCanaries) {
    const { rows } = await stack.pool.query<{ o: number; p: number }>(
      `select (select count(distinct order_id)::int from read_models.orders
                where account_id = $1 and order_id = any($2::text[])) as o,
              (select count(distinct event_id)::int from read_models.pixel_events
                where account_id = $1 and event_id = any($3::uuid[])) as p`,
      [accountId, orderIds, eventIds],
    );
    lost += orderIds.length - rows[0]!.o + (eventIds.length - rows[0]!.p);
  }
  return lost;
}

/** Waits until the projector has folded everything sent before: a last order and event of the account. */
async function drain(stack: BenchStack, url: string, f: FuzzFixtures, maxMs: number): Promise<boolean> {
  const ctx = { ...f, origin: FUZZ_ORIGIN, rng: new Rng(7), now: new Date() };
  const order = canary(ctx, 0);
  const pixel = canary(ctx, 100);
  const orderId = (JSON.parse(String(order.request.body)) as { orders: { order_id: string }[] }).orders[0]!
    .order_id;
  const eventId = (JSON.parse(String(pixel.request.body)) as { events: { event_id: string }[] }).events[0]!
    .event_id;
  await rawRequest(url, order.request);
  await rawRequest(url, pixel.request);
  const until = Date.now() + maxMs;
  while (Date.now() < until) {
    const { rows } = await stack.pool.query<{ o: number; p: number }>(
      `select (select count(*)::int from read_models.orders where account_id = $1 and order_id = $2) as o,
              (select count(*)::int from read_models.pixel_events where account_id = $1 and event_id = $3::uuid) as p`,
      [f.accountId, orderId, eventId],
    );
    if (rows[0]!.o === 1 && rows[0]!.p === 1) return true;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return false;
}

export async function benchFuzz(args: Record<string, string>): Promise<void> {
  const requests = Number(args.requests ?? 1_000_000);
  const seed = Number(args.seed ?? 1);
  const concurrency = Number(args.concurrency ?? 32);
  const accountCount = Number(args.accounts ?? 4);
  const maxSeconds = Number(args['max-seconds'] ?? 3600);
  // An absolute bound too: a run queued behind the bench lock still ends by then.
  const stopAt = args['stop-at'] ? Date.parse(args['stop-at']) : Infinity;
  const progressSeconds = Number(args['progress-seconds'] ?? 60);
  // The lift is refused outside test mode: the gateway would not start.
  let refusedWithoutTestMode = false;
  try {
    loadGatewayConfig({ DATABASE_URL: 'postgres://x', HOLDFAST_UNSAFE_LIFT_LIMITS: '1' });
  } catch {
    refusedWithoutTestMode = true;
  }
  if (!refusedWithoutTestMode) throw new Error('HOLDFAST_UNSAFE_LIFT_LIMITS was honoured without test mode');

  const stack = await benchStack(Number(args.partitions ?? 4));
  try {
    await stack.startService('projector');
    const port = await stack.startService('gateway', {
      HOLDFAST_TEST_MODE: '1',
      HOLDFAST_UNSAFE_LIFT_LIMITS: '1',
    });
    const url = `http://127.0.0.1:${port}`;
    const accounts: FuzzFixtures[] = [];
    for (let a = 0; a < accountCount; a++) accounts.push(await fixtures(stack));
    // The dead-letter topic is read back through a plain kafkajs client, independent of the adapter.
    const kafka = new Kafka({
      clientId: 'bench-fuzz',
      brokers: stack.env.KAFKA_BROKERS!.split(','),
      logLevel: logLevel.NOTHING,
    });
    const dlqTopic = topicName(stack.prefix, 'holdfast.dlq');
    const deadLetterRows = async () =>
      (await stack.pool.query<{ n: number }>('select count(*)::int as n from read_models.dead_letters'))
        .rows[0]!.n;
    const sampler = new RssSampler(stack.pids()).start();
    const t0 = performance.now();
    const tally = new FuzzTally();
    let gatewayPeak = 0;
    const gatewayPids = stack.pids().gateway!;
    // Progress: the figures so far (canaries lost so far count those not yet folded too: the final
    // figure, after the drain, is the one that counts).
    const progress = setInterval(() => {
      void (async () => {
        const rss = Math.round(gatewayPids().reduce((s, p) => s + rssMb(p), 0));
        gatewayPeak = Math.max(gatewayPeak, rss);
        const secs = (performance.now() - t0) / 1000;
        const accepted = [...tally.acceptedCanaries.values()].reduce(
          (n, a) => n + a.orderIds.length + a.eventIds.length,
          0,
        );
        console.error(
          `[fuzz] ${new Date().toISOString()} sent ${tally.sent} (${Math.round(tally.sent / secs)}/s) ` +
            `5xx ${tally.serverErrors} shed ${tally.shed} transport ${tally.transportErrors} ` +
            `problems ${JSON.stringify(Object.fromEntries(tally.problems))} canaries ${tally.canaries}/` +
            `${tally.canaryFailures} failed, accepted ${accepted}, not yet in read models ` +
            `${await lostCanaries(stack, tally)} dead letters ${await deadLetterRows()} ` +
            `holdfast.dlq ${await countTopicRecords(kafka, dlqTopic, { maxMs: 5_000 })} ` +
            `gateway RSS ${rss} MiB (peak ${gatewayPeak}) load ${loadavg()[0]!.toFixed(2)}`,
        );
      })().catch((err: unknown) => console.error(`[fuzz] progress failed: ${(err as Error).message}`));
    }, progressSeconds * 1000);
    try {
      await runFuzz({
        url,
        fixtures: accounts,
        requests,
        seed,
        concurrency,
        deadline: Math.min(Date.now() + maxSeconds * 1000, stopAt),
        tally,
      });
    } finally {
      clearInterval(progress);
    }
    const sendSeconds = (performance.now() - t0) / 1000;
    let drained = true;
    for (const a of accounts) drained = (await drain(stack, url, a, 600_000)) && drained;
    const peaks = sampler.stop();
    const deadLetters = await deadLetterRows();
    // Read apart from the table: a letter on the topic that never reached the table counts too.
    const dlqRecords = await countTopicRecords(kafka, dlqTopic);
    const lost = await lostCanaries(stack, tally);
    const acceptedCanaries = [...tally.acceptedCanaries.values()].reduce(
      (n, a) => n + a.orderIds.length + a.eventIds.length,
      0,
    );
    const statuses = Object.fromEntries(
      [...tally.byRoute].map(([r, m]) => [r, Object.fromEntries([...m].sort((a, b) => a[0] - b[0]))]),
    );
    const problems = Object.fromEntries(tally.problems);
    report(
      'fuzz',
      {
        requests: tally.sent,
        seed,
        concurrency,
        accounts: accountCount,
        seconds: Math.round(sendSeconds),
        requests_per_s: Math.round(tally.sent / sendSeconds),
        server_errors: tally.serverErrors,
        load_shed: tally.shed,
        transport_errors: tally.transportErrors,
        wrongly_accepted: tally.problems.get('wrongly_accepted') ?? 0,
        malformed_bodies: tally.problems.get('body_shape') ?? 0,
        leaks: tally.problems.get('leak') ?? 0,
        status_mismatches: tally.problems.get('status') ?? 0,
        canaries: tally.canaries,
        canary_failures: tally.canaryFailures,
        canaries_stored: acceptedCanaries,
        accepted_then_lost: lost,
        dead_letters: deadLetters,
        dlq_topic_records: dlqRecords,
        drained: drained ? 'yes' : 'no',
        lift_refused_without_test_mode: refusedWithoutTestMode ? 'yes' : 'no',
        gateway_peak_rss_mb: peaks.gateway ?? 0,
        peak_rss_mb: peaks,
        statuses: JSON.stringify(statuses),
        problems: JSON.stringify(problems),
      },
      [
        ['requests sent (loopback) / seconds', `${tally.sent} / ${Math.round(sendSeconds)}`],
        ['5xx (load shedding with Retry-After aside)', tally.serverErrors],
        ['load shed (429/503 with Retry-After)', tally.shed],
        ['wrongly accepted', tally.problems.get('wrongly_accepted') ?? 0],
        ['error bodies not in the spec shape', tally.problems.get('body_shape') ?? 0],
        ['leaks (email/phone echoed, stack trace, SQL)', tally.problems.get('leak') ?? 0],
        ['other status mismatches', tally.problems.get('status') ?? 0],
        ['canaries (valid, every 100th) / failed', `${tally.canaries} / ${tally.canaryFailures}`],
        ['accepted canary records / not in the read models', `${acceptedCanaries} / ${lost}`],
        ['dead letters after the projector drained', `${deadLetters} (drained: ${drained ? 'yes' : 'no'})`],
        ['records on holdfast.dlq (read apart)', dlqRecords],
        ['gateway peak RSS MiB', `${peaks.gateway ?? 0} (limit ${1024})`],
        ['transport errors', tally.transportErrors],
        ['statuses per route', JSON.stringify(statuses)],
        ['examples', tally.examples.join(' | ') || 'none'],
      ],
    );
    if ((peaks.gateway ?? 0) > 1024) console.error('gateway RSS went over 1 GiB');
  } finally {
    await stack.close();
  }
}
