// The messages half of the chaos benchmark (issue 28 item 6): an account whose campaign step runs in a
// loop (the recompute's own step, in this process, through the same PostgreSQL proxy as the services)
// and sends through a real SMTP server (STARTTLS, authentication), four fresh customers due a win-back
// per step. At the end every assignment recorded `sent` must have exactly one message, no address may
// get two, and `possibly_sent` (a send cut off before its answer) at most one. The trickling-relay
// fault points the account's provider at a relay that never finishes its greeting for a while.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { EventCodec } from '@holdfast/contracts';
import { createAccount, setEmailProvider } from '@holdfast/control-plane';
import type { Database } from '@holdfast/postgres';
import type { Appender } from '@holdfast/kafka';
import { parseOutboundAllow, STRICT_OUTBOUND_POLICY } from '@holdfast/platform';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';
import { createCampaignStep, type CampaignStepResult } from '@holdfast/recompute';
import {
  startSmtpReceiver,
  startTricklingSmtpRelay,
  type SmtpReceiver,
  type TricklingRelay,
} from '@holdfast/testing';
import type { Finding } from './merge-model.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SMTP_USER = { user: 'relay', pass: 'relay-password' };
/** Nothing is appended: the mailer account has no webhook subscription (the deliveries are counted apart). */
const NO_APPENDS: Appender = { append: () => Promise.resolve(), close: () => Promise.resolve() };

