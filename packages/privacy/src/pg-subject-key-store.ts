import { randomBytes } from 'node:crypto';
import {
  rawQuery,
  withTransaction,
  type Pool,
  type RawQueryable,
  type SealedSecret,
  type SecretsKeyring,
} from '@holdfast/db';
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
 * The keys in schema `privacy` (migration 2026-11-27T00-00-privacy), each 32 random bytes sealed
 * under the KEK ring (`keyring`, HOLDFAST_PRIVACY_KEYS) with its row as context.
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

  private seal(context: string): { key: Buffer; s: SealedSecret } {
    const key = randomBytes(32);
    return { key, s: this.keyring.seal(key.toString('base64'), context) };
  }

  private open(r: Omit<SealedRow, 'subject_id'>, context: string): Buffer {
    return Buffer.from(this.keyring.open(sealed(r), context), 'base64');
  }

  async indexKey(accountId: string): Promise<Buffer> {
    const { s } = this.seal(accountContext(accountId));
    // One statement: insert if absent, else read the existing key (the CTE's snapshot does not see a
    // concurrent winner's row: read again then).
    const { rows } = await rawQuery<Omit<SealedRow, 'subject_id'> & { created: boolean }>(
      this.q,
      'privacy.index-key',
      `with ins as (
         insert into privacy.account_keys (account_id, key_id, wrapped_key, ciphertext) values ($1, $2, $3, $4)
         on conflict do nothing returning key_id, wrapped_key, ciphertext)
       select key_id, wrapped_key, ciphertext, true as created from ins
       union all select key_id, wrapped_key, ciphertext, false from privacy.account_keys where account_id = $1`,
      [accountId, s.keyId, s.wrappedKey, s.ciphertext],
    );
    const row =
      rows[0] ??
      (
        await rawQuery<Omit<SealedRow, 'subject_id'> & { created: boolean }>(
          this.q,
          'privacy.index-key-read',
          'select key_id, wrapped_key, ciphertext, false as created from privacy.account_keys where account_id = $1',
          [accountId],
        )
      ).rows[0];
    if (!row) throw new Error(`no index key for account ${accountId} after creating it`);
    if (row.created && this.q !== this.pool) this.provisional.add(accountId);
    return this.open(row, accountContext(accountId));
  }

  async dataKeys(
    accountId: string,
    subjectIds: readonly string[],
    opts: { create: boolean },
  ): Promise<Map<string, Buffer>> {
    const ids = [...new Set(subjectIds)];
    const out = new Map<string, Buffer>();
    if (!ids.length) return out;
    let rows: SealedRow[];
    if (opts.create) {
      const fresh = ids.map((id) => this.seal(subjectContext(accountId, id)).s);
      ({ rows } = await rawQuery<SealedRow>(
        this.q,
        'privacy.data-keys-create',
        `with ins as (
           insert into privacy.subject_keys (account_id, subject_id, key_id, wrapped_key, ciphertext)
           select $1, * from unnest($2::text[], $3::text[], $4::bytea[], $5::bytea[])
           on conflict do nothing returning subject_id, key_id, wrapped_key, ciphertext)
         select * from ins
         union all select subject_id, key_id, wrapped_key, ciphertext from privacy.subject_keys
          where account_id = $1 and subject_id = any($2::text[])`,
        [
          accountId,
          ids,
          fresh.map((s) => s.keyId),
          fresh.map((s) => s.wrappedKey),
          fresh.map((s) => s.ciphertext),
        ],
      ));
      // A key a concurrent caller inserted after this statement's snapshot: read it now.
      const seen = new Set(rows.map((r) => r.subject_id));
      const late = ids.filter((id) => !seen.has(id));
      if (late.length) rows = rows.concat(await this.read(accountId, late));
    } else rows = await this.read(accountId, ids);
    for (const r of rows) out.set(r.subject_id, this.open(r, subjectContext(accountId, r.subject_id)));
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

  async keyGeneration(): Promise<bigint> {
    const { rows } = await rawQuery<{ generation: string }>(
      this.q,
      'privacy.key-generation',
      'select generation::text from privacy.key_generation',
    );
    return BigInt(rows[0]?.generation ?? '0');
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
            const s = this.keyring.rewrap(sealed(r));
            await rawQuery(
              c,
              'privacy.rewrap-update',
              `update privacy.${table} set key_id = $1, wrapped_key = $2
                where account_id = $3 ${table === 'subject_keys' ? 'and subject_id = $4' : ''}`,
              table === 'subject_keys'
                ? [s.keyId, s.wrappedKey, r.account_id, r.subject_id]
                : [s.keyId, s.wrappedKey, r.account_id],
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
