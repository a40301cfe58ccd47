// npm run bench -- fuzz [--requests N (1,000,000)] [--seed S (1)] [--concurrency C (32)]
// [--max-seconds T (3600)]: hostile requests over every route of a real gateway and projector,
// loopback only, deterministic from the seed (request i is built from (seed, i) alone, whatever the
// concurrency). Each request is a case of the hostile-input corpus (services/gateway/src/http/testing/
// hostile-corpus.ts) with fresh ids, a third of them mutated further (cut short, a byte changed, junk
// in the query, a header sent twice); every 100th is a valid canary that must be answered correctly.
// The gateway runs with HOLDFAST_TEST_MODE=1 and HOLDFAST_UNSAFE_LIFT_LIMITS=1 so that validation, not
// the 429, answers (the bench first checks that the lift is refused without test mode).
import { Agent } from 'node:http';
import { connectTile, createPixelKey } from '@holdfast/db';
import { loadGatewayConfig } from '../services/gateway/src/config.js';
import {
  answerProblems,
  HOSTILE_CORPUS,
  isLoadShedding,
  Rng,
  type BuiltCase,
  type CorpusContext,
  type Route,
} from '../services/gateway/src/http/testing/hostile-corpus.js';
import {
  rawRequest,
  type RawAnswer,
  type RawRequest,
} from '../services/gateway/src/http/testing/raw-client.js';
import { report } from './report.js';
import { RssSampler } from './rss.js';
import { benchStack, type BenchStack } from './stack.js';

const ORIGIN = 'https://shop.example.com';

/** The fixtures every request is built from. */
interface Fixtures {
  readonly ingestKey: string;
  readonly accountId: string;
  readonly zeroPartyQuery: string;
  readonly pixelKey: string;
}

/** Tallies of one run. */
class Tally {
  readonly byRoute = new Map<string, Map<number, number>>();
  readonly problems = new Map<string, number>();
  readonly examples: string[] = [];
  serverErrors = 0;
  shed = 0;
  transportErrors = 0;
  canaries = 0;
  canaryFailures = 0;
  sent = 0;

  status(route: string, status: number): void {
    const m = this.byRoute.get(route) ?? new Map<number, number>();
    m.set(status, (m.get(status) ?? 0) + 1);
    this.byRoute.set(route, m);
  }

  problem(kind: string, example: string): void {
    this.problems.set(kind, (this.problems.get(kind) ?? 0) + 1);
    if (this.examples.length < 20) this.examples.push(`${kind}: ${example}`);
  }
}

/** Request i of a run: the same (seed, i) always builds the same request. */
function rngFor(seed: number, i: number): Rng {
  return new Rng((Math.imul(seed, 0x9e3779b1) ^ Math.imul(i + 1, 0x85ebca6b)) >>> 0);
}

/** Mutations on top of a corpus case; the expectation loosens to what is still certain. */
function mutate(built: BuiltCase, rng: Rng): BuiltCase {
  const body = built.request.body === undefined ? undefined : Buffer.from(built.request.body);
  const headers = { ...built.request.headers };
  delete headers['content-length'];
  switch (rng.int(6)) {
    case 0: {
      // Cut short: never valid JSON, so never stored; any 4xx with its spec body.
      if (!body || body.length < 2) return built;
      return {
        ...built,
        request: { ...built.request, headers, body: body.subarray(0, 1 + rng.int(body.length - 1)) },
        expect: { kind: 'refused', status: 0 },
      };
    }
    case 1: {
      // One byte changed: anything may happen but a 5xx, a malformed body or a leak.
      if (!body || body.length === 0) return built;
      const copy = Buffer.from(body);
      copy[rng.int(copy.length)] = rng.int(256);
      return {
        ...built,
        request: { ...built.request, headers, body: copy },
        expect: { kind: 'answered', status: 0 },
      };
    }
    case 2: {
      // Junk in the query string (unknown parameters are ignored: same expectation).
      const sep = built.request.path.includes('?') ? '&' : '?';
      return {
        ...built,
        request: { ...built.request, path: `${built.request.path}${sep}%ZZ=%00&q=%E0%A4%A&x[y]=1` },
      };
    }
    case 3:
      // Content-Type twice (Node keeps the first): same expectation.
      return {
        ...built,
        request: {
          ...built.request,
          headers: { ...built.request.headers, 'content-type': ['application/json', 'text/html'] },
        },
      };
    default:
      return built;
  }
}

