import {
  defaultPrivacyKeyring,
  openPersonal,
  openPersonalCached,
  PersonalDataUnreadableError,
  PgSubjectKeyStore,
  SubjectKeyCache,
  subjectsByAccount,
  type OpenedRecord,
  type PersonalEvent,
} from '@holdfast/privacy';
import type { SecretsKeyring } from '@holdfast/secrets';
import { PoisonRecordError, type ProjectedEvent, type ProjectionTx } from '../../projection.js';
import type { CommerceEventName, OpenedCommerceEvent } from './commerce-chunk.js';

/** The chunk's records with their opened personal data, in the same order. */
function withOpened(
  events: readonly ProjectedEvent<CommerceEventName>[],
  opened: readonly OpenedRecord[],
): OpenedCommerceEvent[] {
  return events.map(
    (e, i) =>
      ({
        ...e,
        value: opened[i]!.value,
        indexes: opened[i]!.indexes,
        subjectId: opened[i]!.subjectId,
        readable: opened[i]!.readable,
      }) as OpenedCommerceEvent,
  );
}

const personalOf = (events: readonly ProjectedEvent<CommerceEventName>[]) =>
  events as readonly PersonalEvent[];

/**
 * Decrypts a chunk's personal data (`openPersonal`: one key round trip per account for its cache
 * misses), after checking the key generation once, so a key destroyed before this chunk is not used.
 * A ciphertext that does not open is a poison record (the runner isolates and dead-letters it).
 */
export async function openCommerce(
  keys: SubjectKeyCache,
  events: readonly ProjectedEvent<CommerceEventName>[],
): Promise<OpenedCommerceEvent[]> {
  // The generation and the chunk's uncached keys in one round trip (per account).
  await keys.refreshFor(subjectsByAccount(events.map((e) => e.value)));
  try {
    return withOpened(events, await openPersonal(keys, personalOf(events)));
  } catch (err) {
    if (err instanceof PersonalDataUnreadableError) throw new PoisonRecordError(err.message);
    throw err;
  }
}

/** `openCommerce` from the cache alone (undefined when a key is not cached): for the lookahead. */
export function openCommerceCached(
  keys: SubjectKeyCache,
  events: readonly ProjectedEvent<CommerceEventName>[],
): OpenedCommerceEvent[] | undefined {
  try {
    const opened = openPersonalCached(keys, personalOf(events));
    return opened && withOpened(events, opened);
  } catch {
    return undefined;
  }
}

/**
 * The subject keys of one commerce projection: a SubjectKeyCache, made on the first chunk under
 * `keyring` (default HOLDFAST_PRIVACY_KEYS of the process) and shared with its lookahead. Its misses
 * are read through the chunk's own transaction (`PgSubjectKeyStore.on`), never a second connection.
 */
export class CommerceKeys {
  cache?: SubjectKeyCache;
  private base?: PgSubjectKeyStore;

  constructor(private readonly keyring?: SecretsKeyring) {}

  of(tx: ProjectionTx): SubjectKeyCache {
    this.base ??= new PgSubjectKeyStore(tx.pool, this.keyring ?? defaultPrivacyKeyring());
    const store = this.base.on(tx.client);
    if (this.cache) this.cache.store = store;
    else this.cache = new SubjectKeyCache(store);
    return this.cache;
  }
}
