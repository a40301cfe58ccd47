import { rawQuery, type Pool } from '@holdfast/postgres';
import {
  browserSuppressionCheck,
  suppressionCheck,
  type BrowserSuppressionCheck,
  type SuppressedIndexes,
  type SuppressionCheck,
} from '@holdfast/domain';
import { blindIndex, type IndexKind, type SubjectKeyStore } from '@holdfast/privacy';

interface Checks {
  readonly check: SuppressionCheck | undefined;
  readonly browser: BrowserSuppressionCheck | undefined;
}

interface Entry extends Checks {
  readonly at: number;
  readonly generation: bigint;
}

/**
 * The account's suppressions (privacy.suppressions: blind indexes of identifiers, and of browsers,
 * an erasure asked never to ingest again), cached briefly per account. Invalidation on change: an erasure writes its
 * suppressions BEFORE it destroys the person's keys, and the destruction bumps the key generation, so
 * a cached entry is dropped as soon as the generation it was read under moved (one single-row read per
 * ingest call); `ttlMs` bounds the age of an entry anyway. An account without suppressions costs no
 * hashing at all (`check` is undefined).
 *
 * @example
 * const check = await suppressions.check(accountId); // undefined, or (ids) => boolean
 * classifyOrders(rows, { now, suppressed: check });
 * filterPixelEvents(events, { now, suppressed: await suppressions.browserCheck(accountId) });
 */
export class SuppressionCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly pool: Pool,
    private readonly keys: Pick<SubjectKeyStore, 'indexKey' | 'keyGeneration'> & {
      /**
       * The blind index of a value (default `blindIndex`); the gateway passes its key cache's
       * remembered one, so a browser's index computed for the check is the one sealing uses, not a
       * second HMAC per event.
       */
      readonly blindIndex?: (accountId: string, indexKey: Buffer, kind: IndexKind, value: string) => string;
    },
    private readonly ttlMs = 5_000,
    private readonly now: () => number = Date.now,
    private readonly browserGenerationMs = 1_000,
  ) {}

  /** The suppression check of the account now (undefined when it suppresses nothing). */
  async check(accountId: string): Promise<SuppressionCheck | undefined> {
    return (await this.entry(accountId)).check;
  }

  /**
   * The account's suppressed browsers, for the pixel collector (undefined when none). The key
   * generation is read at most once per `browserGenerationMs` (1 s) rather than per call: the
   * collector's requests are small and many, and a read per request cost the pixel bench ~20 % of its
   * throughput. A browser suppressed meanwhile may still be stored for that long, sealed under the key
   * its erasure destroyed (unreadable), the window the gateway's sealing keys have too
   * (`SubjectKeyCache.refreshIfDue`).
   */
  async browserCheck(accountId: string): Promise<BrowserSuppressionCheck | undefined> {
    const now = this.now();
    if (this.browserGeneration === undefined || now - this.browserGeneration.at >= this.browserGenerationMs)
      this.browserGeneration = { at: now, generation: await this.keys.keyGeneration() };
    return (await this.entry(accountId, this.browserGeneration.generation)).browser;
  }

  private browserGeneration: { readonly at: number; readonly generation: bigint } | undefined;

  private async entry(accountId: string, known?: bigint): Promise<Checks> {
    const generation = known ?? (await this.keys.keyGeneration());
    const hit = this.entries.get(accountId);
    if (hit && hit.generation === generation && this.now() - hit.at < this.ttlMs) return hit;
    const checks = await this.load(accountId);
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(accountId, { ...checks, at: this.now(), generation });
    return checks;
  }

  /** Drops every cached entry (tests; a suppression written by this process). */
  invalidate(): void {
    this.entries.clear();
    this.browserGeneration = undefined;
  }

  private async load(accountId: string): Promise<Checks> {
    const { rows } = await rawQuery<{
      kind: 'external_id' | 'email' | 'phone' | 'anonymous_id';
      identifier_index: string;
    }>(
      this.pool,
      'suppressions.of-account',
      'select kind, identifier_index from privacy.suppressions where account_id = $1',
      [accountId],
    );
    if (!rows.length) return { check: undefined, browser: undefined };
    const sets = { externalId: new Set<string>(), email: new Set<string>(), phone: new Set<string>() };
    const browsers = new Set<string>();
    for (const r of rows)
      (r.kind === 'anonymous_id'
        ? browsers
        : r.kind === 'external_id'
          ? sets.externalId
          : r.kind === 'email'
            ? sets.email
            : sets.phone
      ).add(r.identifier_index);
    const key = await this.keys.indexKey(accountId);
    const index = this.keys.blindIndex ?? ((_account, k, kind, value) => blindIndex(k, kind, value));
    return {
      check: suppressionCheck(sets satisfies SuppressedIndexes, (kind, value) =>
        index(accountId, key, kind, value),
      ),
      browser: browserSuppressionCheck(browsers, (id) => index(accountId, key, 'anonymous_id', id)),
    };
  }
}
