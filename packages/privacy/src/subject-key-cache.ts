import { blindIndex, type IndexKind } from './blind-index.js';
import type { SubjectKeyStore } from './subject-key-store.js';

/** A bounded map in least-recently-used order (Map keeps insertion order: a hit moves to the end). */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
  clear(): void {
    this.map.clear();
  }
  get size(): number {
    return this.map.size;
  }
}

/**
 * The cached data keys: per account, per subject id, bounded to about `max` keys, the least recently
 * used dropped first, in two generations (a hit in the young one costs one lookup per level; the old
 * generation is dropped whole when the young one is full, its hits moved to the young one first).
 * Nested rather than one LRU on `<account>/<subject>`: building that string and moving the entry on
 * every hit was a tenth of sealing's and opening's CPU (profiled), for every record.
 */
class KeyGenerations {
  private young = new Map<string, Map<string, Buffer>>();
  private old = new Map<string, Map<string, Buffer>>();
  private youngSize = 0;
  private oldSize = 0;
  private readonly half: number;
  constructor(max: number) {
    this.half = Math.max(1, Math.floor(max / 2));
  }
  get(account: string, id: string): Buffer | undefined {
    const hit = this.young.get(account)?.get(id);
    if (hit !== undefined) return hit;
    const old = this.old.get(account)?.get(id);
    if (old !== undefined) this.set(account, id, old);
    return old;
  }
  set(account: string, id: string, key: Buffer): void {
    let ids = this.young.get(account);
    if (!ids) this.young.set(account, (ids = new Map<string, Buffer>()));
    const size = ids.size;
    ids.set(id, key);
    if (ids.size === size) return;
    if (++this.youngSize < this.half) return;
    this.old = this.young;
    this.oldSize = this.youngSize;
    this.young = new Map();
    this.youngSize = 0;
  }
  clear(): void {
    this.young.clear();
    this.old = new Map();
    this.youngSize = this.oldSize = 0;
  }
  /** Keys held (a key in both generations counts twice: at most `max`). */
  get size(): number {
    return this.youngSize + this.oldSize;
  }
}

export interface SubjectKeyCacheOptions {
  /** Data keys kept (default 100,000: ~10 MB). */
  readonly maxDataKeys?: number;
  /** Index keys kept (default 10,000 accounts). */
  readonly maxIndexKeys?: number;
  /** `refreshIfDue` reads the key generation at most this often (default 1,000 ms). */
  readonly refreshEveryMs?: number;
  /** Blind indexes remembered (default 100,000 identifiers, ~20 MB), see `blindIndex`. */
  readonly maxIndexes?: number;
}

/** The subjects of sealed records, per account (lower-cased): what `refreshFor` reads with the generation. */
export function subjectsByAccount(
  records: Iterable<{
    readonly metadata: { readonly account_id: string };
    readonly personal?: { readonly subject_id: string } | null;
  }>,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of records) {
    if (!r.personal) continue;
    const account = r.metadata.account_id.toLowerCase();
    let ids = out.get(account);
    if (!ids) out.set(account, (ids = []));
    ids.push(r.personal.subject_id);
  }
  return out;
}

/**
 * An in-process cache in front of a SubjectKeyStore (gateway, projector): index keys and data keys,
 * bounded (LRU). `refresh()` once per batch (gateway request, projector chunk) reads the key
 * generation and drops every cached data key when it moved, so a destroyed key is not used past the
 * batch that was running when `destroy` committed. Index keys are never destroyed and stay cached.
 *
 * @example
 * await cache.refresh();
 * const keys = await cache.dataKeys(accountId, subjects, { create: true }); // one round trip for the misses
 */
export class SubjectKeyCache {
  private readonly data: KeyGenerations;
  private readonly index: Lru<Buffer>;
  /**
   * account → kind → value → its blind index; emptied when full or a key is destroyed. Nested rather
   * than one map on `<account> NUL <kind> NUL <value>`: building and hashing that string on every
   * lookup was most of the memory's cost (profiled in the gateway); the value strings are the
   * request's own, hashed once.
   */
  private readonly indexes = new Map<string, Map<IndexKind, Map<string, string>>>();
  private indexCount = 0;
  private readonly maxIndexes: number;
  private generation: bigint | undefined;
  private refreshedAt = -Infinity;
  private readonly refreshEveryMs: number;
  /** Round trips to the store for data keys (tests and metrics read it). */
  storeCalls = 0;

  /** The store misses go to; replaceable (the projector binds it to each chunk's transaction). */
  store: SubjectKeyStore;

  constructor(store: SubjectKeyStore, opts: SubjectKeyCacheOptions = {}) {
    this.store = store;
    this.data = new KeyGenerations(opts.maxDataKeys ?? 100_000);
    this.index = new Lru(opts.maxIndexKeys ?? 10_000);
    this.refreshEveryMs = opts.refreshEveryMs ?? 1_000;
    this.maxIndexes = opts.maxIndexes ?? 100_000;
  }

