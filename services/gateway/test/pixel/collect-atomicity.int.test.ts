import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AnyEvent } from '@holdfast/contracts';
import { topicName, type OutgoingRecord, type SinglePartitionAppender } from '@holdfast/kafka';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { batchIdOf } from '../test-support/topic-reader.js';
import { startGateway, type TestGateway } from '@holdfast/testing/services';
import { PIXEL_UNAVAILABLE_DETAIL, PIXEL_UNAVAILABLE_RETRY_AFTER_S } from '../../src/pixel/collect-route.js';
import { SuppressionCache } from '../../src/privacy/suppression-cache.js';
import { collect, pixelEvent, pixelKey } from './testing/collector-client.js';

let t: TestEnv;
let stack: TestGateway;

interface Placed {
  readonly partition: number;
  readonly offset: number;
  readonly event: AnyEvent;
}

/** Every record of holdfast.pixel-events with its partition and offset, read_committed. */
async function readPixelTopic(done: (got: readonly Placed[]) => boolean): Promise<Placed[]> {
  const consumer = t.verifier.consumer({
    groupId: `${t.topicPrefix}atomicity-${randomUUID()}`,
    maxWaitTimeInMs: 100,
  });
  const got: Placed[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({
      topic: topicName(t.topicPrefix, 'holdfast.pixel-events'),
      fromBeginning: true,
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('pixel topic: condition not met in 30 s')), 30_000);
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          got.push({
            partition,
            offset: Number(message.offset),
            event: await t.codec.decode(message.value!),
          });
          if (done(got)) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
    return got;
  } finally {
    await consumer.disconnect();
  }
}

/** An appender that refuses every call, as a broker that cannot be reached would. */
class RefusingAppender implements SinglePartitionAppender {
  calls: OutgoingRecord[][] = [];
  append(records: readonly OutgoingRecord[]): Promise<void> {
    this.calls.push([...records]);
    return Promise.reject(new Error('broker unreachable'));
  }
  async close(): Promise<void> {}
}

/** An appender whose appends hang until released, as a broker that stopped answering. */
class StalledAppender implements SinglePartitionAppender {
  calls = 0;
  private readonly waiting: (() => void)[] = [];
  append(): Promise<void> {
    this.calls++;
    return new Promise((_resolve, reject) => this.waiting.push(() => reject(new Error('request timed out'))));
  }
  release(): void {
    for (const fail of this.waiting.splice(0)) fail();
  }
  async close(): Promise<void> {}
}

beforeAll(async () => {
  t = await createTestEnv('pixelatomic');
  stack = await startGateway(t);
});

afterAll(async () => {
  await stack?.close();
  await t?.close();
});

describe('POST /pixel/collect: one request = one record batch on one partition (all or none)', () => {
  it('given 50 events in one request, when accepted, then all 50 are in the log once, on ONE partition at consecutive offsets, in request order', async () => {
    const k = await pixelKey(t);
    const events = Array.from({ length: 50 }, () => pixelEvent());
    const res = await collect(stack.url, { key: k.key, events });
    expect(res.status).toBe(204);
    const ids = new Set<string>(events.map((e) => e.event_id));
    const mine = (got: readonly Placed[]) =>
      got.filter((p) => 'event_id' in p.event.value && ids.has(p.event.value.event_id));
    const got = mine(await readPixelTopic((g) => mine(g).length >= 50));
    expect(got).toHaveLength(50);
    expect(new Set(got.map((p) => p.partition)).size).toBe(1);
    const offsets = got.map((p) => p.offset).sort((x, y) => x - y);
    expect(offsets).toEqual(Array.from({ length: 50 }, (_, i) => offsets[0]! + i));
    expect(got.map((p) => (p.event.value as { event_id: string }).event_id)).toEqual(
      events.map((e) => e.event_id),
    );
    // One request, one batch id.
    expect(new Set(got.map((p) => batchIdOf(p.event))).size).toBe(1);
  });

  it('given the append fails (Kafka away), when posted, then 503 + Retry-After with the detail (never a silent 204) and the request was ONE append of all its events', async () => {
    const refusing = new RefusingAppender();
    const failing = await startGateway(t, { pixelAppender: refusing });
    try {
      const k = await pixelKey(t);
      const events = Array.from({ length: 50 }, () => pixelEvent());
      const res = await collect(failing.url, { key: k.key, events });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe(String(PIXEL_UNAVAILABLE_RETRY_AFTER_S));
      expect(res.json).toEqual({ detail: PIXEL_UNAVAILABLE_DETAIL });
      expect(refusing.calls).toHaveLength(1);
      expect(refusing.calls[0]).toHaveLength(50);
      expect(new Set(refusing.calls[0]!.map((r) => `${r.topic}|${r.key}`))).toEqual(
        new Set([`${topicName(t.topicPrefix, 'holdfast.pixel-events')}|${k.accountId}`]),
      );
    } finally {
      await failing.close();
    }
  });

  it("given the account's suppressions cannot be read, when posted, then 503 + Retry-After and no append (a suppressed browser's events are never stored for want of the list)", async () => {
    const refusing = new RefusingAppender();
    const gw = await startGateway(t, { pixelAppender: refusing });
    const read = vi
      .spyOn(SuppressionCache.prototype, 'browserCheck')
      .mockRejectedValue(new Error('connection terminated'));
    try {
      const k = await pixelKey(t);
      const res = await collect(gw.url, { key: k.key, events: [pixelEvent()] });
      expect([res.status, res.headers.get('retry-after'), res.json]).toEqual([
        503,
        String(PIXEL_UNAVAILABLE_RETRY_AFTER_S),
        { detail: PIXEL_UNAVAILABLE_DETAIL },
      ]);
      expect(read).toHaveBeenCalledWith(k.accountId);
      expect(refusing.calls).toEqual([]);
    } finally {
      read.mockRestore();
      await gw.close();
    }
  });

  it('given an append stalled past PIXEL_APPEND_STALL_MS, when another request comes, then it is answered 503 + Retry-After at once without an append, and the stalled one 503 when it fails', async () => {
    const stalled = new StalledAppender();
    const waiting = await startGateway(t, { pixelAppender: stalled, config: { pixelAppendStallMs: 200 } });
    try {
      const k = await pixelKey(t);
      const first = collect(waiting.url, { key: k.key, events: [pixelEvent()] });
      await expect.poll(() => stalled.calls).toBe(1);
      await new Promise((r) => setTimeout(r, 300));
      const second = await collect(waiting.url, { key: k.key, events: [pixelEvent()] });
      expect(second.status).toBe(503);
      expect(second.headers.get('retry-after')).toBe(String(PIXEL_UNAVAILABLE_RETRY_AFTER_S));
      expect(stalled.calls).toBe(1);
      stalled.release();
      expect((await first).status).toBe(503);
      // The log answers again (nothing in flight): the next request is appended.
      const third = collect(waiting.url, { key: k.key, events: [pixelEvent()] });
      await expect.poll(() => stalled.calls).toBe(2);
      stalled.release();
      expect((await third).status).toBe(503);
    } finally {
      await waiting.close();
    }
  });
});
