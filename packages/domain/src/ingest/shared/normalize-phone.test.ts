import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { describe, expect, it } from 'vitest';
import { createPhoneNormalizer, normalizePhone, phoneFastPathActive } from './normalize-phone.js';

const library = (raw: string) => {
  const p = parsePhoneNumberFromString(raw.trim(), 'US');
  return p?.isValid() ? p.number : null;
};

describe('normalizePhone', () => {
  it.each([
    ['(415) 555-0132', '+14155550132'],
    ['415.555.0132', '+14155550132'],
    ['4155550132', '+14155550132'],
    ['1-415-555-0132', '+14155550132'],
    ['+1 415 555 0132', '+14155550132'],
    ['  +14155550132  ', '+14155550132'],
    ['(+1) 415-555-0132', '+14155550132'],
    ['+44 20 7946 0958', '+442079460958'],
    ['+49 30 901820', '+4930901820'],
    ['(415) 555-0132 ext. 12', '+14155550132'],
    ['268 464 1234', '+12684641234'],
    ['204-555-0123', '+12045550123'],
    ['555-1234', null],
    ['(212) 000-0000', null],
    ['+1 311 555 0123', null],
    ['12', null],
    ['not a phone', null],
    ['', null],
    ['   ', null],
    [null, null],
    [undefined, null],
  ])('given %j, when normalised, then it is %j', (raw, e164) => {
    expect(normalizePhone(raw)).toBe(e164);
  });

  it('given the library metadata, when loaded, then the NANP fast path passed its self-check', () => {
    expect(phoneFastPathActive).toBe(true);
  });

  it('given numbers across every NANP area code and common formats, when normalised, then the result equals libphonenumber', () => {
    // A deterministic spread (no Math.random): every area code, varied exchanges, six formats.
    const formats = [
      (n: string) => n,
      (n: string) => `+1${n}`,
      (n: string) => `1${n}`,
      (n: string) => `(${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}`,
      (n: string) => `+1 ${n.slice(0, 3)}.${n.slice(3, 6)}.${n.slice(6)}`,
      (n: string) => `1-${n.slice(0, 3)}-${n.slice(3, 6)}-${n.slice(6)}`,
    ];
    const mismatches: string[] = [];
    for (let npa = 200; npa < 1000; npa++) {
      for (let k = 0; k < 4; k++) {
        const exchange = String((npa * 37 + k * 211) % 1000).padStart(3, '0');
        const raw = formats[(npa + k) % formats.length]!(
          `${npa}${exchange}${String((npa * 7919 + k) % 10000).padStart(4, '0')}`,
        );
        if (normalizePhone(raw) !== library(raw)) mismatches.push(raw);
      }
    }
    expect(mismatches).toEqual([]);
  });
});

describe('createPhoneNormalizer', () => {
  it('given repeated inputs, when normalised by one batch normaliser, then results are stable', () => {
    const normalize = createPhoneNormalizer();
    expect([
      normalize('+44 20 7946 0958'),
      normalize('+44 20 7946 0958'),
      normalize('bad'),
      normalize('bad'),
      normalize(null),
    ]).toEqual(['+442079460958', '+442079460958', null, null, null]);
  });
});
