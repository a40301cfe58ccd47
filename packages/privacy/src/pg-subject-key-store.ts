import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { rawQuery, withTransaction, type Pool, type RawQueryable } from '@holdfast/postgres';
import { SecretUnreadableError, type SealedSecret, type SecretsKeyring } from '@holdfast/secrets';
import type { SubjectKeyStore } from './subject-key-store.js';

interface SealedRow {
  subject_id: string;
  key_id: string;
  wrapped_key: Buffer;
  ciphertext: Buffer;
}

/** The sealing context of a key: its row, so a sealed key copied to another row does not open. */
const accountContext = (accountId: string) => `holdfast.privacy.account/${accountId}`;
const subjectContext = (accountId: string, subjectId: string) =>
  `holdfast.privacy.subject/${accountId}/${subjectId}`;

const sealed = (r: Omit<SealedRow, 'subject_id'>): SealedSecret => ({
  keyId: r.key_id,
  wrappedKey: r.wrapped_key,
  ciphertext: r.ciphertext,
});

/**
 * The keys in schema `privacy` (migration 2026-11-27T00-00-privacy), each 32 random bytes wrapped
 * (AES-256-GCM) under a key derived from the KEK ring's current key (`keyring`,
 * HOLDFAST_PRIVACY_KEYS, id in `key_id`) with its row as authenticated data.
 *
 * @example
 * const store = new PgSubjectKeyStore(pool, loadPrivacyKeyring(process.env));
 * const keys = await store.dataKeys(accountId, ['e:m0Vb…'], { create: true });
 */
export class PgSubjectKeyStore implements SubjectKeyStore {
  /** Where reads and key creation run: the pool, or the client of `on(client)`. */
  private readonly q: RawQueryable;
  /** Accounts whose index key this store created inside an uncommitted transaction (`on`). */
  private readonly provisional = new Set<string>();
  private readonly wrapKeys = new Map<string, KeyObject>();

  constructor(
    private readonly pool: Pool,
    private readonly keyring: SecretsKeyring,
    client?: RawQueryable,
  ) {
    this.q = client ?? pool;
  }

  /**
   * The same store reading (and creating) through `client`, e.g. inside the projector's chunk
   * transaction: no second connection is taken from the pool while the chunk holds one (a pool of N
   * connections and N partitions in flight would otherwise wait on each other for ever). An index key
   * it creates commits with that transaction: `isProvisional` says not to cache it before then.
   */
  on(client: RawQueryable): PgSubjectKeyStore {
    return new PgSubjectKeyStore(this.pool, this.keyring, client);
  }

  /** Whether `accountId`'s index key was created by this store in a transaction not known to be committed. */
  isProvisional(accountId: string): boolean {
    return this.provisional.has(accountId);
  }

  /** The key-wrapping key derived from KEK `keyId` (HKDF, cached): the KEK itself never wraps. */
  private wrapKey(keyId: string): KeyObject {
    let k = this.wrapKeys.get(keyId);
    if (!k)
      this.wrapKeys.set(keyId, (k = createSecretKey(this.keyring.deriveKey('privacy.key-wrap', keyId).key)));
    return k;
  }

  /**
   * New keys, sealed under the current KEK: `n` random 32-byte keys, each AES-256-GCM wrapped (iv |
   * tag | ciphertext, 60 bytes, in `wrapped_key`; `ciphertext` empty marks this direct wrap) with its
   * row as authenticated data. One call to the random source for the whole batch; each wrapped key
   * written into one 60-byte buffer (no concatenations: a new subject is 2/3 of a backfill's orders).
   */
  private fresh(contexts: readonly string[]): { key: Buffer; keyId: string; wrapped: Buffer }[] {
    const keyId = this.keyring.currentKeyId;
    const wk = this.wrapKey(keyId);
    const random = randomBytes(44 * contexts.length);
    return contexts.map((context, i) => {
      // The batch's own random buffer, never reused: its slices are the keys (no copy).
      const key = random.subarray(i * 44, i * 44 + 32);
      const iv = random.subarray(i * 44 + 32, i * 44 + 44);
      const c = createCipheriv('aes-256-gcm', wk, iv);
      c.setAAD(Buffer.from(context, 'utf8'));
      const wrapped = Buffer.allocUnsafe(60);
      iv.copy(wrapped, 0);
      c.update(key).copy(wrapped, 28);
      c.final();
      c.getAuthTag().copy(wrapped, 12);
      return { key, keyId, wrapped };
    });
  }

