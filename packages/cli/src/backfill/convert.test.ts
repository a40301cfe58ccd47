import { describe, expect, it } from 'vitest';
import { convertCsvRecord, rowId } from './convert.js';

describe('convertCsvRecord', () => {
  it('types numeric columns, splits discount codes, omits empty cells', () => {
    expect(
      convertCsvRecord({
        order_id: 'o1',
        order_amount: ' 12.50 ',
        refunded_amount: '0',
        discount_total: '-1e1',
        discount_pct: '.5',
        discount_codes: 'A| B ;C;;',
        email: '',
        phone: '   ',
        source: 'email',
      }),
    ).toEqual({
      ok: true,
      value: {
        order_id: 'o1',
        order_amount: 12.5,
        refunded_amount: 0,
        discount_total: -10,
        discount_pct: 0.5,
        discount_codes: ['A', 'B', 'C'],
        source: 'email',
      },
    });
  });

  it('reports cells that are not numbers or booleans instead of guessing', () => {
    expect(
      convertCsvRecord({ order_amount: '$12', discount_pct: 'Infinity', 'consent.sms': 'maybe' }),
    ).toEqual({
      ok: false,
      codes: ['not_a_number:order_amount', 'not_a_number:discount_pct', 'not_a_boolean:consent.sms'],
    });
    expect(convertCsvRecord({ order_amount: '1,234.50' })).toEqual({
      ok: false,
      codes: ['not_a_number:order_amount'],
    });
  });

  it('nests dotted headers and reads consent booleans', () => {
    expect(
      convertCsvRecord({
        'consent.sms': 'TRUE',
        'consent.suppressed': 'no',
        'address.city': 'Oslo',
        'address.zip': '',
      }),
    ).toEqual({ ok: true, value: { consent: { sms: true, suppressed: false }, address: { city: 'Oslo' } } });
  });
});

describe('rowId', () => {
  it('takes order_id for orders and external_id for customers, never other fields', () => {
    expect(rowId('orders', { order_id: 'o-1', email: 'a@b.c' })).toBe('o-1');
    expect(rowId('orders', { order_id: 42 })).toBe('42');
    expect(rowId('customers', { email: 'a@b.c' })).toBeNull();
    expect(rowId('customers', { external_id: 'c-9' })).toBe('c-9');
  });
});
