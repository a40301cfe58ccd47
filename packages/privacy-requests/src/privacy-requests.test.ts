import { describe, expect, it } from 'vitest';
import { blindIndex } from '@holdfast/privacy';
import { erasureTargets, type CandidateCustomer } from './erasure-targets.js';
import { identifierSubjects, indexPerson } from './person-indexes.js';
import { decideAttempt } from './request-status.js';

const customer = (customerId: string, o: Partial<CandidateCustomer> = {}): CandidateCustomer => ({
  customerId,
  externalIdIndex: null,
  emailIndex: null,
  phoneIndex: null,
  ...o,
});

describe('erasureTargets (the identity rules on blind indexes)', () => {
  const all = [
    customer('c1', { externalIdIndex: 'X1', emailIndex: 'E1' }),
    customer('c2', { emailIndex: 'E1', phoneIndex: 'P1' }),
    customer('c3', { externalIdIndex: 'X3', emailIndex: 'E1' }),
    customer('c4', { phoneIndex: 'P1' }),
    customer('c5', { externalIdIndex: 'X5' }),
  ];

  it('given an external id, then its holder and the compatible holders of its email and phone', () => {
    expect(erasureTargets(all, { externalId: 'X1', email: 'E1', phone: 'P1' })).toEqual(['c1', 'c2', 'c4']);
  });

  it('given an email alone, then every holder of it (no external id to contradict)', () => {
    expect(erasureTargets(all, { externalId: null, email: 'E1', phone: null })).toEqual(['c1', 'c2', 'c3']);
  });

  it('given an unknown person, then nobody', () => {
    expect(erasureTargets(all, { externalId: 'X9', email: 'E9', phone: null })).toEqual([]);
  });
});

describe('indexPerson and identifierSubjects', () => {
  it('indexes each identifier under its kind, and names the subjects x:, e:, p: of those indexes', () => {
    const key = Buffer.alloc(32, 7);
    const idx = indexPerson(key, { externalId: 'c-1', email: 'ann@example.com', phone: null });
    expect(idx).toEqual({
      externalId: blindIndex(key, 'external_id', 'c-1'),
      email: blindIndex(key, 'email', 'ann@example.com'),
      phone: null,
    });
    expect(identifierSubjects(idx)).toEqual([`x:${idx.externalId}`, `e:${idx.email}`]);
  });

  it('given a browser, then its anonymous id is indexed under its own kind and its subject is a:', () => {
    const key = Buffer.alloc(32, 7);
    const idx = indexPerson(key, { externalId: null, email: null, phone: null, anonymousId: 'anon-1' });
    expect(idx.anonymousId).toBe(blindIndex(key, 'anonymous_id', 'anon-1'));
    expect(idx.anonymousId).not.toBe(blindIndex(key, 'external_id', 'anon-1'));
    expect(identifierSubjects(idx)).toEqual([`a:${idx.anonymousId}`]);
  });
});

describe('decideAttempt (the retry bound)', () => {
  it.each([
    [1, 'run'],
    [3, 'run'],
    [4, 'fail'],
  ] as const)('given attempt %i of 3, then %s', (attempts, kind) => {
    expect(decideAttempt(attempts, 3, 'connection terminated').kind).toBe(kind);
  });

  it('given too many attempts, then the reason names the bound and the last error', () => {
    expect(decideAttempt(4, 3, null)).toEqual({
      kind: 'fail',
      reason: 'gave up after 3 attempts: worker_lost',
    });
  });
});
