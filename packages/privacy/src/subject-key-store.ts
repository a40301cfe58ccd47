/**
 * Where the keys of personal data live: the port a KMS could implement (PgSubjectKeyStore keeps them
 * in PostgreSQL, sealed under the KEK ring). Callers cache (SubjectKeyCache) and learn of destructions
 * through `keyGeneration`.
 */
export interface SubjectKeyStore {
  /**
   * The account's blind-index key (32 bytes), created on first use. Never destroyed: an index alone
   * reveals nothing, and erasing a person must not change everyone else's indexes.
   */
  indexKey(accountId: string): Promise<Buffer>;
  /**
   * The data keys of `subjectIds` (one round trip). With `create`, a subject without a key gets a new
   * one (concurrent callers agree on one); that includes a subject whose key was destroyed: a person
   * who comes back after an erasure is a new subject whose old records stay unreadable. Without
   * `create`, a subject without a key (never seen, or shredded) is absent from the map.
   */
  dataKeys(
    accountId: string,
    subjectIds: readonly string[],
    opts: { create: boolean },
  ): Promise<Map<string, Buffer>>;
  /**
   * Destroys the subjects' keys and records them in `erased_subjects` under `erasureId`, bumping the
   * key generation in the same transaction; resolves with how many keys were destroyed.
   */
  destroy(accountId: string, subjectIds: readonly string[], erasureId: string): Promise<number>;
  /** A counter that changes whenever a key is destroyed: a cache drops its data keys when it moves. */
  keyGeneration(): Promise<bigint>;
  /**
   * Optional: `keyGeneration` and `dataKeys(…, {create: false})` read together, in ONE snapshot (one
   * round trip instead of two per projector chunk): a key destroyed before it is absent and the
   * generation already moved, never one without the other.
   */
  dataKeysAndGeneration?(
    accountId: string,
    subjectIds: readonly string[],
  ): Promise<{ generation: bigint; keys: Map<string, Buffer> }>;
  /**
   * Optional: whether the index key just returned for `accountId` was created in a transaction that
   * may still roll back (a cache must not keep it).
   */
  isProvisional?(accountId: string): boolean;
}
