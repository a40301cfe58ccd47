// npm run bench -- fuzz [--requests N (1,000,000)] [--seed S (1)] [--concurrency C (32)]
// [--max-seconds T (3600)]: hostile requests over every route of a real gateway and projector
// (processes), loopback only, deterministic from the seed (services/gateway/src/http/testing/
// fuzz-run.ts: request i is built from (seed, i) alone). The gateway runs with HOLDFAST_TEST_MODE=1
// and HOLDFAST_UNSAFE_LIFT_LIMITS=1 so that validation, not the 429, answers (the bench first checks
// that the lift is refused without test mode). Reports statuses per route, 5xx, wrongly accepted,
// malformed error bodies, leaks, canaries, dead letters once the projector drained, and peak RSS.
import { connectTile, createPixelKey } from '@holdfast/db';
import { loadGatewayConfig } from '../services/gateway/src/config.js';
import {
  canary,
  FUZZ_ORIGIN,
  runFuzz,
  type FuzzFixtures,
} from '../services/gateway/src/http/testing/fuzz-run.js';
import { Rng } from '../services/gateway/src/http/testing/hostile-corpus.js';
import { rawRequest } from '../services/gateway/src/http/testing/raw-client.js';
import { report } from './report.js';
import { RssSampler } from './rss.js';
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
  const maxSeconds = Number(args['max-seconds'] ?? 3600);
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
    const f = await fixtures(stack);
    const sampler = new RssSampler(stack.pids()).start();
    const t0 = performance.now();
    const tally = await runFuzz({
      url,
      fixtures: f,
      requests,
      seed,
      concurrency,
      deadline: Date.now() + maxSeconds * 1000,
    });
    const sendSeconds = (performance.now() - t0) / 1000;
    const drained = await drain(stack, url, f, 600_000);
    const peaks = sampler.stop();
    const { rows } = await stack.pool.query<{ n: number }>(
      'select count(*)::int as n from read_models.dead_letters',
    );
    const deadLetters = rows[0]!.n;
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
        dead_letters: deadLetters,
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
        ['dead letters after the projector drained', `${deadLetters} (drained: ${drained ? 'yes' : 'no'})`],
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
