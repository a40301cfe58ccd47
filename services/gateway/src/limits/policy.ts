import { MAX_BATCH_ROWS } from '@holdfast/contracts';

/** The spec's limits ("Limits"), in one place. They are contract, not configuration. */
export const LIMITS = Object.freeze({
  /** Rows per batch on POST /ingest/orders and POST /ingest/customers. */
  batchRows: MAX_BATCH_ROWS,
  /** Body size of orders and customers; one byte more is the plain-text 413. */
  batchBodyBytes: 32 * 1024 * 1024,
  /** Body size of the other JSON routes (PATCH /ingest/account): a settings object is tiny. */
  smallBodyBytes: 64 * 1024,
  /** Requests per minute per ingest key (per account for the legacy tile token). */
  requestsPerMinute: 600,
  /**
   * Requests per minute per key on the /v1/ read routes (policy `read`): a budget of its own, so
   * reads never eat into a key's ingest budget (issue 24; not in the spec, which has no reads).
   */
  readRequestsPerMinute: 1200,
  /** Failed authentications per minute per IP before 401/404 become 429. */
  failedAuthPerMinute: 30,
  /** POST /ingest/sync: one per this many milliseconds per account. */
  syncIntervalMs: 10 * 60 * 1000,
  /** Dry-run output: at most this many errors and warnings. */
  dryRunEntries: 50,
  /** GET /ingest/batches. */
  batchesDefault: 50,
  batchesMax: 200,
});

export const MINUTE_MS = 60_000;
