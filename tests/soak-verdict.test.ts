// The soak's steady-state slope (bench/soak.ts): MiB per minute by least squares over (ms, MiB) samples.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { liveHeapGrowth, markCompacts, slopePerMinute } from '../bench/soak.js';

describe('slopePerMinute', () => {
  it('given a flat line, when fitted, then 0', () => {
    expect(slopePerMinute([0, 5_000, 10_000].map((t) => [t, 200] as const))).toBe(0);
  });
  it('given 1 MiB more every 30 s with noise around it, when fitted, then 2 MiB/min', () => {
    const points = Array.from(
      { length: 60 },
      (_, i) => [i * 5_000, 100 + i / 6 + (i % 2 ? 0.5 : -0.5)] as const,
    );
    expect(slopePerMinute(points)).toBeCloseTo(2, 1);
  });
  it('given fewer than two samples, then 0', () => {
    expect(slopePerMinute([[0, 100]])).toBe(0);
  });
});

describe('markCompacts', () => {
  it('given a service log with --trace-gc lines of Node 24 between JSON log lines, when read, then every full collection with the heap after it', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'soak-gc-')), 'gateway.log');
    writeFileSync(
      file,
      [
        '[16930:0x3a3c9000]    45009 ms: Scavenge 140.0 (218.2) -> 79.9 (217.7) MB, pooled: 31 MB, 4.82 / 0.01 ms  (average mu = 0.981, current mu = 0.991) allocation failure; ',
        '{"level":40,"service":"gateway","event":"custom_api_projection_behind"}',
        '[16930:0x3a3c9000]   219257 ms: Mark-Compact 188.7 (255.0) -> 62.8 (219.3) MB, pooled: 36 MB, 25.81 / 0.01 ms  (average mu = 0.9, current mu = 0.9) allocation failure; GC in old space requested',
        '[16930:0x3a3c9000]   219546 ms: Mark-Compact (reduce) 106.3 (219.3) -> 62.3 (194.5) MB, pooled: 60 MB, 90.53 / 0.01 ms  (average mu = 0.9) memory reducer',
      ].join('\n'),
    );
    expect(markCompacts(file)).toEqual([
      { atMs: 219_257, after: 62.8 },
      { atMs: 219_546, after: 62.3 },
    ]);
  });
  it('given no log, then none', () => {
    expect(markCompacts('/nonexistent/gateway.log')).toEqual([]);
  });
});

describe('liveHeapGrowth', () => {
  // A 10-minute run: quarters of [2 min, 10 min] are 2:00-4:00 and 8:00-10:00.
  const every = (fromMs: number, toMs: number, mib: (t: number) => number) =>
    Array.from({ length: (toMs - fromMs) / 10_000 }, (_, i) => fromMs + i * 10_000).map((t) => ({
      atMs: t,
      after: mib(t),
    }));

  it('given a flat live heap while the run warms up before minute 2, when judged, then no growth', () => {
    const gcs = [...every(0, 120_000, (t) => 20 + t / 4_000), ...every(120_000, 600_000, () => 55)];
    expect(liveHeapGrowth(gcs, 0, 600_000)?.growth).toBe(0);
  });
  it('given a heap that keeps 1 MiB more every minute, when judged, then the growth from minute 2', () => {
    const h = liveHeapGrowth(
      every(0, 600_000, (t) => 50 + t / 60_000),
      0,
      600_000,
    )!;
    expect(h.from).toBeCloseTo(52.9, 1);
    expect(h.to).toBeCloseTo(58.9, 1);
    expect(h.growth).toBeGreaterThan(0.1);
  });
  it('given the process started 30 s before the load, when judged, then its uptime is shifted onto the load time', () => {
    // The heap settles at uptime 140 s, load time 110 s: before minute 2 of the load, so no growth;
    // judged on uptime instead, the first quarter would still hold the settling.
    const gcs = every(0, 630_000, (t) => (t < 140_000 ? 50 : 80));
    expect(liveHeapGrowth(gcs, 30_000, 600_000)?.growth).toBe(0);
    expect(liveHeapGrowth(gcs, 0, 600_000)!.growth).toBeGreaterThan(0);
  });
  it('given fewer than 2 full collections in a quarter, when judged, then not measured', () => {
    expect(
      liveHeapGrowth(
        [
          { atMs: 130_000, after: 40 },
          { atMs: 590_000, after: 80 },
          { atMs: 595_000, after: 80 },
        ],
        0,
        600_000,
      ),
    ).toBeNull();
  });
});
