import type { AnyEvent } from '@holdfast/contracts';
import { describe, expect, it } from 'vitest';
import { deadLettersOfEvents, type StoredLetter } from '../../src/dlq/dead-letter-store.js';

// The decoder is the codec's job; here it reads "<type>:<event id>" bytes so the rule is seen alone.
const decode = (b: Buffer): AnyEvent | undefined => {
  const [type, eventId] = b.toString('utf8').split(':');
  if (type === 'garbage') throw new Error('undecodable');
  if (type === 'unknown') return undefined;
  return { type: 'OrderUpserted', value: { metadata: { event_id: eventId } } } as unknown as AnyEvent;
};
const letter = (id: string, value: string | null): StoredLetter => ({
  id,
  value: value === null ? null : Buffer.from(value),
});

describe('deadLettersOfEvents', () => {
  const letters = [
    letter('commerce:0:1', 'order:e-1'),
    letter('commerce:0:2', 'order:e-2'),
    letter('commerce:1:7', 'order:e-1'),
    letter('commerce:0:3', 'garbage:e-1'),
    letter('commerce:0:4', 'unknown:e-1'),
    letter('commerce:0:5', null),
  ];

  it('given letters of several events, when asked for some, then it names every letter of those events', () => {
    expect(deadLettersOfEvents(letters, decode, ['e-1'])).toEqual(['commerce:0:1', 'commerce:1:7']);
    expect(deadLettersOfEvents(letters, decode, ['e-2', 'e-3'])).toEqual(['commerce:0:2']);
  });

  it('given undecodable, unknown or empty records, then they are never matched (nothing to attribute)', () => {
    expect(deadLettersOfEvents(letters.slice(3), decode, ['e-1'])).toEqual([]);
  });

  it('given no event ids, then nothing is matched', () => {
    expect(deadLettersOfEvents(letters, decode, [])).toEqual([]);
  });
});
