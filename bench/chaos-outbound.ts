// The outbound half of the chaos benchmark (issue 28 item 6): CampaignSent records appended as the
// recompute appends them, one healthy webhook receiver that counts what arrives (every record must
// arrive exactly once), and the faults that crash nothing: a tarpit receiver, a poison secret, a noisy
// tenant, a PostgreSQL whose packets are dropped (the TcpProxy in front of it blackholed).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { EventCodec, CampaignSent } from '@holdfast/contracts';
import { topicName, TransactionalAppender, type KafkaClient } from '@holdfast/kafka';
import type { Finding } from './merge-model.js';
import { campaignSentEvent } from './noisy-tenant.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A webhook receiver that answers 200 at once and notes each tracking id's arrivals. */
export class CountingReceiver {
  readonly arrivals: number[] = [];
  readonly counts = new Map<string, number>();
  /** Every arrival of each tracking id: its delivery id (`X-Service-Delivery`) and time. */
  readonly copies = new Map<string, { deliveryId: string; at: number }[]>();
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<CountingReceiver> {
    const state: { r?: CountingReceiver } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r = state.r!;
        try {
          const id = (JSON.parse(Buffer.concat(chunks).toString()) as { data: { tracking_id: string } }).data
            .tracking_id;
          r.counts.set(id, (r.counts.get(id) ?? 0) + 1);
          const at = Date.now();
          r.arrivals.push(at);
          const deliveryId = String(req.headers['x-service-delivery'] ?? '');
          const list = r.copies.get(id);
          if (list) list.push({ deliveryId, at });
          else r.copies.set(id, [{ deliveryId, at }]);
        } catch {
          /* not a campaign.sent body */
        }
        res.writeHead(200).end('{}');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return (state.r = new CountingReceiver(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    ));
  }

  /** The first arrival after `t` (ms), or null. */
  arrivalAfter(t: number): number | null {
    return this.arrivals.find((a) => a > t) ?? null;
  }

  /** The longest time without an arrival within [from, to] (its edges count as arrivals), seconds. */
  longestGapS(from: number, to: number): number {
    const inside = this.arrivals.filter((a) => a > from && a < to);
    let prev = from;
    let gap = 0;
    for (const a of [...inside, to]) {
      gap = Math.max(gap, a - prev);
      prev = a;
    }
    return gap / 1000;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

/**
 * Appends `perSecond` CampaignSent records of one account in small transactions; a failed append is
 * retried with the same records (an append whose outcome is unknown may have committed: the
 * dispatcher's delivery id is derived from the tracking id, so it is enqueued once either way).
 * `acked` maps each committed tracking id to the phase it was appended in.
 */
export class CampaignStream {
  readonly acked = new Map<string, number>();
  failedAppends = 0;
  private on = false;
  private loop?: Promise<void>;

  private constructor(
    private readonly appender: TransactionalAppender,
    private readonly codec: Pick<EventCodec, 'encode'>,
    private readonly topic: string,
    private readonly accountId: string,
    private readonly perSecond: number,
    private readonly phase: () => number,
  ) {}

  static async create(
    kafka: KafkaClient,
    codec: Pick<EventCodec, 'encode'>,
    prefix: string,
    accountId: string,
    perSecond: number,
    phase: () => number,
  ): Promise<CampaignStream> {
    const appender = await TransactionalAppender.create(kafka, {
      name: `${prefix}chaos-campaigns-${accountId.slice(0, 8)}`,
      size: 1,
    });
    return new CampaignStream(
      appender,
      codec,
      topicName(prefix, 'holdfast.campaigns'),
      accountId,
      perSecond,
      phase,
    );
  }

  start(): void {
    this.on = true;
    const batch = Math.max(1, Math.round(this.perSecond / 4));
    this.loop = (async () => {
      while (this.on) {
        const phase = this.phase();
        const events: CampaignSent[] = Array.from({ length: batch }, () => campaignSentEvent(this.accountId));
        for (;;) {
          try {
            await this.appender.append(
              events.map((e) => ({
                topic: this.topic,
                key: e.metadata.account_id,
                value: this.codec.encode('CampaignSent', e),
              })),
            );
            for (const e of events) this.acked.set(e.tracking_id, phase);
            break;
          } catch {
            this.failedAppends++;
            if (!this.on) break;
            await sleep(500);
          }
        }
        await sleep(250);
      }
    })();
  }

  async stop(): Promise<void> {
    this.on = false;
    await this.loop;
    await this.appender.close().catch(() => {});
  }
}

/**
 * Every committed record delivered to the healthy receiver exactly once, else a finding. Two delivery
 * ids for one record are always a duplicate. The same delivery id twice is the documented redelivery
 * (docs/webhooks.md: the receiver answered 2xx and the dispatcher died before it recorded the answer;
 * receivers deduplicate on `X-Service-Delivery`) only when its first copy arrived while the
 * dispatcher was being killed (`killedAround(at)`); otherwise it is a duplicate too. Documented
 * redeliveries are counted, not findings.
 */
export function deliveryFindings(
  stream: CampaignStream,
  receiver: CountingReceiver,
  killedAround: (at: number) => boolean = () => false,
): { findings: Finding[]; redelivered: number } {
  const findings: Finding[] = [];
  let redelivered = 0;
  for (const [id, phase] of stream.acked) {
    const copies = receiver.copies.get(id) ?? [];
    const ids = new Set(copies.map((c) => c.deliveryId));
    if (!copies.length)
      findings.push({
        kind: 'lost',
        table: 'webhook_deliveries',
        key: id,
        phase,
        detail: 'committed, never delivered',
      });
    else if (ids.size > 1)
      findings.push({
        kind: 'duplicated',
        table: 'webhook_deliveries',
        key: id,
        phase,
        detail: `${ids.size} delivery ids for one record`,
      });
    else if (copies.length > 1) {
      if (killedAround(copies[0]!.at)) redelivered += copies.length - 1;
      else
        findings.push({
          kind: 'duplicated',
          table: 'webhook_deliveries',
          key: id,
          phase,
          detail: `delivered ${copies.length} times, the dispatcher not killed around the first`,
        });
    }
  }
  return { findings, redelivered };
}

/** Waits until every committed record arrived (or `maxMs` passed). */
export async function drainDeliveries(
  stream: CampaignStream,
  receiver: CountingReceiver,
  maxMs: number,
): Promise<void> {
  const until = Date.now() + maxMs;
  while (Date.now() < until && [...stream.acked.keys()].some((id) => !receiver.counts.has(id)))
    await sleep(500);
}
