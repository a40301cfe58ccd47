import { describe, expect, it } from 'vitest';
import {
  customerChurned,
  liftProven,
  movedIntoLapsed,
  recoveryAttributed,
  syncCompleted,
  webhookBody,
} from './outbound-event-data.js';

describe('movedIntoLapsed', () => {
  it.each([
    ['Overdue', 'Lapsed', true],
    ['Stable', 'Lapsed', true],
    ['Lapsed', 'Lapsed', false],
    [null, 'Lapsed', false],
    ['Lapsed', 'Stable', false],
    ['Stable', 'Overdue', false],
  ] as const)('given %s then %s, when compared, then %s', (previous, next, moved) => {
    expect(movedIntoLapsed(previous, next)).toBe(moved);
  });
});

describe('occurrences', () => {
  const at = new Date('2026-11-20T02:00:00Z');
  it('given the same lapse twice, then one natural key; a new purchase and lapse is another', () => {
    const c = {
      customerId: 'c1',
      externalId: 'E1',
      purchases: 3,
      previousState: 'Overdue',
      churnRisk: 0.9,
      scoredAt: at,
    };
    expect(customerChurned(c).subject).toBe(customerChurned({ ...c, churnRisk: 0.95 }).subject);
    expect(customerChurned({ ...c, purchases: 4 }).subject).not.toBe(customerChurned(c).subject);
    expect(customerChurned(c).data).toMatchObject({ customer_external_id: 'E1', lifecycle_state: 'Lapsed' });
  });
  it('given a task, then its id is the key and its counters the data', () => {
    const o = syncCompleted({
      taskId: 't1',
      status: 'done',
      ordersAdded: 5,
      customersAdded: 2,
      durationMs: 40,
      reason: null,
      finishedAt: at,
    });
    expect(o.subject).toBe('task:t1');
    expect(webhookBody(o.type, o.data)).toBe(
      '{"event":"sync.completed","data":{"task_id":"t1","status":"done","orders_added":5,"customers_added":2,"duration_ms":40,"reason":null,"finished_at":"2026-11-20T02:00:00.000Z"}}',
    );
  });
});

describe('lift.proven and recovery.attributed', () => {
  const report = {
    campaignType: 'win_back',
    periodStart: new Date('2026-10-01T00:00:00Z'),
    periodEnd: new Date('2026-11-01T00:00:00Z'),
    lift: 0.2,
    ciLow: 0.05,
    ciHigh: 0.35,
    pValue: 0.01,
    incrementalRevenue: 800,
    billableRevenue: 800,
    settlementStatus: 'provisional' as const,
  };
  it('given a billable month, then one occurrence per type and month whatever its figures', () => {
    expect(liftProven(report)?.subject).toBe('lift:win_back:2026-10');
    expect(liftProven({ ...report, billableRevenue: 900, settlementStatus: 'final' })?.subject).toBe(
      'lift:win_back:2026-10',
    );
  });
  it('given a month not billable (zero), then nothing', () => {
    expect(liftProven({ ...report, billableRevenue: 0 })).toBeNull();
  });
  it('given an attributed order, then the order is the key and the customer is named', () => {
    const o = recoveryAttributed({
      orderId: 'A1',
      customerExternalId: 'C1',
      trackingId: 'hft_1',
      campaignType: 'win_back',
      channel: 'email',
      method: 'exact',
      orderDate: new Date('2026-11-02T00:00:00Z'),
      netRevenue: 40,
    });
    expect(o.subject).toBe('order:A1');
    expect(o.data).toMatchObject({ customer_external_id: 'C1', tracking_id: 'hft_1' });
  });
});
