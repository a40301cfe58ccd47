import { describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../src/http/body-reader.js';
import { ValidationFailedError } from '../../src/http/validation-failed.js';

function issuesOf(body: Buffer): unknown {
  try {
    parseJsonBody(body);
  } catch (err) {
    if (err instanceof ValidationFailedError) return err.issues;
    throw err;
  }
  return null;
}

describe('parseJsonBody', () => {
  it.each([
    [
      'invalid UTF-8',
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]),
      'json_invalid',
    ],
    ['a lone continuation byte', Buffer.from([0x22, 0x80, 0x22]), 'json_invalid'],
    ['\\u0000', Buffer.from('{"a":"\\u0000"}'), 'string_unsupported_character'],
    ['an unpaired surrogate', Buffer.from('{"a":"\\udfff"}'), 'string_unsupported_character'],
    ['10,000 levels', Buffer.from(`${'['.repeat(10_000)}${']'.repeat(10_000)}`), 'json_too_deep'],
    ['malformed JSON', Buffer.from('{"a":'), 'json_invalid'],
    ['a BOM', Buffer.from('\ufeff{}'), 'json_invalid'],
  ])('given %s, when parsed, then a 422 %s entry', (_label, body, type) => {
    expect(issuesOf(body)).toEqual([expect.objectContaining({ type, loc: ['body', expect.any(Number)] })]);
  });

  it('given text whose error message would quote it, when parsed, then the answer does not echo it', () => {
    const issues = JSON.stringify(issuesOf(Buffer.from('ann@example.com')));
    expect(issues).not.toContain('ann@example.com');
  });

  it.each([
    ['duplicate keys (the last wins)', '{"a":1,"a":2}', { a: 2 }],
    ['__proto__ as an own key', '{"__proto__":{"x":1}}', JSON.parse('{"__proto__":{"x":1}}') as unknown],
    ['-0', '-0', -0],
    ['nothing', '', undefined],
  ])('given %s, when parsed, then it is read as JSON.parse reads it', (_label, text, value) => {
    const parsed = parseJsonBody(Buffer.from(text));
    expect(parsed).toEqual(value);
    if (typeof parsed === 'object' && parsed !== null)
      expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });
});
