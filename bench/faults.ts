// The fault injector's two halves: a private stack (broker, registry, embedded PostgreSQL on ports of
// its own, in a temporary directory) that may be killed, frozen and restarted without touching the
// stack anybody else uses; and a small supervisor that runs the Holdfast services as processes,
// restarts one that exits, and records every exit as planned (the injector killed it) or not, with
// the last error line of its log.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  type WriteStream,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadSettings } from '../infra/lib/settings.mjs';
import { startKafka } from '../infra/lib/kafka.mjs';
import { stopDaemon } from '../infra/lib/proc.mjs';
import { down, up, type StackEnv } from '../infra/lib/stack.mjs';
import { freePort } from './stack.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pid: number, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (alive(pid) && Date.now() < until) await sleep(50);
}

/**
 * Ports of a private stack: broker, controller, registry, management, probe, embedded PostgreSQL.
 * `base` gives base+0 … base+5; a cluster of n brokers takes base … base+2n−1 for its brokers and
 * controllers (infra/lib/kafka.mjs: node i on port + 2(i−1)), then the other four. Without `base`
 * free ports are picked (one broker only: a cluster needs consecutive ones).
 */
async function stackPorts(base?: number, brokers = 1): Promise<number[]> {
  if (base) {
    const rest = 2 * brokers;
    return [base, base + 1, base + rest, base + rest + 1, base + rest + 2, base + rest + 3];
  }
  if (brokers > 1) throw new Error('a private cluster needs a port base');
  const out: number[] = [];
  while (out.length < 6) {
    const p = await freePort();
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

/**
 * A broker, a registry and an embedded PostgreSQL of their own, started by `infra/lib/stack.mjs` on
 * private ports and data directories (downloads are shared with the main cache). Every fault the
 * chaos benchmark injects lands here and nowhere else.
 */
export class PrivateStack {
  private constructor(
    readonly env: StackEnv,
    private readonly settings: { runDir: string; dataDir: string },
    private readonly dirs: string[],
    private readonly log: (m: string) => void,
  ) {}

  static async start(log: (m: string) => void, portBase?: number, brokers = 1): Promise<PrivateStack> {
    const [kafka, controller, registry, management, probe, embedded] = await stackPorts(portBase, brokers);
    const cache = mkdtempSync(join(tmpdir(), 'holdfast-chaos-'));
    // As root the embedded server runs as `postgres`, which must be able to reach its directory.
    const pgParent = mkdtempSync('/var/tmp/holdfast-chaos-pg-');
    chmodSync(pgParent, 0o755);
    const mainCache = process.env.HOLDFAST_INSTALL_DIR ?? join(homedir(), '.cache', 'holdfast');
    const env: Record<string, string | undefined> = {
      HOLDFAST_CACHE: cache,
      HOLDFAST_INSTALL_DIR: mainCache,
      HOLDFAST_KAFKA_PORT: String(kafka),
      HOLDFAST_KAFKA_CONTROLLER_PORT: String(controller),
      HOLDFAST_KAFKA_BROKER_COUNT: String(brokers),
      HOLDFAST_REGISTRY_PORT: String(registry),
      HOLDFAST_REGISTRY_MANAGEMENT_PORT: String(management),
      // Nothing listens on the probed port, so the stack starts (and owns) an embedded server.
      HOLDFAST_PG_PORT: String(probe),
      HOLDFAST_EMBEDDED_PG_PORT: String(embedded),
      HOLDFAST_PG_DATA: join(pgParent, 'data'),
      HOLDFAST_KAFKA_HEAP: process.env.HOLDFAST_KAFKA_HEAP ?? '384m',
      HOLDFAST_REGISTRY_HEAP: process.env.HOLDFAST_REGISTRY_HEAP ?? '256m',
    };
    const settings = loadSettings(env) as { runDir: string; dataDir: string };
    const stack = new PrivateStack(await up(settings, log), settings, [cache, pgParent], log);
    return stack;
  }

  /** The pid of a daemon the stack started (kafka or a cluster's kafka-i, registry, postgres). */
  pid(name: 'kafka' | `kafka-${number}` | 'registry' | 'postgres'): number | undefined {
    try {
      const pid = Number(readFileSync(join(this.settings.runDir, `${name}.pid`), 'utf8').trim());
      return Number.isInteger(pid) && alive(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /** Starts whatever is missing again (idempotent) and returns once all of it answers. */
  async restore(): Promise<void> {
    // Right after PostgreSQL comes back the registry's port is open but it may answer 5xx for a
    // while (its pool reconnecting), which `up` reads as "not the registry": ask again.
    const until = Date.now() + 180_000;
    for (;;) {
      try {
        await up(this.settings, this.log);
        return;
      } catch (err) {
        if (Date.now() > until) throw err;
        this.log(`not all back yet (${(err as Error).message}); asking again`);
        await sleep(1000);
      }
    }
  }

  /** Bytes on disk of every partition replica of the topics whose name starts with `prefix`. */
  kafkaBytes(prefix: string): number {
    let total = 0;
    const walk = (dir: string, counted: boolean): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p, counted || e.name.startsWith(prefix));
        // Segments only: the index files are preallocated (10 MiB each, mostly holes).
        else if (counted && e.name.endsWith('.log'))
          total += statSync(p, { throwIfNoEntry: false })?.size ?? 0;
      }
    };
    walk(this.settings.dataDir, false);
    return total;
  }

  /** SIGKILLs a daemon's process group and waits until it is gone. */
  async kill(name: 'kafka' | `kafka-${number}` | 'registry'): Promise<void> {
    const pid = this.pid(name);
    if (pid === undefined) throw new Error(`${name} is not running under this stack`);
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      process.kill(pid, 'SIGKILL');
    }
    await waitGone(pid);
  }

  freeze(name: 'registry'): void {
    process.kill(this.pid(name)!, 'SIGSTOP');
  }

  thaw(name: 'registry'): void {
    const pid = this.pid(name);
    if (pid !== undefined) process.kill(pid, 'SIGCONT');
  }

  /** Fast shutdown of the embedded server (what a restart or a failover does to the clients). */
  async stopPostgres(): Promise<void> {
    const pid = this.pid('postgres');
    if (pid === undefined) throw new Error('the embedded PostgreSQL is not running under this stack');
    process.kill(pid, 'SIGINT');
    await waitGone(pid);
  }

  /** `pg_terminate_backend` on every other connection of the private server; returns how many. */
  async terminateConnections(): Promise<number> {
    const admin = new URL(this.env.DATABASE_URL);
    admin.pathname = '/postgres';
    const c = new pg.Client({ connectionString: admin.toString() });
    await c.connect();
    try {
      const { rows } = await c.query<{ n: number }>(
        `select count(*) filter (where pg_terminate_backend(pid))::int as n
           from pg_stat_activity where pid <> pg_backend_pid() and backend_type = 'client backend'`,
      );
      return rows[0]!.n;
    } finally {
      await c.end();
    }
  }

  /** Stops every daemon; removes the data too unless `keepData` (a failed run's evidence). */
  async close({ keepData = false }: { keepData?: boolean } = {}): Promise<void> {
    this.thaw('registry');
    await down(this.settings, () => {});
    if (keepData) this.log(`kept the stack's data for inspection: ${this.dirs.join(' ')}`);
    else for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}

/**
 * A broker alone, on ports of its own (`port` and `port + 1` for its controller) with its data in a
 * temporary directory: for tests that kill and restart Kafka under a client without a whole stack.
 */
export class PrivateBroker {
  private constructor(
    readonly brokers: string,
    private readonly settings: { runDir: string },
    private readonly dir: string,
    private readonly log: (m: string) => void,
  ) {}

  static async start(log: (m: string) => void, port?: number): Promise<PrivateBroker> {
    const kafkaPort = port ?? (await freePort());
    const controller = port ? port + 1 : await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'holdfast-broker-'));
    const settings = loadSettings({
      HOLDFAST_CACHE: dir,
      HOLDFAST_INSTALL_DIR: process.env.HOLDFAST_INSTALL_DIR ?? join(homedir(), '.cache', 'holdfast'),
      HOLDFAST_KAFKA_PORT: String(kafkaPort),
      HOLDFAST_KAFKA_CONTROLLER_PORT: String(controller),
      HOLDFAST_KAFKA_HEAP: process.env.HOLDFAST_KAFKA_HEAP ?? '256m',
    }) as { runDir: string };
    const brokers = await startKafka(settings, log);
    return new PrivateBroker(brokers, settings, dir, log);
  }

  /** SIGKILLs the broker (no clean shutdown: what a crash or an OOM kill does) and waits until it is gone. */
  async kill(): Promise<void> {
    let pid: number | undefined;
    try {
      pid = Number(readFileSync(join(this.settings.runDir, 'kafka.pid'), 'utf8').trim());
    } catch {
      throw new Error('the private broker is not running');
    }
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      process.kill(pid, 'SIGKILL');
    }
    await waitGone(pid);
  }

  /** Starts it again on the same ports and data; resolves once it answers. */
  async restart(): Promise<void> {
    await startKafka(this.settings, this.log);
  }

  async close(): Promise<void> {
    await stopDaemon(this.settings, 'kafka');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A KRaft cluster of `size` combined broker+controller nodes alone (no registry, no PostgreSQL), on
 * ports of its own: node i (1-based) listens on `port + 2(i−1)` and its controller on the next port
 * (infra/lib/kafka.mjs), replication factor 3 and min.insync.replicas 2. For tests that freeze or kill
 * one broker under a client.
 */
export class PrivateCluster {
  private constructor(
    readonly brokers: string,
    private readonly settings: { runDir: string },
    private readonly dir: string,
    readonly size: number,
  ) {}

  static async start(log: (m: string) => void, port: number, size = 3): Promise<PrivateCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'holdfast-cluster-'));
    const settings = loadSettings({
      HOLDFAST_CACHE: dir,
      HOLDFAST_INSTALL_DIR: process.env.HOLDFAST_INSTALL_DIR ?? join(homedir(), '.cache', 'holdfast'),
      HOLDFAST_KAFKA_PORT: String(port),
      HOLDFAST_KAFKA_CONTROLLER_PORT: String(port + 1),
      HOLDFAST_KAFKA_BROKER_COUNT: String(size),
      HOLDFAST_KAFKA_HEAP: process.env.HOLDFAST_KAFKA_HEAP ?? '256m',
    }) as { runDir: string };
    const cluster = new PrivateCluster('', settings, dir, size);
    try {
      const brokers = await startKafka(settings, log);
      return new PrivateCluster(brokers, settings, dir, size);
    } catch (err) {
      await cluster.close();
      throw err;
    }
  }

  /** The pid of node `id` (1-based), if it runs. */
  pid(id: number): number | undefined {
    try {
      const pid = Number(readFileSync(join(this.settings.runDir, `kafka-${id}.pid`), 'utf8').trim());
      return Number.isInteger(pid) && alive(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  private signal(id: number, sig: NodeJS.Signals): number {
    const pid = this.pid(id);
    if (pid === undefined) throw new Error(`kafka-${id} is not running under this cluster`);
    try {
      process.kill(-pid, sig);
    } catch {
      process.kill(pid, sig);
    }
    return pid;
  }

  /** SIGSTOPs node `id`: its connections stay open and its requests go unanswered (a hung broker). */
  freeze(id: number): void {
    this.signal(id, 'SIGSTOP');
  }

  /** SIGKILLs node `id` (frozen or not) and waits until it is gone. */
  async kill(id: number): Promise<void> {
    await waitGone(this.signal(id, 'SIGKILL'));
  }

  async close(): Promise<void> {
    for (let id = 1; id <= this.size; id++) await stopDaemon(this.settings, `kafka-${id}`);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export type ServiceName = 'gateway' | 'projector' | 'recompute' | 'dispatcher';

/** One exit of a supervised service. */
export interface ServiceExit {
  service: ServiceName;
  /** Which process of the service (its name, or the one given to `start`: `projector-2`). */
  instance: string;
  at: number;
  code: number | null;
  signal: string | null;
  /** The injector killed it on purpose. */
  planned: boolean;
  /** The last error line of its output before the exit (unplanned exits). */
  reason: string;
}

interface Supervised {
  name: ServiceName;
  instance: string;
  port: number;
  /** Where /readyz answers: the gateway's and the recompute's ops listener, else PORT itself. */
  opsPort: number;
  child?: ChildProcess;
  plannedKill: boolean;
  /** Killed for good: not restarted (a process that is gone, whose work the others take over). */
  retired?: boolean;
  restarts: number;
  startedAt: number;
  tail: string[];
  log: WriteStream;
  /** Node flags before the script (some, like --trace-gc, are not allowed in NODE_OPTIONS). */
  nodeArgs: readonly string[];
  /** Resolves when the current incarnation answers its readiness URL. */
  ready?: Promise<number>;
}

/** The line of a service's recent output that best explains an exit. */
function exitReason(tail: readonly string[]): string {
  // Only unindented lines (not stack frames or the fields of a printed error object), no banner.
  const lines = tail.filter((l) => !/^\s|^Node\.js v|^[\^{}()[\],]*$/.test(l));
  const pick =
    [...lines].reverse().find((l) => /^[A-Za-z]*(Error|error)\b[^:]*:/.test(l)) ??
    [...lines].reverse().find((l) => /uncaught|unhandled|fatal|"level":(50|60)|error/i.test(l)) ??
    lines[lines.length - 1] ??
    '(no output)';
  const emitter = tail.map((l) => /^Emitted 'error' event on (\S+)/.exec(l)?.[1]).find(Boolean);
  const why = emitter ? `${pick} (unhandled 'error' event on ${emitter})` : pick;
  return why.length > 300 ? `${why.slice(0, 300)}…` : why;
}

const TRACE_GC_LINE = /^\[\d+:0x[0-9a-f]+\]\s+\d+ ms: /;

/**
 * Runs services as processes and restarts one that exits (backoff 0.25 s doubling to 5 s, reset
 * after 10 s of life), as a process supervisor would. `kill` marks the next exit as planned.
 */
export class ServiceSupervisor {
  readonly exits: ServiceExit[] = [];
  /** By instance name: a service may run as several processes (`projector`, `projector-2`). */
  private readonly services = new Map<string, Supervised>();
  private stopping = false;

  constructor(
    private readonly env: Record<string, string>,
    private readonly logDir: string,
  ) {
    mkdirSync(logDir, { recursive: true });
  }

  /**
   * Starts a service on a fixed port (kept across restarts) and waits until it answers; `instance`
   * names a further process of the same service.
   */
  async start(
    name: ServiceName,
    extra: Record<string, string> = {},
    instance: string = name,
    nodeArgs: readonly string[] = [],
  ): Promise<number> {
    const port = await freePort();
    const s: Supervised = {
      name,
      instance,
      port,
      opsPort: name === 'gateway' || name === 'recompute' ? await freePort() : port,
      plannedKill: false,
      restarts: 0,
      startedAt: 0,
      tail: [],
      log: createWriteStream(join(this.logDir, `${instance}.log`), { flags: 'a' }),
      nodeArgs,
    };
    this.services.set(instance, s);
    this.spawn(s, extra);
    await this.ready(instance);
    return s.port;
  }

  port(name: string): number {
    return this.services.get(name)!.port;
  }

  /** Where the instance serves /healthz, /readyz and /metrics. */
  opsPort(name: string): number {
    return this.services.get(name)!.opsPort;
  }

  pid(name: string): number | undefined {
    const c = this.services.get(name)?.child;
    return c && c.exitCode === null && c.signalCode === null ? c.pid : undefined;
  }

  pids(): Record<string, number | undefined> {
    return Object.fromEntries([...this.services.keys()].map((n) => [n, this.pid(n)]));
  }

  /** The time the current incarnation answered its readiness URL (waits for it). */
  ready(name: string): Promise<number> {
    return this.services.get(name)!.ready!;
  }

  /** SIGKILLs the service on purpose; the supervisor restarts it unless `restart` is false. */
  kill(name: string, { restart = true }: { restart?: boolean } = {}): void {
    const s = this.services.get(name)!;
    s.plannedKill = true;
    if (!restart) s.retired = true;
    s.child?.kill('SIGKILL');
  }

  /**
   * SIGKILLs the service and waits for the supervisor's next incarnation to answer; returns the
   * time of the kill and the time it answered again.
   */
  async killAndWaitReady(name: string): Promise<{ killedAt: number; readyAt: number }> {
    const s = this.services.get(name)!;
    const old = s.child;
    const killedAt = Date.now();
    this.kill(name);
    while (s.child === old) await sleep(20);
    return { killedAt, readyAt: await s.ready! };
  }

  private spawn(s: Supervised, extra: Record<string, string>): void {
    const child = spawn(
      process.execPath,
      [...s.nodeArgs, '--conditions=source', '--import', 'tsx', `services/${s.name}/src/main.ts`],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          ...this.env,
          PORT: String(s.port),
          HOLDFAST_OPS_PORT: String(s.opsPort),
          ...extra,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    s.child = child;
    s.startedAt = Date.now();
    const onData = (d: Buffer) => {
      s.log.write(d);
      for (const line of d.toString('utf8').split('\n')) {
        // --trace-gc lines (the soak) stay in the log file but out of the tail that explains an exit.
        if (!line.trim() || TRACE_GC_LINE.test(line)) continue;
        s.tail.push(line);
        if (s.tail.length > 400) s.tail.shift();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    s.ready = this.waitReady(s, child);
    s.ready.catch(() => {});
    // 'close', not 'exit': the last output (the crash's stack) may arrive after 'exit'.
    child.once('close', (code, signal) => {
      const planned = s.plannedKill || this.stopping;
      s.plannedKill = false;
      this.exits.push({
        service: s.name,
        instance: s.instance,
        at: Date.now(),
        code,
        signal,
        planned,
        reason: planned ? 'killed by the injector' : exitReason(s.tail),
      });
      s.log.write(
        `\n--- exit code=${code} signal=${signal} planned=${planned} at ${new Date().toISOString()}\n`,
      );
      s.tail = [];
      if (this.stopping || s.retired) return;
      const lived = Date.now() - s.startedAt;
      if (lived > 10_000) s.restarts = 0;
      const delay = planned ? 0 : Math.min(5000, 250 * 2 ** s.restarts++);
      setTimeout(() => {
        if (!this.stopping) this.spawn(s, extra);
      }, delay);
    });
  }

  private async waitReady(s: Supervised, child: ChildProcess): Promise<number> {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        // This incarnation died before it was ready: wait for the next one.
        await sleep(100);
        if (s.child !== child) return s.ready!;
        continue;
      }
      // Every service answers /readyz on its ops listener once its dependencies answer and its
      // consumers are joined.
      try {
        const r = await fetch(`http://127.0.0.1:${s.opsPort}/readyz`, { signal: AbortSignal.timeout(1000) });
        await r.arrayBuffer();
        if (r.ok) return Date.now();
      } catch {
        /* not yet */
      }
      await sleep(100);
    }
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    const waits: Promise<unknown>[] = [];
    for (const s of this.services.values()) {
      const c = s.child;
      if (c && c.exitCode === null && c.signalCode === null) {
        waits.push(new Promise((r) => c.once('exit', r)));
        c.kill('SIGTERM');
        setTimeout(() => c.kill('SIGKILL'), 10_000).unref();
      }
    }
    await Promise.all(waits);
    for (const s of this.services.values()) s.log.end();
  }
}
