import type { AnyProjection } from '../projection.js';
import { accountSettingsProjection } from './account-settings.projection.js';
import { campaignSendsProjection } from './campaign-sends.projection.js';
import { commerceProjection } from './commerce/commerce.projection.js';
import { ingestBatchesProjection } from './ingest-batches.projection.js';
import { pixelEventsProjection } from './pixel-events.projection.js';

/** Every projection the projector runs. Adding a stream = one definition file + one line here + its DDL. */
export const PROJECTIONS: readonly AnyProjection[] = [
  commerceProjection,
  accountSettingsProjection,
  ingestBatchesProjection,
  pixelEventsProjection,
  campaignSendsProjection,
] as readonly AnyProjection[];

/** The projections named (all when `names` is empty); unknown names are an error listing the known ones. */
export function selectProjections(names: readonly string[] = []): readonly AnyProjection[] {
  if (!names.length) return PROJECTIONS;
  return names.map((n) => {
    const p = PROJECTIONS.find((x) => x.name === n);
    if (!p)
      throw new Error(`unknown projection "${n}" (known: ${PROJECTIONS.map((x) => x.name).join(', ')})`);
    return p;
  });
}
