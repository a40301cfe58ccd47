// The noisy tenant's parts, shared by the fairness and chaos benchmarks: CampaignSent records as the
// recompute appends them, slow 32 MiB uploads, and a stream of them that restarts each as it ends.
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import type { CampaignSent } from '@holdfast/contracts';

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A CampaignSent record of the account, as the recompute appends one per message sent. */
export function campaignSentEvent(accountId: string): CampaignSent {
  const tracking = `hft_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const now = new Date().toISOString();
  return {
    metadata: {
      account_id: accountId,
      event_id: randomUUID(),
      batch_id: null,
      request_id: null,
      key_id: null,
      received_at: now,
    },
    tracking_id: tracking,
    customer_id: randomUUID(),
    campaign_type: 'win_back',
    channel: 'email',
    provider: 'local-mail',
    url: `https://shop.example.com/?utm_source=holdfast&utm_content=${tracking}`,
    sent_at: now,
    task_id: null,
  };
}

/**
 * One slow upload: a 32 MiB body declared up front and written at `kibps`; resolves with the status
 * (or 0 when the connection was dropped) once the gateway answered.
 */
export function slowUpload(port: number, key: string, kibps: number, stop: () => boolean): Promise<number> {
  return new Promise((resolve) => {
    const size = 32 * MiB;
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/ingest/orders',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': size },
    });
    let sent = 0;
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const timer = setInterval(
      () => {
        if (stop()) {
          clearInterval(timer);
          return void req.destroy();
        }
        if (sent >= size) return void clearInterval(timer);
        const n = Math.min(chunk.length, size - sent);
        req.write(chunk.subarray(0, n));
        sent += n;
        if (sent >= size) req.end();
      },
      Math.max(1, Math.round((chunk.length / 1024 / kibps) * 1000)),
    );
    req.on('response', (res) => {
      clearInterval(timer);
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      req.destroy();
    });
    req.on('error', () => {
      clearInterval(timer);
      resolve(0);
    });
  });
}

/**
 * `count` slow uploads at once, spread over `keys`, each restarted as it ends (1 s later when refused
 * with 429/503); `stop()` ends them and resolves with the answers seen.
 */
export function noisyUploads(
  port: number,
  keys: readonly string[],
  count: number,
  kibps: number,
): { started: () => number; statuses: Map<number, number>; stop: () => Promise<void> } {
  let on = true;
  let started = 0;
  const statuses = new Map<number, number>();
  const loops = Array.from({ length: count }, async (_, i) => {
    while (on) {
      started++;
      const s = await slowUpload(port, keys[i % keys.length]!, kibps, () => !on);
      statuses.set(s, (statuses.get(s) ?? 0) + 1);
      if (on) await sleep(s === 429 || s === 503 ? 1000 : 100);
    }
  });
  return {
    started: () => started,
    statuses,
    stop: async () => {
      on = false;
      await Promise.race([Promise.all(loops), sleep(15_000)]);
    },
  };
}
