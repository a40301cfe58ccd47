import { isIP } from 'node:net';
import {
  loadInboundKeyring,
  loadUnsubscribeKeys,
  parseWebhookSealKey,
  type InboundKeyring,
  type UnsubscribeKeys,
  type WebhookSealKey,
} from '@holdfast/secrets';
import {
  ConfigError,
  EnvReader,
  readInfraConfig,
  readOutboundPolicy,
  type InfraConfig,
  type OutboundPolicy,
} from '@holdfast/platform';
import { DEFAULT_READ_MODEL_SCHEMA, READ_SCHEMA_SETTING } from '@holdfast/read-models';

/** The gateway's configuration, parsed once at start-up from the environment. */
export interface GatewayConfig {
  readonly infra: InfraConfig;
  /** PORT (default 8080; 0 picks a free port). */
  readonly port: number;
  /** HOST (default 0.0.0.0). */
  readonly host: string;
  /** Schema of the projector's read models (HOLDFAST_READ_SCHEMA, default read_models). */
  readonly readModelSchema: string;
  /**
   * Express `trust proxy` (TRUST_PROXY): false (default) takes the client IP from the socket; a hop
   * count (`1`: one load balancer in front) or a comma-separated list of the proxies' addresses or
   * CIDRs (`loopback`, `linklocal`, `uniquelocal`, `10.0.0.0/8`, ...) takes it from X-Forwarded-For, as
   * far as those proxies vouch for it. `true` (trust any) is refused at start-up: with it a client
   * picks its own IP and walks around every per-IP limit. (Tests may still set `true` on the object.)
   */
  readonly trustProxy: boolean | number | string;
  /**
   * Request-body bytes held at once by this gateway (BODY_BUDGET_BYTES, default 256 MiB, at least
   * 32 MiB so one largest body fits). Over it: 503 with Retry-After.
   */
  readonly bodyBudgetBytes: number;
  /**
   * What one ingest key may hold of that budget at once (BODY_BUDGET_PER_KEY_BYTES, default 64 MiB:
   * two largest bodies). Over it: 429 with Retry-After for that key only.
   */
  readonly bodyBudgetPerKeyBytes: number;
  /**
   * What one account (all its keys, the tile token, zero-party) may hold at once
   * (BODY_BUDGET_PER_ACCOUNT_BYTES, default 128 MiB, at least the per-key share). Over it: 429.
   */
  readonly bodyBudgetPerAccountBytes: number;
  /** HEADERS_TIMEOUT_MS (default 10 s): a client must send its request headers within this. */
  readonly headersTimeoutMs: number;
  /** REQUEST_TIMEOUT_MS (default 120 s: 32 MiB at ~2.2 Mbit/s): headers and body within this. */
  readonly requestTimeoutMs: number;
  /** KEEP_ALIVE_TIMEOUT_MS (default 5 s): an idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /**
   * HOLDFAST_PUBLIC_URL: the gateway's public base URL (https), e.g. https://hf.example.com. The SMS
   * provider signs its inbound webhook over it; null: the request's own scheme and host.
   */
  readonly publicUrl: string | null;
  /**
   * HOLDFAST_UNSUBSCRIBE_KEYS: verifies unsubscribe links (the recompute signs them with the same
   * keys). Required in production; in development the local key of ~/.cache/holdfast.
   */
  readonly unsubscribeKeys: UnsubscribeKeys;
  /**
   * HOLDFAST_INBOUND_KEYS: opens the SMS providers' auth tokens sealed for the inbound STOP webhook
   * (control.provider_inbound_secrets), and nothing else. Required in production.
   *
   * The gateway never reads HOLDFAST_SECRETS_KEYS: the master keys (every provider and webhook secret)
   * stay off the public edge (docs/security.md).
   */
  readonly inboundKeys: InboundKeyring;
  /**
   * HOLDFAST_WEBHOOK_SEAL_KEY (`holdfast secrets webhook-seal-key` prints it): the public key the
   * webhook secrets minted by POST /v1/webhooks are sealed to. It seals and opens nothing; only the
   * master key it was derived from opens what it sealed (the dispatcher's, the CLI's). Null: creating
   * a subscription or rotating its secret over HTTP answers 503 (docs/webhooks.md).
   */
  readonly webhookSealKey: WebhookSealKey | null;
  /**
   * Where a webhook subscription may point (HOLDFAST_OUTBOUND_*, the dispatcher's policy): POST
   * /v1/webhooks refuses at once what the dispatcher would refuse on every delivery.
   */
  readonly outbound: OutboundPolicy;
  /** HOLDFAST_TEST_MODE: a test or benchmark deployment; required by `unsafeLiftLimits`. */
  readonly testMode: boolean;
  /**
   * HOLDFAST_UNSAFE_LIFT_LIMITS: the per-key, per-account and per-IP rate limits count nothing (the
   * fuzz benchmark, so that validation and not the 429 answers). Refused at start-up unless
   * HOLDFAST_TEST_MODE is set too. The sync throttle stays.
   */
  readonly unsafeLiftLimits: boolean;
  /**
   * HOLDFAST_UNSAFE_UNSEALED: commerce and pixel records are appended with their personal fields in
   * clear, as before encryption existed (the backfill and pixel benchmarks' "sealing off" side, to
   * measure what sealing costs). Refused at start-up unless HOLDFAST_TEST_MODE is set too: never a production setting.
   */
  readonly unsafeUnsealed: boolean;
  /**
   * How long a credential lookup is cached (CREDENTIAL_CACHE_MS, default 30 s). The cache is dropped on
   * every `holdfast_credentials` notification, and bypassed while that LISTEN connection is down, so a
   * revoked key is refused within a second either way.
   */
  readonly credentialCacheMs: number;
  /**
   * How often the LISTEN connection is pinged (CREDENTIAL_LISTENER_PING_MS, default 3 s); no answer
   * within the same time is a lost connection, and the cache is bypassed until it is back. Bounds how
   * long a revoked key keeps working when that connection dies silently (about twice this).
   */
  readonly credentialListenerPingMs: number;
  /** How often api_keys.last_used_at is written (LAST_USED_FLUSH_MS, default 60 s). */
  readonly lastUsedFlushMs: number;
  /** How often expired rate counters and batch records are purged (JANITOR_INTERVAL_MS, default 10 min). */
  readonly janitorIntervalMs: number;
  /**
   * Transactional producers kept open (PRODUCER_POOL_SIZE, default 16): concurrent batches each take
   * one. When pixel requests were transactions too, 4 producers capped the collector at ~1,100
   * events/s and 16 doubled it (docs/performance.md); the collector now has its own producers.
   */
  readonly producerPoolSize: number;
  /**
   * Idempotent (non-transactional) producers of POST /pixel/collect (PIXEL_PRODUCER_POOL_SIZE,
   * default 4). A collector request's events share one key, so one produce request of one record
   * batch stores them all or none without a transaction (docs/performance.md).
   */
  readonly pixelProducerPoolSize: number;
  /**
   * POST /pixel/collect: how long the oldest append in flight may wait before new requests are
   * answered 503 + Retry-After (PIXEL_APPEND_STALL_MS, default 2 s; docs/reliability.md).
   */
  readonly pixelAppendStallMs: number;
}

