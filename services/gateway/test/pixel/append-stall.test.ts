import { describe, expect, it } from 'vitest';
import { AppendsInFlight, pixelAppendDecision } from '../../src/pixel/append-stall.js';

const base = { inFlight: 0, oldestStartedAt: null, now: 10_000, maxInFlight: 4, stallMs: 2_000 };

describe('pixelAppendDecision: Kafka away (503) is not load shedding (204)', () => {
  it.each([
    ['nothing in flight', {}, 'append'],
    ['appends in flight, answering', { inFlight: 3, oldestStartedAt: 9_000 }, 'append'],
    ['the cap reached, appends answering', { inFlight: 4, oldestStartedAt: 9_000 }, 'shed'],
    ['the oldest append waiting exactly the threshold', { inFlight: 1, oldestStartedAt: 8_000 }, 'append'],
    ['the oldest append waiting past the threshold', { inFlight: 1, oldestStartedAt: 7_999 }, 'unavailable'],
    ['the cap reached and the appends stalled', { inFlight: 4, oldestStartedAt: 1_000 }, 'unavailable'],
  ] as const)('given %s, then %s', (_name, over, expected) => {
    expect(pixelAppendDecision({ ...base, ...over })).toBe(expected);
  });
});

describe('AppendsInFlight', () => {
  it('given appends begun and settled, then count and oldest follow the ones still in flight', () => {
    const f = new AppendsInFlight();
    expect(f.oldestStartedAt()).toBeNull();
    const a = f.begin(100);
    const b = f.begin(200);
    f.begin(200);
    expect(f.count).toBe(3);
    expect(f.oldestStartedAt()).toBe(100);
    a();
    expect(f.oldestStartedAt()).toBe(200);
    b();
    expect(f.count).toBe(1);
  });
});
