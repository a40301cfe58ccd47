import { randomUUID } from 'node:crypto';
import type { EventCodec } from '@holdfast/contracts';
import { createDb, withTransaction, type Pool } from '@holdfast/postgres';
import {
  defaultSecretsKeyring,
  defaultUnsubscribeKeys,
  SecretUnreadableError,
  type SecretsKeyring,
  type UnsubscribeKeys,
} from '@holdfast/secrets';
import {
  loadProviderConnections,
  normalizeStorefrontDomain,
  type ProviderConnection,
} from '@holdfast/control-plane';
import type { Appender } from '@holdfast/kafka';
import {
  createOutboundClient,
  defaultOutboundPolicy,
  silentLogger,
  type Logger,
  type OutboundClient,
  type OutboundPolicy,
} from '@holdfast/platform';
import { computeLiftReports } from '../attribution/lift-reports.js';
import { recomputeAttributions } from '../attribution/attribute-orders.js';
import { planAudiences } from './audience.js';
import { refreshFunnelCounts } from './funnel-counts.js';
import { DEFAULT_AUDIENCE_RULES, type AudienceRules } from './campaign-types.js';
import { loadCampaignSettings } from './campaign-settings.js';
import { finishRun, startRun, tryLockAccount, zeroCounts, type RunCounts } from './campaign-runs.js';
import { adapterFor } from './providers/index.js';
import type { SendLedger } from './send-ledger.js';
import { flushCampaignEvents, sendPlanned } from './send-planned.js';
import { foldSendClaims } from './fold-send-claims.js';

export interface CampaignStepConfig {
  /** Prefix of the topic names (tests use one; production ''). */
  readonly topicPrefix: string;
  /** Schema of the projector's read models (customers, orders, campaign_sends). */
  readonly readModelSchema: string;
  readonly rules?: Partial<AudienceRules>;
  /** Last-touch attribution window (default 7 days). */
  readonly lastTouchDays?: number;
  /** A provider that does not answer within this fails the send (default 10,000 ms). */
  readonly providerTimeoutMs?: number;
  /** Sends in flight at once per account (default 8). */
  readonly sendConcurrency?: number;
  /**
   * The public base URL of the gateway (HOLDFAST_PUBLIC_URL, e.g. https://hf.example.com): unsubscribe
   * links point at `<publicUrl>/unsubscribe/<token>`. Without it no email is sent (each planned email
   * fails with `unsubscribe_url_missing`): an email without a working unsubscribe link must not leave.
   */
  readonly publicUrl?: string | null;
  /** HOLDFAST_TEST_MODE: an SMTP provider may then use plain text (`tls: none`). */
  readonly testMode?: boolean;
  /** Attempts per message, the first included (default 3). Retriable failures only. */
  readonly providerMaxAttempts?: number;
  /** Backoff between attempts: full jitter under min(max, base·2^n) (default 1,000 ms and 30,000 ms). */
  readonly providerRetryBaseMs?: number;
  readonly providerRetryMaxMs?: number;
  /** A provider whose sends failed this many times in a row (retries spent) is skipped for the run (default 10). */
  readonly providerBreakerFailures?: number;
}

export interface CampaignStepDeps {
  readonly pool: Pool;
  /** Appends CampaignSent records to holdfast.campaigns (a TransactionalAppender in production). */
  readonly appender: Appender;
  readonly codec: Pick<EventCodec, 'encode'>;
  readonly logger?: Logger;
  readonly now?: () => Date;
  /** The outbound policy (HOLDFAST_OUTBOUND_*): HTTP sends through its guarded client, SMTP checked against it. */
  readonly outboundPolicy?: OutboundPolicy;
  /** Provider HTTP sends go through it. Default: the guarded client under `outboundPolicy`. */
  readonly outbound?: OutboundClient;
  /** Opens the providers' credentials. Default: HOLDFAST_SECRETS_KEYS. */
  readonly keyring?: SecretsKeyring;
  /** Signs unsubscribe links. Default: HOLDFAST_UNSUBSCRIBE_KEYS (never derived from the master keys). */
  readonly unsubscribeKeys?: UnsubscribeKeys;
  /**
   * The send ledger's writes (claim, record). Default: `createSendLedger(pool, readModelSchema)`.
   * Tests wrap it to make one write fail (docs/campaigns.md, "At most once").
   */
  readonly sendLedger?: SendLedger;
}

/** What the step of one account did. `reason` explains failed and skipped. */
export interface CampaignStepResult extends RunCounts {
  readonly runId: string;
  readonly status: 'done' | 'failed' | 'skipped';
  readonly reason: string | null;
}

