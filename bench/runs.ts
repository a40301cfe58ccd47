// Repeated runs: every bench takes `--runs N` (default 3) and reports the run with the median figure.
import { loadavg } from 'node:os';
import { median } from './report.js';

/** The 1-minute load average now (the machine is shared: each figure is read beside it). */
export function load1m(): number {
  return Math.round(loadavg()[0]! * 100) / 100;
}

/** Runs `once` `runs` times in sequence, logging each figure and the load average beside it. */
export async function repeat<T>(
  name: string,
  runs: number,
  once: (run: number) => Promise<T>,
  figure: (r: T) => number,
): Promise<{ results: T[]; figures: number[]; loads: number[]; median: number; medianRun: T }> {
  const results: T[] = [];
  const loads: number[] = [];
  for (let run = 0; run < runs; run++) {
    loads.push(load1m());
    const r = await once(run);
    results.push(r);
    console.error(
      `${name} run ${run + 1}/${runs}: ${figure(r).toLocaleString('en-US')} (load ${loads[run]})`,
    );
  }
  const figures = results.map(figure);
  const m = median(figures);
  const medianRun =
    results[figures.indexOf(figures.reduce((a, b) => (Math.abs(b - m) < Math.abs(a - m) ? b : a)))]!;
  return { results, figures, loads, median: m, medianRun };
}
