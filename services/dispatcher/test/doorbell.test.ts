import { describe, expect, it } from 'vitest';
import { Doorbell } from '../src/doorbell.js';

describe('the doorbell a poll listens to', () => {
  it('given a ring before anyone listened, when taken, then it was rung once', () => {
    const bell = new Doorbell();
    bell.ring();
    expect(bell.take()).toBe(true);
    expect(bell.take()).toBe(false);
  });

  it('given a listener, when rung, then it is called until it unsubscribes', () => {
    const bell = new Doorbell();
    let calls = 0;
    const off = bell.onRing(() => calls++);
    bell.ring();
    off();
    bell.ring();
    expect(calls).toBe(1);
  });
});