  private open(r: Omit<SealedRow, 'subject_id'>, context: string): Buffer {
    // Sealed with SecretsKeyring's envelope (keys made before the direct wrap): still readable.
    if (r.ciphertext.length) return Buffer.from(this.keyring.open(sealed(r), context), 'base64');
    if (!this.keyring.has(r.key_id))
      throw new SecretUnreadableError(`no master key "${r.key_id}" in HOLDFAST_PRIVACY_KEYS`);
    try {
      const d = createDecipheriv('aes-256-gcm', this.wrapKey(r.key_id), r.wrapped_key.subarray(0, 12));
      d.setAAD(Buffer.from(context, 'utf8'));
      d.setAuthTag(r.wrapped_key.subarray(12, 28));
      const key = d.update(r.wrapped_key.subarray(28));
      d.final(); // GCM: checks the tag, yields nothing
      return key;
    } catch {
      throw new SecretUnreadableError(`a privacy key does not open with master key "${r.key_id}"`);
    }
  }

  /** A key wrapped again under the current KEK (rewrap), unchanged. */
  private rewrapped(r: Omit<SealedRow, 'subject_id'>, context: string): { keyId: string; wrapped: Buffer } {
    const key = this.open(r, context);
    const keyId = this.keyring.currentKeyId;
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.wrapKey(keyId), iv);
    c.setAAD(Buffer.from(context, 'utf8'));
    const ct = Buffer.concat([c.update(key), c.final()]);
    return { keyId, wrapped: Buffer.concat([iv, c.getAuthTag(), ct]) };
  }

  async indexKey(accountId: string): Promise<Buffer> {
    const context = accountContext(accountId);
    const [mine] = this.fresh([context]);
    // One statement: insert if absent, else read the existing key (the CTE's snapshot does not see a
    // concurrent winner's row: read again then).
    type Row = Omit<SealedRow, 'subject_id'> & { created: boolean };
    const { rows } = await rawQuery<Row>(
      this.q,
      'privacy.index-key',
      `with ins as (
         insert into privacy.account_keys (account_id, key_id, wrapped_key, ciphertext) values ($1, $2, $3, '')
         on conflict do nothing returning key_id, wrapped_key, ciphertext)
       select key_id, wrapped_key, ciphertext, true as created from ins
       union all select key_id, wrapped_key, ciphertext, false from privacy.account_keys where account_id = $1`,
      [accountId, mine!.keyId, mine!.wrapped],
    );
    const row =
      rows[0] ??
      (
        await rawQuery<Row>(
          this.q,
          'privacy.index-key-read',
          'select key_id, wrapped_key, ciphertext, false as created from privacy.account_keys where account_id = $1',
          [accountId],
        )
      ).rows[0];
    if (!row) throw new Error(`no index key for account ${accountId} after creating it`);
    if (!row.created) return this.open(row, context);
    if (this.q !== this.pool) this.provisional.add(accountId);
    return mine!.key;
  }

  async dataKeys(
    accountId: string,
    subjectIds: readonly string[],
    opts: { create: boolean },
  ): Promise<Map<string, Buffer>> {
    // Sorted: concurrent batched inserts lock their rows in one order, so they never deadlock.
    const ids = [...new Set(subjectIds)].sort();
    const out = new Map<string, Buffer>();
    if (!ids.length) return out;
    let rows: (SealedRow & { created?: boolean })[];
    let fresh: { key: Buffer; keyId: string; wrapped: Buffer }[] = [];
    if (opts.create) {
      fresh = this.fresh(ids.map((id) => subjectContext(accountId, id)));
      // The keys this statement created come back as their ids only (their plaintext is `fresh`).
      ({ rows } = await rawQuery<SealedRow & { created: boolean }>(
        this.q,
        'privacy.data-keys-create',
        `with ins as (
           insert into privacy.subject_keys (account_id, subject_id, key_id, wrapped_key, ciphertext)
           select $1, k.s, $3, k.w, '' from unnest($2::text[], $4::bytea[]) k(s, w)
           on conflict do nothing returning subject_id)
         select subject_id, null as key_id, null::bytea as wrapped_key, null::bytea as ciphertext, true as created
           from ins
         union all select subject_id, key_id, wrapped_key, ciphertext, false from privacy.subject_keys
          where account_id = $1 and subject_id = any($2::text[])`,
        [accountId, ids, this.keyring.currentKeyId, fresh.map((f) => f.wrapped)],
      ));
      // A key a concurrent caller inserted after this statement's snapshot: read it now.
      const seen = new Set(rows.map((r) => r.subject_id));
      const late = ids.filter((id) => !seen.has(id));
      if (late.length) rows = rows.concat(await this.read(accountId, late));
    } else rows = await this.read(accountId, ids);
    const made = new Map(ids.map((id, i) => [id, fresh[i]?.key]));
    for (const r of rows)
      out.set(
        r.subject_id,
        r.created ? made.get(r.subject_id)! : this.open(r, subjectContext(accountId, r.subject_id)),
      );
    return out;
  }

  private async read(accountId: string, ids: readonly string[]): Promise<SealedRow[]> {
    const { rows } = await rawQuery<SealedRow>(
      this.q,
      'privacy.data-keys',
      `select subject_id, key_id, wrapped_key, ciphertext from privacy.subject_keys
        where account_id = $1 and subject_id = any($2::text[])`,
      [accountId, ids],
    );
    return rows;
  }

  async destroy(accountId: string, subjectIds: readonly string[], erasureId: string): Promise<number> {
    const ids = [...new Set(subjectIds)];
    return withTransaction(this.pool, async (c) => {
      const { rowCount } = await rawQuery(
        c,
        'privacy.destroy-keys',
        'delete from privacy.subject_keys where account_id = $1 and subject_id = any($2::text[])',
        [accountId, ids],
      );
      await rawQuery(
        c,
        'privacy.record-erased',
        `insert into privacy.erased_subjects (account_id, subject_id, erasure_id)
         select $1, unnest($2::text[]), $3 on conflict do nothing`,
        [accountId, ids, erasureId],
      );
      await rawQuery(
        c,
        'privacy.bump-generation',
        'update privacy.key_generation set generation = generation + 1',
      );
      return rowCount ?? 0;
    });
  }

  async dataKeysAndGeneration(
    accountId: string,
    subjectIds: readonly string[],
  ): Promise<{ generation: bigint; keys: Map<string, Buffer> }> {
    const ids = [...new Set(subjectIds)];
    // One statement, one snapshot: `destroy` deletes keys and bumps the generation in one transaction.
    const { rows } = await rawQuery<SealedRow & { generation: string | null }>(
      this.q,
      'privacy.data-keys-generation',
      `select null::text as subject_id, null::text as key_id, null::bytea as wrapped_key,
              null::bytea as ciphertext, generation::text as generation from privacy.key_generation
       union all
       select subject_id, key_id, wrapped_key, ciphertext, null from privacy.subject_keys
        where account_id = $1 and subject_id = any($2::text[])`,
      [accountId, ids],
    );
    const keys = new Map<string, Buffer>();
    let generation = 0n;
    for (const r of rows) {
      if (r.generation !== null) generation = BigInt(r.generation);
      else keys.set(r.subject_id, this.open(r, subjectContext(accountId, r.subject_id)));
    }
    return { generation, keys };
  }

  async keyGeneration(): Promise<bigint> {
    const { rows } = await rawQuery<{ generation: string }>(
      this.q,
      'privacy.key-generation',
      'select generation::text from privacy.key_generation',
    );
    return BigInt(rows[0]?.generation ?? '0');
  }

  /** How many index and subject keys are wrapped under each KEK id (what a rotation still has to do). */
  async keysByKek(): Promise<Map<string, number>> {
    const { rows } = await rawQuery<{ key_id: string; n: number }>(
      this.q,
      'privacy.keys-by-kek',
      `select key_id, count(*)::int as n from (
         select key_id from privacy.account_keys union all select key_id from privacy.subject_keys) k
       group by key_id order by key_id`,
    );
    return new Map(rows.map((r) => [r.key_id, r.n]));
  }

  /**
   * KEK rotation: re-seals every key not sealed under the current KEK (the first of
   * HOLDFAST_PRIVACY_KEYS) and returns how many; the keys themselves, so every record, are unchanged.
   * After it, the older KEKs can be removed from the ring. Idempotent; in batches of `batch` rows.
   */
  async rewrap(batch = 500): Promise<number> {
    const current = this.keyring.currentKeyId;
    let total = 0;
    for (const [table, key] of [
      ['account_keys', 'account_id'],
      ['subject_keys', 'account_id, subject_id'],
    ] as const) {
      for (;;) {
        const n = await withTransaction(this.pool, async (c) => {
          const { rows } = await rawQuery<SealedRow & { account_id: string }>(
            c,
            `privacy.rewrap-${table.replace('_', '-')}`,
            `select ${key}, key_id, wrapped_key, ciphertext from privacy.${table}
              where key_id <> $1 limit $2 for update skip locked`,
            [current, batch],
          );
          for (const r of rows) {
            const context =
              table === 'subject_keys'
                ? subjectContext(r.account_id, r.subject_id)
                : accountContext(r.account_id);
            const w = this.rewrapped(r, context);
            await rawQuery(
              c,
              'privacy.rewrap-update',
              `update privacy.${table} set key_id = $1, wrapped_key = $2, ciphertext = ''
                where account_id = $3 ${table === 'subject_keys' ? 'and subject_id = $4' : ''}`,
              table === 'subject_keys'
                ? [w.keyId, w.wrapped, r.account_id, r.subject_id]
                : [w.keyId, w.wrapped, r.account_id],
            );
          }
          return rows.length;
        });
        total += n;
        if (n < batch) break;
      }
    }
    return total;
  }
}