const TRUST_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const TRUST_ANY_CIDR = /^(?:0\.0\.0\.0|::)\/0$/;

/** One entry of a TRUST_PROXY list: a name express knows, an address, or a CIDR. */
function trustEntryProblem(entry: string): string | null {
  if (TRUST_NAMES.has(entry)) return null;
  if (TRUST_ANY_CIDR.test(entry)) return `"${entry}" trusts any address`;
  const [addr, bits, ...rest] = entry.split('/');
  const family = isIP(addr ?? '');
  if (family === 0 || rest.length > 0)
    return `"${entry}" is not an address, a CIDR or loopback/linklocal/uniquelocal`;
  if (bits === undefined) return null;
  const n = Number(bits);
  return /^\d+$/.test(bits) && n >= 1 && n <= (family === 4 ? 32 : 128)
    ? null
    : `"${entry}" has an invalid prefix length`;
}

/** TRUST_PROXY as express takes it, never "trust any"; problems are collected, not thrown. */
export function parseTrustProxy(raw: string | undefined, problems: string[]): false | number | string {
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'false') return false;
  const v = raw.trim();
  if (v.toLowerCase() === 'true') {
    problems.push(
      'TRUST_PROXY=true would trust any X-Forwarded-For, so a client could choose its own IP and walk around the per-IP limits; set the number of proxy hops in front of the gateway (e.g. 1) or their addresses/CIDRs (e.g. loopback,10.0.0.0/8)',
    );
    return false;
  }
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > 10) problems.push(`TRUST_PROXY hop count must be at most 10, got "${v}"`);
    return hops === 0 ? false : hops;
  }
  const entries = v
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const e of entries) {
    const problem = trustEntryProblem(e);
    if (problem) problems.push(`TRUST_PROXY: ${problem}`);
  }
  return entries.join(',');
}

/**
 * Reads the gateway's configuration; throws one ConfigError naming every problem.
 *
 * @example
 * const config = loadGatewayConfig(process.env);
 */
