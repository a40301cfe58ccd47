import { describe, expect, it } from 'vitest';
import { classifyError, isRetriable, PermanentError, TransientError } from './classify.js';

const pg = (code: string, message = 'pg error') => Object.assign(new Error(message), { code });
const named = (name: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(name), { name, ...extra });

describe('classifyError', () => {
  it.each([
    ['08006', 'connection failure'],
    ['08001', 'cannot connect'],
    ['57P01', 'terminating connection due to administrator command'],
    ['57P03', 'the database system is starting up'],
    ['53300', 'sorry, too many clients already'],
    ['40001', 'could not serialize access'],
    ['40P01', 'deadlock detected'],
    ['57014', 'canceling statement due to statement timeout'],
  ])('PostgreSQL %s (%s) is retriable', (code, message) => {
    expect(classifyError(pg(code, message))).toBe('retriable');
  });

  it.each([
    ['22003', 'numeric field overflow'],
    ['22P02', 'invalid input syntax for type uuid'],
    ['22021', 'invalid byte sequence for encoding "UTF8"'],
    ['23505', 'duplicate key value violates unique constraint'],
    ['23514', 'new row violates check constraint'],
    ['54000', 'index row size exceeds maximum'],
  ])('PostgreSQL %s (%s) is permanent for the record', (code, message) => {
    expect(classifyError(pg(code, message))).toBe('permanent');
  });

  it('a syntax error or a missing table is a bug', () => {
    expect(classifyError(pg('42601', 'syntax error'))).toBe('bug');
    expect(classifyError(pg('42P01', 'relation does not exist'))).toBe('bug');
  });

  it('pg and pg-pool connection loss without a SQLSTATE is retriable', () => {
    expect(classifyError(new Error('Connection terminated unexpectedly'))).toBe('retriable');
    expect(classifyError(new Error('timeout exceeded when trying to connect'))).toBe('retriable');
    // pg's client-side query_timeout: the server did not answer at all (a host gone without a reset).
    expect(classifyError(new Error('Query read timeout'))).toBe('retriable');
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET'])(
    'network error %s is retriable',
    (code) => {
      expect(classifyError(Object.assign(new Error(`connect ${code}`), { code }))).toBe('retriable');
    },
  );

  it('looks through causes: fetch failed, AggregateError, kafkajs originalError', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(classifyError(new TypeError('fetch failed', { cause: refused }))).toBe('retriable');
    expect(classifyError(new AggregateError([refused], 'all failed'))).toBe('retriable');
    expect(classifyError(named('KafkaJSNonRetriableError', { originalError: refused }))).toBe('retriable');
    expect(classifyError(new TypeError('fetch failed', { cause: new RangeError('x') }))).toBe('bug');
  });

  it('kafkajs: retriable flag and transient error names', () => {
    expect(classifyError(named('KafkaJSProtocolError', { retriable: true }))).toBe('retriable');
    expect(classifyError(named('KafkaJSConnectionError', { retriable: false }))).toBe('retriable');
    expect(classifyError(named('KafkaJSNumberOfRetriesExceeded', { retriable: false }))).toBe('retriable');
    expect(classifyError(named('KafkaJSProtocolError', { retriable: false }))).toBe('bug');
  });

  it('schema registry client: 5xx and socket failures are retriable, 404 permanent', () => {
    const reg = (status: number, message: string) => named('ResponseError', { status, message });
    expect(classifyError(reg(503, 'Service Unavailable'))).toBe('retriable');
    expect(
      classifyError(
        reg(400, 'Confluent_Schema_Registry - Error, status 400: connect ECONNREFUSED 127.0.0.1:1'),
      ),
    ).toBe('retriable');
    expect(classifyError(reg(404, "No content with ID '9' was found."))).toBe('permanent');
  });

  it("an error's own isRetriable wins", () => {
    expect(classifyError(new TransientError('later'))).toBe('retriable');
    expect(classifyError(new PermanentError('never'))).toBe('permanent');
    expect(classifyError(Object.assign(pg('57P01'), { isRetriable: false }))).toBe('permanent');
  });

  it('anything unrecognised is a bug', () => {
    expect(classifyError(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe('bug');
    expect(classifyError('a string')).toBe('bug');
    expect(classifyError(null)).toBe('bug');
    expect(isRetriable(new Error('boom'))).toBe(false);
  });
});
