import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { withoutKafkajsNegativeTimeout } from './kafkajs-timeout-warning.js';

// kafkajs's own request queue: the code that computes the negative delay.
const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue') as new (o: {
  requestTimeout: number;
  enforceRequestTimeout: boolean;
  clientId: string;
  broker: string;
  logger: unknown;
  isConnected: () => boolean;
}) => { scheduleCheckPendingRequests(): void; destroy(): void };
const logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Runs `f` with process.emitWarning filtered over a recorder, and with a setTimeout that warns on a
 * negative delay as Node's does (Node itself warns only once per process, so a test cannot rely on it).
 */
function warningsDuring(f: () => void): string[] {
  const seen: string[] = [];
  const emit = process.emitWarning;
  const realSetTimeout = globalThis.setTimeout;
  process.emitWarning = withoutKafkajsNegativeTimeout(((w: string, type?: string) => {
    seen.push(`${type}: ${w}`);
  }) as typeof process.emitWarning);
  globalThis.setTimeout = ((cb: () => void, ms?: number) => {
    if (ms !== undefined && ms < 0)
      process.emitWarning(
        `${ms} is a negative number.\nTimeout duration was set to 1.`,
        'TimeoutNegativeWarning',
      );
    return realSetTimeout(cb, ms !== undefined && ms < 1 ? 1 : ms);
  }) as typeof setTimeout;
  try {
    f();
  } finally {
    process.emitWarning = emit;
    globalThis.setTimeout = realSetTimeout;
  }
  return seen;
}

const idleQueue = () =>
  new RequestQueue({
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 't',
    broker: 'b',
    logger,
    isConnected: () => true,
  });

describe('withoutKafkajsNegativeTimeout', () => {
  it('given an idle kafkajs request queue, when it schedules its pending-requests check, then its negative delay is not reported', () => {
    const queue = idleQueue();
    try {
      expect(warningsDuring(() => queue.scheduleCheckPendingRequests())).toEqual([]);
    } finally {
      queue.destroy();
    }
  });

  it('given the same delay from our own code, when it is scheduled, then the warning is reported', () => {
    const seen = warningsDuring(() => clearTimeout(setTimeout(() => {}, -1 - Date.now())));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^TimeoutNegativeWarning: -\d+ is a negative number/);
  });

  it('given another kind of warning, when it is emitted, then it is reported', () => {
    const seen = warningsDuring(() => process.emitWarning('something else', 'DeprecationWarning'));
    expect(seen).toEqual(['DeprecationWarning: something else']);
  });
});
