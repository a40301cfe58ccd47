import { MultipleErrors, NetworkError, ProtocolError, UserError } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { classifyError } from '@holdfast/platform';

// The failure taxonomy over the client's own error classes: what the appender retries, what the
// consumer runner retries, and what crashes it.
describe('classifyError on @platformatic/kafka errors', () => {
  it('given a protocol error Kafka marks retriable (no coordinator yet, leader moved, concurrent transaction), when classified, then retriable', () => {
    for (const id of ['COORDINATOR_NOT_AVAILABLE', 'NOT_LEADER_OR_FOLLOWER', 'CONCURRENT_TRANSACTIONS'])
      expect(classifyError(new ProtocolError(id)), id).toBe('retriable');
  });

  it('given the client gave up after retries ("failed N times"), when classified, then as its attempts: retriable', () => {
    const gaveUp = new MultipleErrors('produce failed 9 times.', [
      new ProtocolError('NOT_LEADER_OR_FOLLOWER'),
      new NetworkError('Connection closed'),
    ]);
    expect(classifyError(gaveUp)).toBe('retriable');
  });

  it('given a protocol error Kafka marks final, or a misuse of the client, when classified, then not retriable', () => {
    expect(classifyError(new ProtocolError('MESSAGE_TOO_LARGE'))).not.toBe('retriable');
    expect(classifyError(new UserError('There is already an active transaction.'))).toBe('bug');
  });
});
