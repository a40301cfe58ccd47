// The console as a client of the public read API (docs/read-api.md): what the API serves — the
// dashboards' reports — the console fetches from it over HTTP like any integrator, with a read key of
// its own per account that stops by itself (`mintExpiringReadKey`, 10 minutes; a new one is minted
// after 8). No lasting key is kept anywhere; the process forgets them at exit.
import { mintExpiringReadKey } from '@holdfast/control-plane';
import type { Database } from '@holdfast/postgres';
import type { Kysely } from 'kysely';

/** How long the console's read key works, and when a fresh one is minted before that. */
export const READ_KEY_TTL_S = 600;
const REMINT_BEFORE_MS = 120_000;

/** A read the API refused or failed: `status` is its HTTP status (0: not reached). */
export class ReadApiError extends Error {
  override readonly name = 'ReadApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly retriable: boolean,
  ) {
    super(message);
  }
}

export class ReadApiClient {
  private readonly keys = new Map<string, { key: string; renewAt: number }>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly baseUrl: string,
    private readonly now: () => Date,
    private readonly timeoutMs = 10_000,
  ) {}

  private async keyFor(accountId: string, fresh: boolean): Promise<string> {
    const held = this.keys.get(accountId);
    if (held && !fresh && held.renewAt > this.now().getTime()) return held.key;
    const minted = await mintExpiringReadKey(this.db, accountId, READ_KEY_TTL_S, this.now());
    this.keys.set(accountId, { key: minted.key, renewAt: minted.expiresAt.getTime() - REMINT_BEFORE_MS });
    return minted.key;
  }

  /** GET `path` of the read API as `accountId`; the parsed JSON. A refused key is re-minted once. */
  async get<T>(accountId: string, path: string): Promise<T> {
    for (const fresh of [false, true]) {
      const key = await this.keyFor(accountId, fresh);
      let r: Response;
      try {
        r = await fetch(`${this.baseUrl}${path}`, {
          headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (err) {
        throw new ReadApiError(0, `the read API did not answer: ${(err as Error).name}`, true);
      }
      if (r.status === 401 && !fresh) continue;
      if (!r.ok)
        throw new ReadApiError(
          r.status,
          `the read API answered ${r.status}`,
          r.status >= 500 || r.status === 429,
        );
      return (await r.json()) as T;
    }
    throw new ReadApiError(401, 'the read API refused a fresh key', false);
  }
}
