/**
 * Erasure and access requests (docs/privacy.md, "Erasure and access requests").
 *
 * - Queuing, the one way for the gateway (POST /v1/erasures, /v1/exports) and the CLI (`holdfast
 *   erase`, `export-person`): `queueErasure`, `queueExport` store the identifiers' blind indexes only.
 * - Running, in the projector process: `startPrivacyWorker` claims queued requests; an erasure
 *   destroys the person's subject keys and blanks the read models in one transaction (`runErasure`),
 *   an export seals a JSON document of everything held about the person (`runExport`).
 *
 * @example
 * const { erasure } = await queueErasure(pool, keys, { accountId, request, requestedBy: 'api', now });
 */
export * from './person-indexes.js';
export * from './request-status.js';
export * from './erasure-requests.js';
export * from './export-requests.js';
export * from './erasure-targets.js';
export * from './blank-person.js';
export * from './run-erasure.js';
export * from './build-export.js';
export * from './request-worker.js';
export * from './worker-health.js';
