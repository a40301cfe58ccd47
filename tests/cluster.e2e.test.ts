// A replicated cluster under faults (issue 16 item 3): three KRaft brokers (replication 3,
// min.insync.replicas 2) on a PRIVATE stack (ports 19400-19409), two gateways, two projectors in one
// consumer group. Orders with re-posts stream for several accounts over every partition while the
// leader of a commerce partition is SIGKILLed and later restarted and one projector is SIGKILLed for
// good: every order must be in the read models exactly once and merged as the spec says, nothing
// dead-lettered, no service exiting on its own, and the surviving projector must hold every partition.
import { describe, expect, it } from 'vitest';
import { clusterLoad, formatClusterFaults, runClusterFaults } from '../bench/cluster.js';

describe('a three-broker cluster with two gateways and two projectors', () => {
  it(
    'keeps every order exactly once through a broker kill and a projector kill',
    { timeout: 600_000 },
    async () => {
      const r = await runClusterFaults({
        accounts: 4,
        load: clusterLoad(40, 1_600),
        settleS: 8,
        brokerDownS: 15,
        portBase: Number(process.env.HOLDFAST_CLUSTER_PORT_BASE ?? 19400),
        log: (m) => console.error(`[cluster] ${m}`),
      });
      const summary = formatClusterFaults(r);
      console.log(summary);
      // The run was real: every partition carried an account, both projectors had work, both gateways
      // were used, and the load went on through the faults.
      expect(new Set(r.accounts.map((a) => a.partition)).size, summary).toBe(4);
      expect(r.assignmentBefore.length, summary).toBe(2);
      for (const p of r.assignmentBefore) expect(p.length, summary).toBeGreaterThan(0);
      for (const a of r.accounts) {
        expect(a.orders, summary).toBeGreaterThan(500);
        expect(a.reposts, summary).toBeGreaterThan(0);
      }
      for (const s of Object.values(r.requests)) {
        expect(s.ok, summary).toBeGreaterThan(0);
        expect(s.gaveUp + s.rejected, summary).toBe(0);
      }
      // The guarantees.
      expect(r.assignmentAfter, summary).toEqual([[0, 1, 2, 3]]);
      expect(r.findings.slice(0, 20), summary).toEqual([]);
      expect(r.deadLetters, summary).toEqual([]);
      expect(
        r.exits.filter((e) => !e.planned),
        summary,
      ).toEqual([]);
    },
  );
});
