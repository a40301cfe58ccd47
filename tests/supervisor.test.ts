import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RESTART_POLICY, nextRestart, supervise } from '../scripts/lib/supervisor.mjs';

describe('the restart policy of npm start', () => {
  it('waits 1 s, then doubles per quick exit up to 30 s', () => {
    let state = { failures: 0 };
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      const next = nextRestart(state, 500);
      delays.push(next.delayMs);
      state = next.state;
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it('starts over at 1 s after a run that stayed up a minute', () => {
    const afterLoop = { failures: 6 };
    expect(nextRestart(afterLoop, 59_999).delayMs).toBe(30_000);
    expect(nextRestart(afterLoop, 60_000)).toEqual({ delayMs: 1000, state: { failures: 1 } });
  });

  it('takes its bounds from the policy', () => {
    const policy = { initialMs: 10, maxMs: 35, resetAfterMs: 100 };
    expect([0, 1, 2, 3].map((failures) => nextRestart({ failures }, 0, policy).delayMs)).toEqual([
      10, 20, 35, 35,
    ]);
    expect(DEFAULT_RESTART_POLICY).toEqual({ initialMs: 1000, maxMs: 30000, resetAfterMs: 60000 });
  });
});

describe('supervise', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('restarts a child that exits, logs each restart, and stop() ends the running child', async () => {
    dir = mkdtempSync(join(tmpdir(), 'holdfast-supervise-'));
    const runs = join(dir, 'runs');
    // Each run appends a line; the first two exit at once (code 3), the third stays up.
    const script = `
      const fs = require('node:fs');
      fs.appendFileSync(${JSON.stringify(runs)}, 'run\\n');
      const n = fs.readFileSync(${JSON.stringify(runs)}, 'utf8').split('\\n').length - 1;
      if (n < 3) process.exit(3);
      setInterval(() => {}, 1000);
    `;
    const logs: string[] = [];
    const s = supervise({
      name: 'svc',
      start: () => spawn(process.execPath, ['-e', script], { stdio: 'ignore' }),
      log: (m) => logs.push(m),
      policy: { initialMs: 20, maxMs: 1000, resetAfterMs: 60_000 },
    });
    const deadline = Date.now() + 15_000;
    while (s.restarts < 2 || readRuns() < 3) {
      if (Date.now() > deadline) throw new Error(`not restarted: ${logs.join(' | ')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    function readRuns(): number {
      try {
        return readFileSync(runs, 'utf8').split('\n').length - 1;
      } catch {
        return 0;
      }
    }
    expect(logs).toHaveLength(2);
    expect(logs[0]).toMatch(/^svc exited \(code 3\) after [\d.]+ s; restart #1 in 0\.02 s$/);
    expect(logs[1]).toMatch(/^svc exited \(code 3\) after [\d.]+ s; restart #2 in 0\.04 s$/);
    const child = s.child;
    expect(child.exitCode).toBeNull();
    await s.stop();
    expect(child.signalCode).toBe('SIGTERM');
    // Stopped means stopped: nothing is started again.
    await new Promise((r) => setTimeout(r, 100));
    expect(s.restarts).toBe(2);
    expect(readRuns()).toBe(3);
  });
});
