// The body budget's shares on the real gateway: one key holding many slow uploads fills its own share
// (429 for it) and never the gateway's budget, so another account's ingest still goes through.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintApiKey } from '@holdfast/control-plane';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { call, newAccount, orderRow, startGateway, type TestGateway } from '@holdfast/testing/services';
import { BODY_BUDGET_DETAIL } from '../../src/http/body-budget.js';

const UPLOAD = 100_000;
const BUDGET = {
  bodyBudgetBytes: 1_000_000,
  bodyBudgetPerKeyBytes: 300_000,
  bodyBudgetPerAccountBytes: 500_000,
};

let t: TestEnv;
beforeAll(async () => {
  t = await createTestEnv('gw-body-shares');
});
afterAll(async () => {
  await t?.close();
});

/** An upload that declares UPLOAD bytes, sends a few and then nothing: the status line of its answer, if any. */
interface SlowUpload {
  readonly socket: Socket;
  status(): number | null;
}

function slowUpload(url: string, key: string): Promise<SlowUpload> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(
        `POST /ingest/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${UPLOAD}\r\n\r\n{"orders":[`,
      );
      resolve({
        socket,
        status: () => {
          const m = /^HTTP\/1\.1 (\d{3})/.exec(answer);
          return m ? Number(m[1]) : null;
        },
      });
    });
    socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
    socket.on('error', reject);
  });
}

/** Opens `n` slow uploads at once and waits until the refused ones are answered; [held, refused statuses]. */
async function hold(
  url: string,
  key: string,
  n: number,
  expectHeld: number,
): Promise<[SlowUpload[], number[]]> {
  const uploads = await Promise.all(Array.from({ length: n }, () => slowUpload(url, key)));
  const deadline = Date.now() + 10_000;
  while (uploads.filter((u) => u.status() !== null).length < n - expectHeld && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 300)); // nothing more is answered
  return [
    uploads.filter((u) => u.status() === null),
    uploads.map((u) => u.status()).filter((s) => s !== null),
  ];
}

/** Another account's ordinary ingest call: a few dozen KB of orders. */
const otherAccountIngest = async (gw: TestGateway) => {
  const b = await newAccount(t);
  const orders = Array.from({ length: 150 }, (_, i) => orderRow({ order_id: `B${i}`, customer_id: `C${i}` }));
  return call(gw.url, 'POST', '/ingest/orders', { key: b.key, body: { orders } });
};

describe('the body budget per key and per account', () => {
  it('given one key holding many slow uploads, then it holds only its share (429 with Retry-After beyond), its account only its share, and another account ingests', async () => {
    const gw = await startGateway(t, { config: BUDGET });
    const open: Socket[] = [];
    try {
      const a = await newAccount(t);
      const [held, refused] = await hold(gw.url, a.key, 8, 3);
      open.push(...held.map((u) => u.socket));
      expect(held).toHaveLength(3); // 300,000 bytes: the key's share
      expect(refused).toEqual(Array(5).fill(429));
      const over = await call(gw.url, 'POST', '/ingest/orders', {
        key: a.key,
        body: { orders: [orderRow()] },
      });
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toBe('2');
      expect(over.json).toEqual({ detail: 'Rate limit exceeded, try again in about 2 seconds' });

      // A second key of the same account: the account's share (500,000) leaves it two.
      const second = await mintApiKey(t.db, a.accountId, 'ingest_live');
      const [held2, refused2] = await hold(gw.url, second.key, 4, 2);
      open.push(...held2.map((u) => u.socket));
      expect(held2).toHaveLength(2);
      expect(refused2).toEqual([429, 429]);

      const other = await otherAccountIngest(gw);
      expect(other.status).toBe(200);
    } finally {
      for (const s of open) s.destroy();
      await gw.close();
    }
  });

  it('given shares larger than the budget (the gateway-wide limit alone), then the same key spends it all and another account gets 503: what the shares prevent', async () => {
    const gw = await startGateway(t, {
      config: { ...BUDGET, bodyBudgetPerKeyBytes: 10_000_000, bodyBudgetPerAccountBytes: 10_000_000 },
    });
    const open: Socket[] = [];
    try {
      const a = await newAccount(t);
      const [held, refused] = await hold(gw.url, a.key, 12, 10);
      open.push(...held.map((u) => u.socket));
      expect(held).toHaveLength(10);
      expect(refused).toEqual([503, 503]);
      const other = await otherAccountIngest(gw);
      expect(other.status).toBe(503);
      expect(other.json).toEqual({ detail: BODY_BUDGET_DETAIL });
    } finally {
      for (const s of open) s.destroy();
      await gw.close();
    }
  });
});
