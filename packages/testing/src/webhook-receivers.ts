// Test support: local webhook receivers (an in-process one with scripted answers, and the dispatcher's
// example receiver as a real child process).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { REPO_ROOT } from './run-ts.js';

export interface ReceivedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface ScriptedReceiver {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A receiver that answers the n-th request with `statuses[n]` (the last one repeats); 'hang' never
 * answers (the sender's timeout must fire).
 */
export async function startScriptedReceiver(
  statuses: readonly (number | 'hang')[],
): Promise<ScriptedReceiver> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = statuses[Math.min(requests.length, statuses.length - 1)] ?? 200;
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (answer === 'hang') return;
      res.writeHead(answer, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ExampleReceiver {
  readonly url: string;
  /** Every JSON line the example printed after its `listening` line. */
  readonly lines: Record<string, unknown>[];
  waitForLines(n: number, timeoutMs?: number): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

const EXAMPLE = join(REPO_ROOT, 'services/dispatcher/examples/verify-signature.mjs');

/** Runs services/dispatcher/examples/verify-signature.mjs (the documented receiver) as a process. */
export async function spawnExampleReceiver(secret: string): Promise<ExampleReceiver> {
  const child: ChildProcess = spawn(process.execPath, [EXAMPLE], {
    env: { ...process.env, WEBHOOK_SECRET: secret, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Record<string, unknown>[] = [];
  let listening: (url: string) => void;
  const ready = new Promise<string>((resolve) => (listening = resolve));
  createInterface({ input: child.stdout! }).on('line', (l) => {
    const j = JSON.parse(l) as Record<string, unknown>;
    if (typeof j.listening === 'string') listening(j.listening);
    else lines.push(j);
  });
  const url = await ready;
  return {
    url: `${url}/webhooks/holdfast`,
    lines,
    waitForLines: async (n, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (lines.length < n) {
        if (Date.now() > deadline) throw new Error(`example receiver printed ${lines.length} of ${n} lines`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return lines;
    },
    close: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
