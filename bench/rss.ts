import { readdirSync, readFileSync } from 'node:fs';

/** Resident set size of a process in MiB (0 when gone). */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

/** Pids whose command line contains `needle`. */
export function pidsMatching(needle: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmd.includes(needle)) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

/**
 * Samples the RSS of named process groups every second and keeps each group's peak
 * (a group's RSS is the sum over its processes: PostgreSQL is a postmaster plus backends). Not
 * more often: a sample scans /proc, and in-process benches (replay, project) pay for it.
 */
export class RssSampler {
  private readonly peaks = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly groups: Record<string, () => number[]>) {}

  start(): this {
    const sample = () => {
      for (const [name, pids] of Object.entries(this.groups)) {
        const total = pids().reduce((s, p) => s + rssMb(p), 0);
        this.peaks.set(name, Math.max(this.peaks.get(name) ?? 0, total));
      }
    };
    sample();
    this.timer = setInterval(sample, 1000);
    return this;
  }

  stop(): Record<string, number> {
    clearInterval(this.timer);
    return Object.fromEntries([...this.peaks].map(([k, v]) => [k, Math.round(v)]));
  }
}
