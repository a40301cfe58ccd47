// The `data` of each planned outbound event and the natural key of its occurrence (docs/webhooks.md,
// "Event types"). Pure: the recompute records what these return, the dispatcher sends `webhookBody`.

/** The body of every delivery: `{event, data}` (the spec's shape), exactly as signed. */
export function webhookBody(event: string, data: unknown): string {
  return JSON.stringify({ event, data });
}

/** An occurrence to record: its type, its natural key (`subject`) and its data. */
export interface Occurrence {
  readonly type: 'customer.churned' | 'recovery.attributed' | 'lift.proven' | 'sync.completed';
  readonly subject: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * `sync.completed`: a sync task ended (done, failed or skipped), with its counters. One per task: the
 * task id is the natural key (a task ends once; a replayed command finds it ended).
 */
export function syncCompleted(t: {
  readonly taskId: string;
  readonly status: 'done' | 'failed' | 'skipped';
  readonly ordersAdded: number | null;
  readonly customersAdded: number | null;
  readonly durationMs: number | null;
  readonly reason: string | null;
  readonly finishedAt: Date;
}): Occurrence {
  return {
    type: 'sync.completed',
    subject: `task:${t.taskId}`,
    data: {
      task_id: t.taskId,
      status: t.status,
      orders_added: t.ordersAdded,
      customers_added: t.customersAdded,
      duration_ms: t.durationMs,
      reason: t.reason,
      finished_at: t.finishedAt.toISOString(),
    },
  };
}

/**
 * `customer.churned`: a customer's lifecycle state moved into Lapsed. The natural key is the customer
 * and how many purchases it had when it lapsed: recomputing again (still Lapsed, the same purchases)
 * or replaying the log is the same occurrence; buying again and lapsing again is a new one.
 */
export function customerChurned(c: {
  readonly customerId: string;
  readonly externalId: string | null;
  readonly purchases: number;
  readonly previousState: string;
  readonly churnRisk: number;
  readonly scoredAt: Date;
}): Occurrence {
  return {
    type: 'customer.churned',
    subject: `customer:${c.customerId}:purchases:${c.purchases}`,
    data: {
      customer_external_id: c.externalId,
      customer_id: c.customerId,
      lifecycle_state: 'Lapsed',
      previous_lifecycle_state: c.previousState,
      churn_risk: c.churnRisk,
      purchases: c.purchases,
      scored_at: c.scoredAt.toISOString(),
    },
  };
}

/**
 * Whether a state change is "moves into Lapsed": the customer was scored before, in another state.
 * A customer first scored as Lapsed (the account's first recompute, a backfill of old orders) did not
 * move: announcing every historic lapse at once would be a flood of old news.
 */
export function movedIntoLapsed(previous: string | null, next: string): boolean {
  return next === 'Lapsed' && previous !== null && previous !== 'Lapsed';
}

/**
 * `lift.proven`: a month's lift report of a campaign type became billable (its billable revenue is
 * positive: the lift is significant and positive, docs/campaigns.md). Once per campaign type and
 * month: a later recompute of the same month (still billable, figures moving until it settles) is the
 * same occurrence. Null while the report is not billable.
 */
export function liftProven(r: {
  readonly campaignType: string;
  readonly periodStart: Date;
  readonly periodEnd: Date;
  readonly lift: number | null;
  readonly ciLow: number | null;
  readonly ciHigh: number | null;
  readonly pValue: number | null;
  readonly incrementalRevenue: number | null;
  readonly billableRevenue: number;
  readonly settlementStatus: 'provisional' | 'final';
}): Occurrence | null {
  if (!(r.billableRevenue > 0)) return null;
  const month = r.periodStart.toISOString().slice(0, 7);
  return {
    type: 'lift.proven',
    subject: `lift:${r.campaignType}:${month}`,
    data: {
      campaign_type: r.campaignType,
      period_start: r.periodStart.toISOString(),
      period_end: r.periodEnd.toISOString(),
      lift: r.lift,
      interval: r.ciLow === null || r.ciHigh === null ? null : { low: r.ciLow, high: r.ciHigh },
      p_value: r.pValue,
      incremental_revenue: r.incrementalRevenue,
      billable_revenue: r.billableRevenue,
      settlement_status: r.settlementStatus,
    },
  };
}

/**
 * `recovery.attributed`: an order was attributed to a message of ours. Once per order: recomputing
 * the attributions (every recompute does) finds the same order again.
 */
export function recoveryAttributed(a: {
  readonly orderId: string;
  readonly customerExternalId: string | null;
  readonly trackingId: string;
  readonly campaignType: string;
  readonly channel: string;
  readonly method: string;
  readonly orderDate: Date;
  readonly netRevenue: number;
}): Occurrence {
  return {
    type: 'recovery.attributed',
    subject: `order:${a.orderId}`,
    data: {
      customer_external_id: a.customerExternalId,
      order_id: a.orderId,
      tracking_id: a.trackingId,
      campaign_type: a.campaignType,
      channel: a.channel,
      method: a.method,
      order_date: a.orderDate.toISOString(),
      net_revenue: a.netRevenue,
    },
  };
}