/** The task the step runs for (a sync task, or the nightly run). */
export interface CampaignTask {
  readonly accountId: string;
  readonly taskId: string | null;
}

/** How the step runs for this task. */
export interface CampaignStepOptions {
  /**
   * Whether the step decides and sends messages at all: `sendsOnTrigger(task.trigger)` from
   * @holdfast/domain (nightly and operator commands send; POST /ingest/sync does not). Without it only
   * attribution and lift are recomputed, and the run is `skipped` / `trigger_does_not_send`.
   */
  readonly send: boolean;
}

/**
 * The campaign step of a recompute, run after an account's scores were written:
 *
 * 0. the merchant's confirmed send claims (POST /v1/sends) are folded into the ledger, always
 *    (`foldSendClaims`: `merchant_sent` and `held_out` rows);
 * 1. sends, only when `options.send` (else `skipped` / `trigger_does_not_send`; docs/campaigns.md):
 *    plan audiences and record every decision (`decideSend`: enabled types, cool-down, reach,
 *    frequency cap, holdout, sandbox), send the planned messages through each connected provider's
 *    adapter, append a CampaignSent record per message sent. No type enabled: `skipped` /
 *    `no_campaign_type_enabled`. No storefront domain: nothing is planned or sent and the run records
 *    `failed` / `storefront_domain_missing` (rule 11: every call-to-action is built on it). No provider
 *    connected (live account): `skipped` / `no_provider_connected`. A sandbox account needs no provider:
 *    its sends are recorded as `sandbox_simulated` and never sent nor appended.
 * 2. attribution and lift, always (also when sending could not run): recompute analytics.attributions
 *    and the lift reports of every month not yet settled.
 *
 * Each run is a row in analytics.campaign_runs. It never throws for a configuration problem of the
 * account (the scores are fine; the run row says what is missing); it does throw on infrastructure
 * errors, after recording the run as failed. One step per account at a time (advisory lock): a second
 * concurrent one is `skipped` / `already_running`.
 *
 * @example
 * const step = createCampaignStep({ topicPrefix: '', readModelSchema: 'read_models' }, { pool, appender, codec });
 * await step({ accountId, taskId }, { send: sendsOnTrigger(trigger) });
 */
export function createCampaignStep(
  config: CampaignStepConfig,
  deps: CampaignStepDeps,
): (task: CampaignTask, options: CampaignStepOptions) => Promise<CampaignStepResult> {
  return (task, options) => runCampaignStep(config, deps, task, options);
}

/** One campaign step (see {@link createCampaignStep}). */
export async function runCampaignStep(
  config: CampaignStepConfig,
  deps: CampaignStepDeps,
  task: CampaignTask,
  options: CampaignStepOptions,
): Promise<CampaignStepResult> {
  const { pool } = deps;
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger ?? silentLogger;
  const runId = randomUUID();
  const counts = zeroCounts();
  const lock = await tryLockAccount(pool, task.accountId);
  await startRun(pool, {
    runId,
    accountId: task.accountId,
    taskId: task.taskId,
    sendsEnabled: options.send,
    at: now(),
  });
  if (!lock) {
    await finishRun(pool, runId, { status: 'skipped', reason: 'already_running', counts, at: now() });
    return { runId, status: 'skipped', reason: 'already_running', ...counts };
  }
  try {
    // A merchant's confirmed send claims join the ledger first: the plan's cap and cool-down, the
    // attribution and the lift below all see them (docs/read-api.md, "Send claim and confirm").
    await foldSendClaims(pool, task.accountId, now());
    const outcome: Outcome = options.send
      ? await sendCampaigns(config, deps, task, runId, counts, now, logger)
      : { status: 'skipped', reason: 'trigger_does_not_send' };
    counts.eventsAppended = await flushCampaignEvents({
      pool,
      appender: deps.appender,
      codec: deps.codec,
      topicPrefix: config.topicPrefix,
      accountId: task.accountId,
      now,
    });
    const common = { accountId: task.accountId, readModelSchema: config.readModelSchema, now: now() };
    counts.attributions = await recomputeAttributions(pool, {
      ...common,
      lastTouchDays: config.lastTouchDays,
    });
    counts.liftReports = await computeLiftReports(pool, common);
    // The dashboards' funnel. The run's sends, attributions and lift are in: a failed count (a statement
    // timeout on a loaded database) keeps the previous counts, is logged, and the next step recounts.
    await refreshFunnelCounts(pool, task.accountId, common.now).catch((err: unknown) =>
      logger.warn('funnel_counts_not_refreshed', {
        account_id: task.accountId,
        code: (err as { code?: string }).code ?? null,
        error: err instanceof Error ? err.name : 'unknown',
      }),
    );
    await finishRun(pool, runId, { ...outcome, counts, at: now() });
    const log = outcome.status === 'failed' ? logger.warn : logger.info;
    log('campaign_step_finished', {
      account_id: task.accountId,
      task_id: task.taskId,
      run_id: runId,
      ...outcome,
      ...counts,
    });
    return { runId, ...outcome, ...counts };
  } catch (err) {
    const reason = `error: ${(err as Error).message}`.slice(0, 500);
    await finishRun(pool, runId, { status: 'failed', reason, counts, at: now() }).catch(() => undefined);
    throw err;
  } finally {
    await lock.release();
  }
}

