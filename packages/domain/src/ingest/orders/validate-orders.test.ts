import { countRows } from '@holdfast/contracts';
import { describe, expect, it } from 'vitest';
import { validateOrdersRequest } from './validate-orders.js';

const row = (overrides: Record<string, unknown> = {}) => ({
  order_id: 'A1',
  customer_id: 'C1',
  order_date: '2024-01-02T10:00:00Z',
  order_amount: 12.5,
  product_name: 'Tea',
  ...overrides,
});
const without = (field: string) => {
  const r: Record<string, unknown> = row();
  delete r[field];
  return r;
};

describe('validateOrdersRequest', () => {
  it('given a well-formed batch, when validated, then it passes with its rows', () => {
    const rows = [
      row(),
      row({ order_id: 'A2', email: null, discount_codes: ['X'], extra_field: { any: 1 } }),
    ];
    expect(validateOrdersRequest({ orders: rows })).toEqual({ ok: true, rows });
  });

  it.each([['order_id'], ['customer_id'], ['order_date'], ['order_amount'], ['product_name']])(
    'given a row without %s, when validated, then the whole request is a 422 missing entry',
    (field) => {
      expect(validateOrdersRequest({ orders: [row(), without(field)] })).toEqual({
        ok: false,
        detail: [{ type: 'missing', loc: ['body', 'orders', 1, field], msg: 'Field required' }],
      });
    },
  );

  it.each([
    ['order_id', 7, { type: 'string_type', msg: 'Input should be a valid string', input: 7 }],
    ['customer_id', null, { type: 'string_type', msg: 'Input should be a valid string', input: null }],
    [
      'order_date',
      1704189600,
      { type: 'string_type', msg: 'Input should be a valid string', input: 1704189600 },
    ],
    ['product_name', false, { type: 'string_type', msg: 'Input should be a valid string', input: false }],
    [
      'order_amount',
      'twelve',
      {
        type: 'float_parsing',
        msg: 'Input should be a valid number, unable to parse string as a number',
        input: 'twelve',
      },
    ],
    ['order_amount', '12.50', { type: 'float_type', msg: 'Input should be a valid number', input: '12.50' }],
    ['order_amount', null, { type: 'float_type', msg: 'Input should be a valid number', input: null }],
    ['order_amount', true, { type: 'float_type', msg: 'Input should be a valid number', input: true }],
    [
      'order_id',
      '',
      {
        type: 'string_too_short',
        msg: 'String should have at least 1 character',
        input: '',
        ctx: { min_length: 1 },
      },
    ],
    [
      'product_name',
      '',
      {
        type: 'string_too_short',
        msg: 'String should have at least 1 character',
        input: '',
        ctx: { min_length: 1 },
      },
    ],
    // Personal fields are never echoed back (a 422 answer may end up in logs).
    ['email', 5, { type: 'string_type', msg: 'Input should be a valid string' }],
    ['phone', 4155550132, { type: 'string_type', msg: 'Input should be a valid string' }],
    ['currency', 840, { type: 'string_type', msg: 'Input should be a valid string', input: 840 }],
    ['refunded_amount', '3', { type: 'float_type', msg: 'Input should be a valid number', input: '3' }],
    [
      'discount_pct',
      'ten',
      {
        type: 'float_parsing',
        msg: 'Input should be a valid number, unable to parse string as a number',
        input: 'ten',
      },
    ],
    ['discount_codes', 'SAVE10', { type: 'list_type', msg: 'Input should be a valid list', input: 'SAVE10' }],
    ['cancelled_at', {}, { type: 'string_type', msg: 'Input should be a valid string' }],
  ])('given %s = %j, when validated, then the 422 entry is exact', (field, value, entry) => {
    expect(validateOrdersRequest({ orders: [row({ [field]: value })] })).toEqual({
      ok: false,
      detail: [{ loc: ['body', 'orders', 0, field], ...entry }],
    });
  });

  it('given a non-string discount code, when validated, then the loc points into the array', () => {
    expect(validateOrdersRequest({ orders: [row({ discount_codes: ['OK', 3] })] })).toEqual({
      ok: false,
      detail: [
        {
          type: 'string_type',
          loc: ['body', 'orders', 0, 'discount_codes', 1],
          msg: 'Input should be a valid string',
          input: 3,
        },
      ],
    });
  });

  it.each([
    [' ', 'whitespace'],
    ['', 'empty'],
  ])(
    'given a %j (%s) customer_id, when validated, then it is not a 422 (blank identity is classified later)',
    (customerId) => {
      expect(validateOrdersRequest({ orders: [row({ customer_id: customerId })] }).ok).toBe(true);
    },
  );

  it.each([
    [-5, 'negative'],
    [0, 'zero'],
  ])('given order_amount %j (%s), when validated, then it is not a 422', (amount) => {
    expect(validateOrdersRequest({ orders: [row({ order_amount: amount })] }).ok).toBe(true);
  });

  it('given an unparseable order_date string, when validated, then it is not a 422 (the row is dropped later)', () => {
    expect(validateOrdersRequest({ orders: [row({ order_date: 'yesterday' })] }).ok).toBe(true);
  });

  it.each([
    [{}, [{ type: 'missing', loc: ['body', 'orders'], msg: 'Field required' }]],
    [
      [],
      [
        {
          type: 'model_attributes_type',
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from',
        },
      ],
    ],
    [
      null,
      [
        {
          type: 'model_attributes_type',
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from',
          input: null,
        },
      ],
    ],
    [undefined, [{ type: 'missing', loc: ['body'], msg: 'Field required' }]],
    [
      { orders: 'x' },
      [{ type: 'list_type', loc: ['body', 'orders'], msg: 'Input should be a valid list', input: 'x' }],
    ],
    [
      { orders: [5] },
      [
        {
          type: 'model_attributes_type',
          loc: ['body', 'orders', 0],
          msg: 'Input should be a valid dictionary or object to extract fields from',
          input: 5,
        },
      ],
    ],
  ])('given body %j, when validated, then the 422 is exact', (body, detail) => {
    expect(validateOrdersRequest(body)).toEqual({ ok: false, detail });
  });

  it('given several broken rows, when validated, then every problem is listed in row order', () => {
    const result = validateOrdersRequest({
      orders: [without('order_id'), row(), row({ order_amount: 'x', email: 1 })],
    });
    expect(result.ok ? [] : result.detail.map((d) => d.loc)).toEqual([
      ['body', 'orders', 0, 'order_id'],
      ['body', 'orders', 2, 'order_amount'],
      ['body', 'orders', 2, 'email'],
    ]);
  });

  it('given thousands of broken rows, when validated, then the 422 list is bounded to 100 entries', () => {
    const result = validateOrdersRequest({ orders: Array.from({ length: 3000 }, () => without('order_id')) });
    expect(result.ok ? 0 : result.detail.length).toBe(100);
  });

  it.each([
    [0, { orders: [] }],
    [5001, { orders: Array.from({ length: 5001 }, () => row()) }],
  ])(
    'given %i rows, when validated, then the row-count bound is left to the gateway (countRows, 400/413)',
    (n, body) => {
      expect(countRows(body, 'orders')).toBe(n);
      expect(validateOrdersRequest(body).ok).toBe(true);
    },
  );

  it.each([
    [{ orders: [1, 2] }, 'orders', 2],
    [{ customers: [] }, 'customers', 0],
    [{ orders: 'x' }, 'orders', null],
    [[], 'orders', null],
    [null, 'customers', null],
  ] as const)('given body %j, when counting %s, then countRows gives %j', (body, field, n) => {
    expect(countRows(body, field)).toBe(n);
  });
});
