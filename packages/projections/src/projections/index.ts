import type { AnyProjection, WiredProjection } from '../projection.js';
import { accountSettingsProjection } from './account-settings.projection.js';
import { campaignSendsProjection } from './campaign-sends.projection.js';
import type { SecretsKeyring } from '@holdfast/secrets';
import { CommerceKeys, wireCommerce } from './commerce/commerce.projection.js';
import type { MemoryBudget } from './commerce/identity-memory.js';
import { ingestBatchesProjection } from './ingest-batches.projection.js';
import { createPixelEventsProjection } from './pixel-events.projection.js';

/** How one projector process equips its projections (its configuration, never module state). */
export interface ProjectionsOptions {
  /** The commerce projection's identity memory (HOLDFAST_PROJECTOR_MEMORY_*); default budget if absent. */
  readonly memoryBudget?: MemoryBudget;
  /** The KEK ring personal data is decrypted under (default: HOLDFAST_PRIVACY_KEYS of the process). */
  readonly privacyKeyring?: SecretsKeyring;
}

/**
 * Every projection the projector runs, each with the state and runner options it needs, fresh for
 * every call: two projectors in one process share nothing. Adding a stream = one definition file +
 * one line here + its DDL.
 */
export function wireProjections(options: ProjectionsOptions = {}): readonly WiredProjection[] {
  return [
    wireCommerce(options.memoryBudget, new CommerceKeys(options.privacyKeyring)),
    { projection: accountSettingsProjection },
    { projection: ingestBatchesProjection },
    // Keys of its own: a key cache is bound to the transaction of the chunk it serves.
    { projection: createPixelEventsProjection(new CommerceKeys(options.privacyKeyring)) },
    { projection: campaignSendsProjection },
  ] as readonly WiredProjection[];
}

/**
 * The projections named (all when `names` is empty), wired; unknown names are an error listing the
 * known ones.
 */
export function selectWiredProjections(
  names: readonly string[] = [],
  options: ProjectionsOptions = {},
): readonly WiredProjection[] {
  const all = wireProjections(options);
  if (!names.length) return all;
  return names.map((n) => {
    const w = all.find((x) => x.projection.name === n);
    if (!w)
      throw new Error(`unknown projection "${n}" (known: ${all.map((x) => x.projection.name).join(', ')})`);
    return w;
  });
}

/**
 * The projections named, as definitions only (names, topics, tables, retention rules): what a schema
 * switch or the retention pass needs. Their state is fresh and unused by anything that applies chunks.
 */
export function selectProjections(names: readonly string[] = []): readonly AnyProjection[] {
  return selectWiredProjections(names).map((w) => w.projection);
}
