import type { ChildProcess } from 'node:child_process';

export interface RestartPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly resetAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy;

export function nextRestart(
  state: { failures: number },
  uptimeMs: number,
  policy?: RestartPolicy,
): { delayMs: number; state: { failures: number } };

export interface Supervised {
  readonly child: ChildProcess;
  readonly restarts: number;
  stop(): Promise<void>;
}

export function supervise(opts: {
  name: string;
  start: () => ChildProcess;
  log: (message: string) => void;
  policy?: RestartPolicy;
  now?: () => number;
  killAfterMs?: number;
}): Supervised;