/** A valid request that must be answered correctly (every 100th request). */
function canary(
  ctx: CorpusContext,
  i: number,
): { route: Route; request: RawRequest; ok: (a: RawAnswer) => boolean } {
  const n = (i / 100) % 3;
  if (n === 0) {
    const row = {
      order_id: ctx.rng.id('canary'),
      customer_id: ctx.rng.id('c'),
      order_date: '2024-01-02T10:00:00Z',
      order_amount: 10,
      product_name: 'Tea',
      email: `${ctx.rng.id('u')}@example.com`,
    };
    return {
      route: 'POST /ingest/orders',
      request: {
        method: 'POST',
        path: '/ingest/orders',
        headers: { authorization: `Bearer ${ctx.ingestKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ orders: [row] }),
      },
      ok: (a) => a.status === 200 && (a.json as { accepted?: number }).accepted === 1,
    };
  }
  if (n === 1) {
    const event = {
      event_id: ctx.rng.uuid(),
      event_type: 'page_view',
      occurred_at: new Date().toISOString(),
      anonymous_id: 'canary',
      consent_state: 'granted',
    };
    return {
      route: 'POST /pixel/collect',
      request: {
        method: 'POST',
        path: '/pixel/collect',
        headers: { 'content-type': 'application/json', origin: ctx.origin },
        body: JSON.stringify({ key: ctx.pixelKey, events: [event] }),
      },
      ok: (a) => a.status === 204,
    };
  }
  return {
    route: 'GET /ingest/health',
    request: { method: 'GET', path: '/ingest/health', headers: { authorization: `Bearer ${ctx.ingestKey}` } },
    ok: (a) => a.status === 200 && (a.json as { ok?: boolean }).ok === true,
  };
}

async function fixtures(stack: BenchStack): Promise<Fixtures> {
  const { accountId, key } = await stack.account();
  await connectTile(stack.db, accountId, 'custom_integration');
  const zp = await connectTile(stack.db, accountId, 'zero_party');
  const pixel = await createPixelKey(stack.db, accountId, [ORIGIN]);
  return {
    ingestKey: key,
    accountId,
    zeroPartyQuery: `?account_id=${accountId}&token=${zp.token}`,
    pixelKey: pixel.key,
  };
}

/** Waits until the projector has folded everything sent before: a last order and event of the account. */
async function drain(stack: BenchStack, url: string, f: Fixtures, maxMs: number): Promise<boolean> {
  const ctx = { ...f, origin: ORIGIN, rng: new Rng(7), now: new Date() };
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
    const tally = new Tally();
    const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    const t0 = performance.now();
    const deadline = Date.now() + maxSeconds * 1000;
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < requests && Date.now() < deadline; i = next++) {
        const rng = rngFor(seed, i);
        const ctx: CorpusContext = { ...f, origin: ORIGIN, rng, now: new Date() };
        let route: string;
        let built: BuiltCase | null = null;
        let request: RawRequest;
        let ok: ((a: RawAnswer) => boolean) | null = null;
        if (i % 100 === 0) {
          const c = canary(ctx, i);
          route = c.route;
          request = c.request;
          ok = c.ok;
        } else {
          const c = HOSTILE_CORPUS[rng.int(HOSTILE_CORPUS.length)]!;
          route = c.route;
          built = c.build(ctx);
          if (rng.int(3) === 0) built = mutate(built, rng);
          request = built.request;
        }
        // A declared length that differs from the body would leave the keep-alive socket mid-body.
        const ownSocket = request.headers?.['content-length'] !== undefined;
        let answer: RawAnswer;
        try {
          answer = await rawRequest(url, request, ownSocket ? undefined : agent);
        } catch (err) {
          tally.transportErrors++;
          if (tally.examples.length < 20)
            tally.examples.push(`transport: ${route}: ${(err as Error).message}`);
          continue;
        }
        tally.sent++;
        tally.status(route, answer.status);
        if (isLoadShedding(answer)) tally.shed++;
        else if (answer.status >= 500) {
          tally.serverErrors++;
          tally.problem('5xx', `${route} ${answer.status} ${answer.text.slice(0, 120)}`);
        }
        if (ok !== null) {
          tally.canaries++;
          if (!ok(answer)) {
            tally.canaryFailures++;
            tally.problem('canary', `${route} ${answer.status} ${answer.text.slice(0, 120)}`);
          }
          continue;
        }
        for (const p of answerProblems(built!, answer)) {
          // A loosened expectation (status 0) only asks for a 4xx (refused) or anything but a 5xx.
          if (p.kind === 'status' && built!.expect.kind !== 'dropped' && built!.expect.status === 0) {
            if (built!.expect.kind === 'refused' && (answer.status < 400 || answer.status >= 500))
              tally.problem('status', `${route}: ${answer.status} for a cut-short body`);
            continue;
          }
          tally.problem(p.kind, `${route}: ${p.detail} (${answer.text.slice(0, 100)})`);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const sendSeconds = (performance.now() - t0) / 1000;
    agent.destroy();
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
