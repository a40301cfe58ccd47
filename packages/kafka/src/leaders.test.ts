import { NetworkError, ProtocolError } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { waitForLeaders } from './leaders.js';

// A fake clock: sleeping advances it, so the 30 s deadline is reached without waiting.
function clock() {
  let t = 0;
  return {
    now: () => t,
    sleep: (ms: number) => {
      t += ms;
      return Promise.resolve();
    },
    elapsed: () => t,
  };
}

const unknownTopic = () =>
  Object.assign(new Error('topic t is unknown'), { type: 'UNKNOWN_TOPIC_OR_PARTITION' });

describe('waitForLeaders (createTopics returns when the new topics are served)', () => {
  it('given a just-started broker answering UNKNOWN_TOPIC_OR_PARTITION, then a partition without leader, then leaders, when waited, then it asks again until the leaders are there', async () => {
    const c = clock();
    const answers = [
      unknownTopic(),
      new ProtocolError('UNKNOWN_TOPIC_OR_PARTITION'),
      Object.assign(new Error('no leader'), { type: 'LEADER_NOT_AVAILABLE' }),
      new NetworkError('Connection closed'),
    ];
    let calls = 0;
    await waitForLeaders(
      () => {
        calls++;
        const next = answers.shift();
        return next ? Promise.reject(next) : Promise.resolve();
      },
      { ...c, intervalMs: 200 },
    );
    expect(calls).toBe(5);
    expect(c.elapsed()).toBe(800);
  });

  it('given a failure that is not "not yet" (a refused authorisation), when waited, then it is thrown at once', async () => {
    const c = clock();
    const denied = new ProtocolError('TOPIC_AUTHORIZATION_FAILED');
    await expect(waitForLeaders(() => Promise.reject(denied), c)).rejects.toBe(denied);
    expect(c.elapsed()).toBe(0);
  });

  it('given topics that never get a leader, when waited, then the last answer is thrown after 30 s', async () => {
    const c = clock();
    let calls = 0;
    const probe = () => {
      calls++;
      return Promise.reject(unknownTopic());
    };
    await expect(waitForLeaders(probe, c)).rejects.toThrow('topic t is unknown');
    expect(c.elapsed()).toBe(30_000);
    expect(calls).toBe(151);
  });
});
