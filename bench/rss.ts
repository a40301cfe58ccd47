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

/**
 * CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat (0 when gone). On a
 * shared, loaded machine a service's CPU time per unit of work varies far less than its throughput:
 * benches report both.
 */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, inside parentheses): utime is the 14th
    // field of the line, stime the 15th, in clock ticks (100 a second on Linux).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}
