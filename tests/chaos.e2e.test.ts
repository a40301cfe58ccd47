// The chaos benchmark's short run as a test (issue 13 item 8): a few thousand orders with re-posts,
// customers, custom-api webhooks and pixel batches against the four services, every fault once (the
// registry freeze shortened), all on a PRIVATE broker, registry and embedded PostgreSQL that the test
// starts on free ports and stops again: the shared stack the other tests use is never touched. Every
// read-model row must match the independent model of the merge rules, every campaign.sent committed
// must reach the healthy webhook receiver once (the faults that crash nothing have their own short
// test, tests/quiet-faults.e2e.test.ts), nothing may be dead-lettered,
// no service may exit unplanned, and the pipeline must move again within 10 s of each dependency's
// return.
import { describe, expect, it } from 'vitest';
import { chaosPreset, formatChaos, RECOVERY_LIMIT_S, runChaos } from '../bench/chaos.js';

describe('the pipeline under chaos (short run)', () => {
  it('keeps every guarantee through every fault', { timeout: 900_000 }, async () => {
    const r = await runChaos({ ...chaosPreset('small'), log: (m) => console.error(`[chaos] ${m}`) });
    const table = formatChaos(r);
    console.log(table);
    // The load was real and exercised every merge rule.
    expect(r.loadOk, table).toBe(true);
    expect(r.counts.orders).toBeGreaterThanOrEqual(2_000);
    expect(Object.keys(r.repostKinds).length).toBe(7);
    expect(r.counts.inBatchDuplicates).toBeGreaterThan(0);
    expect(r.counts.webhooks).toBeGreaterThan(0);
    expect(r.counts.pixelEvents).toBeGreaterThan(0);
    expect(r.faults.length).toBeGreaterThanOrEqual(10);
    // The guarantees.
    expect(r.findings.slice(0, 20), table).toEqual([]);
    expect(
      r.exits.filter((e) => !e.planned),
      table,
    ).toEqual([]);
    expect(
      r.faults.map((f) => [f.name, f.deadLetters]),
      table,
    ).toEqual(r.faults.map((f) => [f.name, 0]));
    for (const f of r.faults.slice(1))
      expect(f.recoveryS ?? Infinity, `${f.name}\n${table}`).toBeLessThanOrEqual(RECOVERY_LIMIT_S);
    expect(r.ok, table).toBe(true);
  });
});