export function loadGatewayConfig(env: Readonly<Record<string, string | undefined>>): GatewayConfig {
  const r = new EnvReader(env);
  const problems: string[] = [];
  const readModelSchema = r.string(READ_SCHEMA_SETTING, DEFAULT_READ_MODEL_SCHEMA);
  const trustProxy = parseTrustProxy(r.optional('TRUST_PROXY'), problems);
  const testMode = r.bool('HOLDFAST_TEST_MODE', false);
  const publicUrl = r.optional('HOLDFAST_PUBLIC_URL')?.replace(/\/+$/, '') || null;
  if (publicUrl && !publicUrl.startsWith('https://') && !testMode)
    problems.push('HOLDFAST_PUBLIC_URL must be an https:// URL');
  const unsafeLiftLimits = r.bool('HOLDFAST_UNSAFE_LIFT_LIMITS', false);
  if (unsafeLiftLimits && !testMode)
    problems.push(
      'HOLDFAST_UNSAFE_LIFT_LIMITS is honoured only with HOLDFAST_TEST_MODE=1 (it turns the rate limits off)',
    );
  const unsafeUnsealed = r.bool('HOLDFAST_UNSAFE_UNSEALED', false);
  if (unsafeUnsealed && !testMode)
    problems.push(
      'HOLDFAST_UNSAFE_UNSEALED is honoured only with HOLDFAST_TEST_MODE=1 (it writes personal data in clear)',
    );
  const headersTimeoutMs = r.int('HEADERS_TIMEOUT_MS', 10_000, { min: 100, max: 600_000 });
  const requestTimeoutMs = r.int('REQUEST_TIMEOUT_MS', 120_000, { min: 100, max: 3_600_000 });
  if (requestTimeoutMs < headersTimeoutMs)
    problems.push('REQUEST_TIMEOUT_MS must be at least HEADERS_TIMEOUT_MS');
  const MiB = 1024 * 1024;
  const bodyBudgetPerKeyBytes = r.int('BODY_BUDGET_PER_KEY_BYTES', 64 * MiB, {
    min: 32 * MiB,
    max: 64 * 1024 * MiB,
  });
  const bodyBudgetPerAccountBytes = r.int('BODY_BUDGET_PER_ACCOUNT_BYTES', 128 * MiB, {
    min: 32 * MiB,
    max: 64 * 1024 * MiB,
  });
  if (bodyBudgetPerAccountBytes < bodyBudgetPerKeyBytes)
    problems.push('BODY_BUDGET_PER_ACCOUNT_BYTES must be at least BODY_BUDGET_PER_KEY_BYTES');
  const keys = <T>(load: () => T): T | undefined => {
    try {
      return load();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(err.message.replace(/^invalid configuration: /, ''));
      return undefined;
    }
  };
  const unsubscribeKeys = keys(() => loadUnsubscribeKeys(env));
  const inboundKeys = keys(() => loadInboundKeyring(env));
  const sealSetting = r.optional('HOLDFAST_WEBHOOK_SEAL_KEY');
  const webhookSealKey = sealSetting ? (keys(() => parseWebhookSealKey(sealSetting)) ?? null) : null;
  let config: GatewayConfig;
  try {
    config = r.done({
      infra: readInfraConfig(r),
      port: r.int('PORT', 8080, { min: 0, max: 65_535 }),
      host: r.string('HOST', '0.0.0.0'),
      readModelSchema,
      trustProxy,
      publicUrl,
      // Undefined only with a problem recorded, which throws below.
      unsubscribeKeys: unsubscribeKeys!,
      inboundKeys: inboundKeys!,
      webhookSealKey,
      outbound: readOutboundPolicy(r),
      bodyBudgetBytes: r.int('BODY_BUDGET_BYTES', 256 * 1024 * 1024, {
        min: 32 * 1024 * 1024,
        max: 64 * 1024 ** 3,
      }),
      bodyBudgetPerKeyBytes,
      bodyBudgetPerAccountBytes,
      headersTimeoutMs,
      requestTimeoutMs,
      keepAliveTimeoutMs: r.int('KEEP_ALIVE_TIMEOUT_MS', 5_000, { min: 100, max: 600_000 }),
      testMode,
      unsafeLiftLimits,
      unsafeUnsealed,
      credentialCacheMs: r.int('CREDENTIAL_CACHE_MS', 30_000, { min: 0, max: 600_000 }),
      credentialListenerPingMs: r.int('CREDENTIAL_LISTENER_PING_MS', 3_000, { min: 100, max: 60_000 }),
      lastUsedFlushMs: r.int('LAST_USED_FLUSH_MS', 60_000, { min: 10, max: 3_600_000 }),
      janitorIntervalMs: r.int('JANITOR_INTERVAL_MS', 600_000, { min: 1_000, max: 86_400_000 }),
      producerPoolSize: r.int('PRODUCER_POOL_SIZE', 16, { min: 1, max: 64 }),
      pixelProducerPoolSize: r.int('PIXEL_PRODUCER_POOL_SIZE', 4, { min: 1, max: 64 }),
      pixelAppendStallMs: r.int('PIXEL_APPEND_STALL_MS', 2_000, { min: 100, max: 600_000 }),
    });
  } catch (err) {
    if (err instanceof ConfigError && problems.length > 0)
      throw new ConfigError(`${err.message}; ${problems.join('; ')}`);
    throw err;
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  return config;
}
