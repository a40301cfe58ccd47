// Process and port helpers for the local stack: detached daemons with pid files, readiness waits.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join } from 'node:path';

export function pidFile(settings, name) {
  return join(settings.runDir, `${name}.pid`);
}

export function logFile(settings, name) {
  return join(settings.runDir, `${name}.log`);
}

export function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function readPid(settings, name) {
  const file = pidFile(settings, name);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && isAlive(pid) ? pid : undefined;
}

/** True when something accepts TCP connections on host:port. */
export function portOpen(host, port, timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Starts a daemon in its own process group, output appended to its log file; returns its pid. */
export function startDaemon(settings, name, command, args, { cwd, env, uid, gid } = {}) {
  const log = logFile(settings, name);
  mkdirSync(dirname(log), { recursive: true });
  const fd = openSync(log, 'a');
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', fd, fd],
    uid,
    gid,
  });
  child.unref();
  writeFileSync(pidFile(settings, name), String(child.pid));
  return child.pid;
}

/** Polls `check` until it returns true or the deadline passes; names the log file on failure. */
export async function waitUntil(what, check, { deadlineMs, log, pid }) {
  const until = Date.now() + deadlineMs;
  for (;;) {
    if (await check()) return;
    if (pid !== undefined && !isAlive(pid)) {
      throw new Error(`${what} exited during start-up; see its log: ${log}`);
    }
    if (Date.now() > until) {
      throw new Error(`${what} was not ready within ${Math.round(deadlineMs / 1000)} s; see its log: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Stops a daemon's whole process group: SIGTERM, then SIGKILL after a grace period. */
export async function stopDaemon(settings, name, graceMs = 15_000) {
  const pid = readPid(settings, name);
  rmSync(pidFile(settings, name), { force: true });
  if (pid === undefined) return false;
  const signal = (sig) => {
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        /* already gone */
      }
    }
  };
  signal('SIGTERM');
  const until = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
  if (isAlive(pid)) signal('SIGKILL');
  while (isAlive(pid)) await new Promise((r) => setTimeout(r, 50));
  return true;
}

export function run(command, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`${command} ${args.join(' ')} failed (${code}):\n${out.slice(-4000)}`)),
    );
  });
}
