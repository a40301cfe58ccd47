// Test and benchmark support (not shipped behaviour): the fuzz run shared by `npm run bench -- fuzz`
// (10^6 requests against gateway processes) and the integration tier (a short run in-process). Request
// i is built from (seed, i) alone, whatever the concurrency: a case of the hostile-input corpus with
// fresh ids, a third of them mutated further (cut short, a byte changed, junk in the query, a header
// twice); every 100th request is a valid canary that must be answered correctly.
import { Agent } from 'node:http';
import {
  answerProblems,
  HOSTILE_CORPUS,
  isLoadShedding,
  Rng,
  type BuiltCase,
  type CorpusContext,
  type Route,
} from './hostile-corpus.js';
import { rawRequest, type RawAnswer, type RawRequest } from './raw-client.js';

/** The allowed origin of the run's pixel key. */
export const FUZZ_ORIGIN = 'https://shop.example.com';

/** The fixtures every request is built from. */
export interface FuzzFixtures {
  readonly ingestKey: string;
  readonly accountId: string;
  readonly zeroPartyQuery: string;
  readonly pixelKey: string;
}

/** Tallies of one run. */
export class FuzzTally {
  readonly byRoute = new Map<string, Map<number, number>>();
  readonly problems = new Map<string, number>();
  readonly examples: string[] = [];
  serverErrors = 0;
  shed = 0;
  transportErrors = 0;
  canaries = 0;
  canaryFailures = 0;
  sent = 0;
  /** What the accepted canaries wrote, per account: each must reach the read models. */
  readonly acceptedCanaries = new Map<string, { orderIds: string[]; eventIds: string[] }>();

  canaryAccepted(accountId: string, kind: 'order' | 'event', id: string): void {
    const a = this.acceptedCanaries.get(accountId) ?? { orderIds: [], eventIds: [] };
    (kind === 'order' ? a.orderIds : a.eventIds).push(id);
    this.acceptedCanaries.set(accountId, a);
  }

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
      // Cut short: never valid JSON, so never stored; any 4xx with its spec body. A case answered
      // without a record may be one whose body is never read (a GET, POST /ingest/sync): anything
      // but a 5xx.
      if (!body || body.length < 2) return built;
      return {
        ...built,
        request: { ...built.request, headers, body: body.subarray(0, 1 + rng.int(body.length - 1)) },
        expect: { kind: built.expect.kind === 'answered' ? 'answered' : 'refused', status: 0 },
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
export function canary(
  ctx: CorpusContext,
  i: number,
): {
  route: Route;
  request: RawRequest;
  ok: (a: RawAnswer) => boolean;
  /** What an accepted canary stored (none for the health check). */
  stores?: { kind: 'order' | 'event'; id: string };
} {
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
      stores: { kind: 'order', id: row.order_id },
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
      stores: { kind: 'event', id: event.event_id },
    };
  }
  return {
    route: 'GET /ingest/health',
    request: { method: 'GET', path: '/ingest/health', headers: { authorization: `Bearer ${ctx.ingestKey}` } },
    ok: (a) => a.status === 200 && (a.json as { ok?: boolean }).ok === true,
  };
}

/** What a run needs: the gateway, the fixtures of one account or more, and its bounds. */
export interface FuzzOptions {
  readonly url: string;
  /**
   * Request i goes to account i mod n (canary k to account k mod n): an account's records share one
   * partition, so several accounts let the log's partitions work in parallel.
   */
  readonly fixtures: FuzzFixtures | readonly FuzzFixtures[];
  readonly requests: number;
  readonly seed: number;
  readonly concurrency: number;
  /** Stop sending at this time (epoch ms), however many requests are left. */
  readonly deadline: number;
  /** The tally to count into (the bench reads it while the run goes on, for progress). */
  readonly tally?: FuzzTally;
}

/** Sends the run's requests and tallies every answer. */
export async function runFuzz(o: FuzzOptions): Promise<FuzzTally> {
  const { url, requests, seed, concurrency, deadline } = o;
  const accounts: readonly FuzzFixtures[] = Array.isArray(o.fixtures)
    ? o.fixtures
    : [o.fixtures as FuzzFixtures];
  const tally = o.tally ?? new FuzzTally();
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < requests && Date.now() < deadline; i = next++) {
      const rng = rngFor(seed, i);
      const f = accounts[(i % 100 === 0 ? i / 100 : i) % accounts.length]!;
      const ctx: CorpusContext = { ...f, origin: FUZZ_ORIGIN, rng, now: new Date() };
      let route: string;
      let built: BuiltCase | null = null;
      let request: RawRequest;
      let ok: ((a: RawAnswer) => boolean) | null = null;
      let stores: { kind: 'order' | 'event'; id: string } | undefined;
      if (i % 100 === 0) {
        const c = canary(ctx, i);
        route = c.route;
        request = c.request;
        ok = c.ok;
        stores = c.stores;
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
        if (tally.examples.length < 20) tally.examples.push(`transport: ${route}: ${(err as Error).message}`);
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
        } else if (stores) tally.canaryAccepted(f.accountId, stores.kind, stores.id);
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
  agent.destroy();
  return tally;
}
