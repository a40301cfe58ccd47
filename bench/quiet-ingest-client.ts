// The fairness bench's quiet ingest load, from a process of its own (bench/fairness.ts): the noisy
// tenant's uploads, appends and campaign steps run in the bench's process, and a latency measured
// there includes the waits of that process's own event loop. Usage (as a child with IPC):
//   node --import tsx bench/quiet-ingest-client.ts <gateway port> <ingest key> <requests/s> <id prefix>
// Parent → child: {cmd: 'cut'} answers {samples, failures} since the last cut; {cmd: 'stop'} ends it.
const [port, key, rps, prefix] = process.argv.slice(2) as [string, string, string, string];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let current = { samples: [] as number[], failures: 0 };
let running = true;
let seq = 0;

process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'cut') {
    const done = current;
    current = { samples: [], failures: 0 };
    process.send!(done);
  } else if (m.cmd === 'stop') running = false;
});

const inFlight = new Set<Promise<void>>();
while (running) {
  const into = current;
  const orders = Array.from({ length: 20 }, () => {
    const k = seq++;
    return {
      order_id: `${prefix}-${k}`,
      customer_id: `${prefix}c-${k % 500}`,
      order_date: new Date(Date.UTC(2025, 0, 1) + k * 60_000).toISOString(),
      order_amount: 10 + (k % 90),
      product_name: 'Tea',
    };
  });
  const p = (async () => {
    const t0 = performance.now();
    try {
      const r = await fetch(`http://127.0.0.1:${port}/ingest/orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ orders }),
        signal: AbortSignal.timeout(60_000),
      });
      await r.arrayBuffer();
      if (r.ok) into.samples.push(performance.now() - t0);
      else into.failures++;
    } catch {
      into.failures++;
    }
  })();
  inFlight.add(p);
  void p.finally(() => inFlight.delete(p));
  await sleep(1000 / Number(rps));
}
await Promise.all(inFlight);
process.disconnect?.();
