import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** The figures of one benchmark run; `bench`, `commit` and `cores` are added by `report`. */
export type Figures = Record<string, number | string | Record<string, number>>;

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

function commit(): string {
  try {
    return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** Prints a readable table, then the figures as one JSON line (also written under bench-results/). */
export function report(bench: string, figures: Figures, table: [string, string | number][]): void {
  const out = {
    bench,
    commit: commit(),
    cores: cpus().length,
    load_avg_1m: Math.round(loadavg()[0]! * 100) / 100,
    ...figures,
  };
  const width = Math.max(...table.map(([k]) => k.length));
  console.log(`\n${bench}`);
  for (const [k, v] of table) console.log(`  ${k.padEnd(width)}  ${typeof v === 'number' ? fmt(v) : v}`);
  mkdirSync('bench-results', { recursive: true });
  writeFileSync(
    `bench-results/${bench}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
    JSON.stringify(out, null, 2),
  );
  console.log(JSON.stringify(out));
}

export function fmt(n: number): string {
  return Number.isInteger(n) || Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2);
}