  /**
   * The blind index of one identifier of `accountId` (`blindIndex` under `indexKey`, the account's),
   * remembered: a repeat buyer's email and phone are indexed once, not on every order (three HMACs
   * per order were a third of the gateway's sealing time). Emptied when full, and on every key
   * destruction (`refresh`), so no erased person's identifier stays in memory past the next batch.
   */
  blindIndex(accountId: string, indexKey: Buffer, kind: IndexKind, value: string): string {
    let byKind = this.indexes.get(accountId);
    if (!byKind) this.indexes.set(accountId, (byKind = new Map<IndexKind, Map<string, string>>()));
    let byValue = byKind.get(kind);
    if (!byValue) byKind.set(kind, (byValue = new Map<string, string>()));
    let index = byValue.get(value);
    if (index === undefined) {
      if (this.indexCount >= this.maxIndexes) {
        this.forgetIndexes();
        return this.blindIndex(accountId, indexKey, kind, value);
      }
      byValue.set(value, (index = blindIndex(indexKey, kind, value)));
      this.indexCount++;
    }
    return index;
  }

  private forgetIndexes(): void {
    this.indexes.clear();
    this.indexCount = 0;
  }

  /** Reads the key generation; drops the cached data keys when it changed since the last refresh. */
  async refresh(): Promise<void> {
    const g = await this.store.keyGeneration();
    // Keys cached before the first refresh are of an unknown generation: dropped too.
    if (g !== this.generation) {
      this.data.clear();
      this.forgetIndexes();
    }
    this.generation = g;
  }

  /**
   * `refresh()` and the cache misses among `subjects` (per account) in one round trip per account when
   * the store can (`dataKeysAndGeneration`; else `refresh()` alone): the projector's check before a
   * chunk. Keys read with the generation are cached after it is applied, so a destroyed key is never
   * served; subjects whose cached key was dropped by a moved generation (after an erasure) are read
   * again by the `dataKeys` call that follows.
   */
  async refreshFor(subjects: ReadonlyMap<string, readonly string[]>): Promise<void> {
    const read = this.store.dataKeysAndGeneration?.bind(this.store);
    const accounts = [...subjects].filter(([, ids]) => ids.length);
    if (!read || !accounts.length) return this.refresh();
    for (const [account, ids] of accounts) {
      const missing = [...new Set(ids)].filter((id) => !this.data.get(account, id));
      const { generation, keys } = await read(account, missing);
      if (generation !== this.generation) {
        this.data.clear();
        this.forgetIndexes();
        this.generation = generation;
      }
      for (const [id, key] of keys) this.data.set(account, id, key);
    }
  }

  /**
   * `refresh()` when the last one is older than `refreshEveryMs` (the gateway: a round trip per
   * second, not per request). A key destroyed meanwhile may still seal a record for that long: such a
   * record is unreadable from the start, as if it had been ingested before the erasure.
   */
  async refreshIfDue(now = performance.now()): Promise<void> {
    if (now - this.refreshedAt < this.refreshEveryMs) return;
    this.refreshedAt = now;
    await this.refresh();
  }

  async indexKey(accountId: string): Promise<Buffer> {
    const hit = this.index.get(accountId);
    if (hit) return hit;
    const key = await this.store.indexKey(accountId);
    if (!this.store.isProvisional?.(accountId)) this.index.set(accountId, key);
    return key;
  }

  /** The subjects' keys: cached ones, the rest in one store call (absent ones are not cached). */
  async dataKeys(
    accountId: string,
    subjectIds: readonly string[],
    opts: { create: boolean },
  ): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    const missing: string[] = [];
    for (const id of new Set(subjectIds)) {
      const hit = this.data.get(accountId, id);
      if (hit) out.set(id, hit);
      else missing.push(id);
    }
    if (missing.length) {
      this.storeCalls++;
      for (const [id, key] of await this.store.dataKeys(accountId, missing, opts)) {
        this.data.set(accountId, id, key);
        out.set(id, key);
      }
    }
    return out;
  }

  /** A cached data key, without asking the store (undefined: not cached, whatever the store holds). */
  peekDataKey(accountId: string, subjectId: string): Buffer | undefined {
    return this.data.get(accountId, subjectId);
  }

  /** A cached index key, without asking the store. */
  peekIndexKey(accountId: string): Buffer | undefined {
    return this.index.get(accountId);
  }

  /** How many blind indexes are remembered. */
  get indexesRemembered(): number {
    return this.indexCount;
  }

  /** How many data keys are cached. */
  get size(): number {
    return this.data.size;
  }
}
