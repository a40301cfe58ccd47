import { describe, expect, it } from 'vitest';
import { decideSyncStart, isFinalSyncStatus, syncTaskView } from './sync-task.js';

describe('sync task transitions (spec: "Sync task status")', () => {
  it.each([
    ['queued', false, 1, { kind: 'run' }],
    ['running', false, 2, { kind: 'run' }],
    ['queued', true, 1, { kind: 'skipped', reason: 'already_running' }],
    [
      'running',
      false,
      4,
      { kind: 'failed', reason: 'worker_lost: the recompute stopped 3 times while running this task' },
    ],
    ['done', true, 9, { kind: 'finished' }],
    ['failed', false, 1, { kind: 'finished' }],
    ['skipped', false, 1, { kind: 'finished' }],
    [null, false, 1, { kind: 'finished' }],
  ] as const)('given %s, another running %s, run %d: %o', (status, otherRunning, runs, expected) => {
    expect(decideSyncStart({ status, otherRunning, runs, maxRuns: 3 })).toEqual(expected);
  });

  it.each(['done', 'failed', 'skipped'])('%s is final: the client stops polling', (s) => {
    expect(isFinalSyncStatus(s)).toBe(true);
  });

  const base = {
    id: 't1',
    queuedAt: new Date('2025-01-01T00:00:00Z'),
    ordersAdded: 5,
    customersAdded: 2,
    durationMs: 40,
    reason: 'already_running',
  };
  it.each([
    ['queued', {}],
    ['running', {}],
    ['done', { orders_added: 5, customers_added: 2, duration_ms: 40 }],
    ['skipped', { reason: 'already_running' }],
    ['failed', { reason: 'already_running' }],
  ] as const)(
    'the %s task object carries counters only when done, a reason only when skipped or failed',
    (status, extra) => {
      expect(syncTaskView({ ...base, status: status })).toEqual({
        task_id: 't1',
        queued_at: '2025-01-01T00:00:00.000Z',
        status,
        ...extra,
      });
    },
  );
});