type Outcome = { status: 'done' | 'failed' | 'skipped'; reason: string | null };

async function sendCampaigns(
  config: CampaignStepConfig,
  deps: CampaignStepDeps,
  task: CampaignTask,
  runId: string,
  counts: RunCounts,
  now: () => Date,
  logger: Logger,
): Promise<Outcome> {
  const { pool } = deps;
  const db = createDb(pool);
  const settings = await loadCampaignSettings(pool, task.accountId);
  if (!settings.enabledTypes.size) return { status: 'skipped', reason: 'no_campaign_type_enabled' };
  const keyring = deps.keyring ?? defaultSecretsKeyring();
  let providers: ProviderConnection[];
  try {
    providers = await loadProviderConnections(db, task.accountId, keyring);
  } catch (err) {
    if (err instanceof SecretUnreadableError)
      return { status: 'failed', reason: 'provider_secret_unreadable' };
    throw err;
  }
  // A sandbox account simulates its sends: it needs no provider (and never calls one).
  if (!providers.length && !settings.sandbox) return { status: 'skipped', reason: 'no_provider_connected' };
  const acc = await db
    .selectFrom('control.accounts')
    .select('storefront_domain')
    .where('id', '=', task.accountId)
    .executeTakeFirst();
  const raw = acc?.storefront_domain?.trim();
  if (!raw) return { status: 'failed', reason: 'storefront_domain_missing' };
  let storefrontDomain: string;
  try {
    storefrontDomain = normalizeStorefrontDomain(raw);
  } catch {
    return { status: 'failed', reason: 'storefront_domain_invalid' };
  }
  const first = (channel: 'email' | 'sms'): string | null =>
    providers.find((p) => p.channel === channel)?.provider ?? null;
  const plan = await withTransaction(pool, (client) =>
    planAudiences(client, {
      accountId: task.accountId,
      runId,
      taskId: task.taskId,
      now: now(),
      readModelSchema: config.readModelSchema,
      emailProvider: first('email'),
      smsProvider: first('sms'),
      rules: { ...DEFAULT_AUDIENCE_RULES, ...config.rules },
      settings,
      storefrontDomain,
    }),
  );
  counts.planned = plan.send;
  counts.heldOut = plan.held_out;
  counts.sandboxSimulated = plan.sandbox_simulated;
  counts.capped = plan.capped;
  counts.noConsent = plan.no_consent;
  counts.suppressed = plan.suppressed;
  counts.disabled = plan.disabled;
  // Sandbox: nothing is ever sent (plans a crashed live run left behind stay planned, unsent).
  if (settings.sandbox) return { status: 'done', reason: null };
  const policy = deps.outboundPolicy ?? defaultOutboundPolicy();
  const env = {
    client: deps.outbound ?? createOutboundClient(policy),
    policy,
    timeoutMs: config.providerTimeoutMs ?? 10_000,
    testMode: config.testMode ?? false,
  };
  const adapters = new Map(providers.map((p) => [p.provider, adapterFor(p, env)]));
  const sent = await sendPlanned({
    pool,
    readModelSchema: config.readModelSchema,
    accountId: task.accountId,
    storefrontDomain,
    adapters,
    now,
    concurrency: config.sendConcurrency ?? 8,
    logger,
    unsubscribe: config.publicUrl
      ? { publicUrl: config.publicUrl, keys: deps.unsubscribeKeys ?? defaultUnsubscribeKeys() }
      : null,
    ledger: deps.sendLedger,
    retry: {
      maxAttempts: config.providerMaxAttempts ?? 3,
      baseMs: config.providerRetryBaseMs ?? 1_000,
      maxMs: config.providerRetryMaxMs ?? 30_000,
      breakerFailures: config.providerBreakerFailures ?? 10,
    },
  });
  counts.sent = sent.sent;
  counts.sendFailed = sent.failed;
  counts.possiblySent = sent.possiblySent;
  // Messages of a provider that was down stay planned for the next run; the run says so.
  return { status: 'done', reason: sent.deferred ? 'sends_deferred_provider_down' : null };
}