export class ChaosMailer {
  /** Phase each address was made due in. */
  readonly duePhase = new Map<string, number>();
  readonly outcomes = new Map<string, number>();
  private on = false;
  private loop?: Promise<void>;
  private seq = 0;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly db: Kysely<Database>,
    readonly accountId: string,
    readonly smtp: SmtpReceiver,
    readonly relay: TricklingRelay,
    private readonly step: (send: boolean) => Promise<CampaignStepResult>,
    private readonly phase: () => number,
  ) {}

  /** `pool` reaches PostgreSQL as the services do (through the proxy); `db` is the bench's own. */
  static async create(
    pool: pg.Pool,
    db: Kysely<Database>,
    codec: Pick<EventCodec, 'encode'>,
    prefix: string,
    phase: () => number,
  ): Promise<ChaosMailer> {
    const smtp = await startSmtpReceiver(SMTP_USER);
    const relay = await startTricklingSmtpRelay(500);
    const { id } = await createAccount(db, { name: 'mailer', storefrontDomain: 'mailer.example.com' });
    await pool.query(
      `insert into analytics.campaign_type_settings (account_id, campaign_type, enabled, changed_at)
       values ($1, 'win_back', true, now())`,
      [id],
    );
    const run = createCampaignStep(
      {
        topicPrefix: prefix,
        readModelSchema: DEFAULT_READ_MODEL_SCHEMA,
        publicUrl: 'https://hf.example.com',
        testMode: true,
        providerTimeoutMs: 2_000,
        providerRetryBaseMs: 100,
        providerRetryMaxMs: 500,
      },
      {
        pool,
        appender: NO_APPENDS,
        codec,
        outboundPolicy: {
          ...STRICT_OUTBOUND_POLICY,
          allowHttp: true,
          allow: parseOutboundAllow('127.0.0.1:*,[::1]:*'),
        },
      },
    );
    const mailer = new ChaosMailer(
      pool,
      db,
      id,
      smtp,
      relay,
      (send) => run({ accountId: id, taskId: null }, { send }),
      phase,
    );
    await mailer.useRelay(false);
    return mailer;
  }

  /** Points the account's email provider at the trickling relay (true) or the real server. */
  async useRelay(trickle: boolean): Promise<void> {
    await setEmailProvider(
      this.db,
      this.accountId,
      trickle
        ? {
            provider: 'smtp',
            host: '127.0.0.1',
            port: this.relay.port,
            user: SMTP_USER.user,
            from: 'Mailer <news@mailer.example.com>',
            tls: 'none',
            ca: null,
          }
        : {
            provider: 'smtp',
            host: 'localhost',
            port: this.smtp.port,
            user: SMTP_USER.user,
            from: 'Mailer <news@mailer.example.com>',
            tls: 'starttls',
            ca: this.smtp.certPem,
          },
      SMTP_USER.pass,
    );
  }

  private async seedDue(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      const email = `m${this.seq++}@mailer.example.com`;
      await this.pool.query(
        `insert into read_models.customers (account_id, customer_id, email, consent_marketing_email, consent_sms,
           consent_suppressed, consent_bounced, created_at, updated_at)
         values ($1, $2, $3, true, false, false, false, now(), now())`,
        [this.accountId, id, email],
      );
      await this.pool.query(
        `insert into analytics.customer_scores (account_id, customer_id, external_id, churn_risk, lifecycle_state, p_alive,
           predicted_next_purchase_at, expected_purchases, expected_spend, realised_revenue, predicted_value,
           lifetime_value, is_holdout, model, model_params, horizon_days, as_of)
         values ($1, $2, null, 0.7, 'Overdue', 0.5, null, 1, 50, 100, 50, 100, false, 'heuristic', '{}', 365, now())`,
        [this.accountId, id],
      );
      this.duePhase.set(email, this.phase());
    }
  }

  private note(k: string): void {
    this.outcomes.set(k, (this.outcomes.get(k) ?? 0) + 1);
  }

  /** One step, as the recompute's task runs it; an infrastructure error is retried by the next one. */
  private async once(seed: number): Promise<CampaignStepResult | undefined> {
    try {
      if (seed) await this.seedDue(seed);
      const r = await this.step(true);
      this.note(r.status === 'done' ? 'done' : `${r.status}/${r.reason}`);
      return r;
    } catch (err) {
      this.note(`threw: ${(err as Error).message.slice(0, 60)}`);
      return undefined;
    }
  }

  start(): void {
    this.on = true;
    this.loop = (async () => {
      while (this.on) {
        await this.once(4);
        await sleep(1000);
      }
    })();
  }

  /** Stops the loop, then runs steps until nothing planned or claimed is left (or `maxMs`). */
  async stop(maxMs = 60_000): Promise<void> {
    this.on = false;
    await this.loop;
    await this.useRelay(false).catch(() => {});
    const until = Date.now() + maxMs;
    while (Date.now() < until) {
      const left = await this.pool.query<{ n: number }>(
        `select count(*)::int as n from analytics.campaign_assignments
          where account_id = $1 and status in ('planned', 'sending')`,
        [this.accountId],
      );
      if (!left.rows[0]!.n) return;
      await this.once(0);
      await sleep(500);
    }
  }

  /** The time of the first message the server accepted after `t`, or null. */
  mailAfter(t: number): number | null {
    return this.arrivals.find((a) => a > t) ?? null;
  }

  /** Arrival times, noted as the server's list grows (it keeps no times itself). */
  private readonly arrivals: number[] = [];
  private seen = 0;
  private timer?: NodeJS.Timeout;
  watch(): void {
    this.timer = setInterval(() => {
      while (this.seen < this.smtp.received.length) {
        this.seen++;
        this.arrivals.push(Date.now());
      }
    }, 100);
  }

  /** Every `sent` assignment has exactly one message, none has two, `possibly_sent` at most one. */
  async findings(): Promise<{ findings: Finding[]; statuses: Record<string, number>; messages: number }> {
    const rows = await this.pool.query<{ email: string; status: string }>(
      `select c.email, a.status from analytics.campaign_assignments a
         join read_models.customers c on c.account_id = a.account_id and c.customer_id = a.customer_id
        where a.account_id = $1 and a.arm = 'treated'`,
      [this.accountId],
    );
    const mails = new Map<string, number>();
    for (const m of this.smtp.received) for (const to of m.rcptTo) mails.set(to, (mails.get(to) ?? 0) + 1);
    const statuses: Record<string, number> = {};
    const findings: Finding[] = [];
    for (const r of rows.rows) {
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      const n = mails.get(r.email) ?? 0;
      const phase = this.duePhase.get(r.email) ?? -1;
      if (n > 1)
        findings.push({
          kind: 'duplicated',
          table: 'messages',
          key: r.email,
          phase,
          detail: `${n} messages (${r.status})`,
        });
      else if (r.status === 'sent' && n === 0)
        findings.push({
          kind: 'lost',
          table: 'messages',
          key: r.email,
          phase,
          detail: 'recorded sent, no message',
        });
      else if (n === 1 && r.status !== 'sent' && r.status !== 'possibly_sent')
        findings.push({
          kind: 'wrong',
          table: 'messages',
          key: r.email,
          phase,
          detail: `a message, recorded ${r.status}`,
        });
    }
    return { findings, statuses, messages: this.smtp.received.length };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.smtp.close();
    await this.relay.close();
  }
}
