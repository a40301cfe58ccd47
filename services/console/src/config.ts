import {
  loadConsoleKeyring,
  parseWebhookSealKey,
  type ConsoleKeyring,
  type WebhookSealKey,
} from '@holdfast/secrets';
import {
  ConfigError,
  EnvReader,
  readDatabaseUrl,
  readOutboundPolicy,
  type InfraConfig,
  type OutboundPolicy,
} from '@holdfast/platform';
import { DEFAULT_READ_MODEL_SCHEMA, READ_SCHEMA_SETTING } from '@holdfast/read-models';

/** The console's configuration, parsed once at start-up from the environment. */
export interface ConsoleConfig {
  /** PostgreSQL only: the console uses no Kafka (it changes the control plane, reads the read models). */
  readonly infra: Pick<InfraConfig, 'databaseUrl' | 'pgStatementTimeoutMs' | 'pgConnectTimeoutMs'>;
  /** PORT (default 8090; 0 picks a free port). */
  readonly port: number;
  /** HOST (default 0.0.0.0). */
  readonly host: string;
  /**
   * HOLDFAST_CONSOLE_URL: the console's public base URL, e.g. https://console.hf.example.com (the
   * CLI builds invitation links on it). Must be https in production; it decides Secure cookies.
   */
  readonly publicUrl: string;
  /** HOLDFAST_GATEWAY_URL: the ingest API's base URL the pages show integrators (optional). */
  readonly gatewayUrl: string | null;
  /**
   * HOLDFAST_READ_API_URL: where the console itself calls the /v1/ read API for the dashboards (an
   * in-cluster address; default HOLDFAST_GATEWAY_URL). Null: the dashboards say they are not wired.
   */
  readonly readApiUrl: string | null;
  /** Schema of the projector's read models (HOLDFAST_READ_SCHEMA, default read_models). */
  readonly readModelSchema: string;
  /** Secure, __Host- cookies: on unless the console is served over plain http away from localhost. */
  readonly secureCookies: boolean;
  /** TRUST_PROXY as the gateway reads it: hops or addresses in front (the sign-in limits key on the IP). */
  readonly trustProxy: false | number | string;
  /** CONSOLE_SESSION_HOURS (default 12): a session ends this long after sign-in, whatever happens. */
  readonly sessionTtlMs: number;
  /** CONSOLE_IDLE_MINUTES (default 30): a session unused this long ends. */
  readonly idleTimeoutMs: number;
  /**
   * HOLDFAST_WEBHOOK_SEAL_KEY (as the gateway's; `holdfast secrets webhook-seal-key`): the public key
   * new webhook signing secrets are sealed to. It opens nothing. Null: the webhooks page lists and
   * redelivers, but cannot create a subscription nor rotate a secret, and says so.
   */
  readonly webhookSealKey: WebhookSealKey | null;
  /** Where webhook URLs may point (HOLDFAST_OUTBOUND_ALLOW_HTTP, HOLDFAST_OUTBOUND_ALLOW), as the dispatcher's. */
  readonly outbound: OutboundPolicy;
  /**
   * HOLDFAST_CONSOLE_KEYS (`id:base64,…`, current first; required in production): the keys the TOTP
   * secrets are sealed with at rest. Older ids are kept to open and re-wrap what they sealed.
   */
  readonly consoleKeys: ConsoleKeyring;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function loadConsoleConfig(env: Readonly<Record<string, string | undefined>>): ConsoleConfig {
  const r = new EnvReader(env);
  const port = r.int('PORT', 8090, { min: 0, max: 65_535 });
  const testMode = r.bool('HOLDFAST_TEST_MODE', false);
  const production = env.NODE_ENV === 'production';
  const rawUrl = (r.optional('HOLDFAST_CONSOLE_URL') ?? `http://127.0.0.1:${port}`).replace(/\/+$/, '');
  let url: URL | undefined;
  try {
    url = new URL(rawUrl);
  } catch {
    r.problem(`HOLDFAST_CONSOLE_URL "${rawUrl}" is not a URL`);
  }
  const https = url?.protocol === 'https:';
  const local = url ? LOCAL_HOSTS.has(url.hostname) : false;
  // Plain http only on this machine (docker compose, npm start): anywhere else cookies need https.
  if (url && !https && !local && production && !testMode)
    r.problem('HOLDFAST_CONSOLE_URL must be https:// in production (session cookies are Secure)');
  const gatewayUrl = r.optional('HOLDFAST_GATEWAY_URL')?.replace(/\/+$/, '') ?? null;
  const trustRaw = r.optional('TRUST_PROXY')?.trim();
  let trustProxy: false | number | string = false;
  if (trustRaw && trustRaw !== 'false') {
    if (trustRaw === 'true') r.problem('TRUST_PROXY=true trusts any X-Forwarded-For: give hops or addresses');
    else trustProxy = /^\d+$/.test(trustRaw) ? Number(trustRaw) : trustRaw;
  }
  // Key settings throw ConfigError on their own; gathered with the other problems, not one by one.
  const keys = <T>(load: () => T): T | undefined => {
    try {
      return load();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      r.problem(err.message.replace(/^invalid configuration: /, ''));
      return undefined;
    }
  };
  const sealSetting = r.optional('HOLDFAST_WEBHOOK_SEAL_KEY');
  const webhookSealKey = sealSetting ? (keys(() => parseWebhookSealKey(sealSetting)) ?? null) : null;
  const consoleKeys = keys(() => loadConsoleKeyring(env));
  return r.done({
    infra: {
      databaseUrl: readDatabaseUrl(r),
      pgStatementTimeoutMs: r.int('HOLDFAST_PG_STATEMENT_TIMEOUT_MS', 30_000, { min: 0, max: 86_400_000 }),
      pgConnectTimeoutMs: r.int('HOLDFAST_PG_CONNECT_TIMEOUT_MS', 10_000, { min: 100, max: 600_000 }),
    },
    port,
    host: r.string('HOST', '0.0.0.0'),
    publicUrl: rawUrl,
    gatewayUrl,
    readApiUrl: r.optional('HOLDFAST_READ_API_URL')?.replace(/\/+$/, '') ?? gatewayUrl,
    readModelSchema: r.string(READ_SCHEMA_SETTING, DEFAULT_READ_MODEL_SCHEMA),
    // Browsers accept Secure cookies from http://localhost; anywhere else plain http cannot keep one.
    secureCookies: https || local,
    trustProxy,
    sessionTtlMs: r.int('CONSOLE_SESSION_HOURS', 12, { min: 1, max: 24 * 30 }) * 3600_000,
    idleTimeoutMs: r.int('CONSOLE_IDLE_MINUTES', 30, { min: 1, max: 24 * 60 }) * 60_000,
    webhookSealKey,
    outbound: readOutboundPolicy(r),
    consoleKeys: consoleKeys!,
  });
}
