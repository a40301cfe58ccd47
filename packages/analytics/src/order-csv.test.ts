import { describe, expect, it } from 'vitest';
import { fitFromOrderRows } from './fit-from-rows.js';
import { OrderCsvError, parseOrderCsv } from './order-csv.js';

describe('parseOrderCsv', () => {
  it('parses the documented header, CRLF, BOM, blank lines and quoted fields', () => {
    const text =
      '\uFEFFcustomer_id,order_date,order_amount\r\n' +
      'c1,2024-01-01,10.5\r\n' +
      '\r\n' +
      '"c,2",2024-01-02T10:00:00Z,"7"\r\n' +
      '"say ""hi""",2024-01-03,0\n';
    expect(parseOrderCsv(text)).toEqual([
      { customer_id: 'c1', order_date: '2024-01-01', order_amount: 10.5 },
      { customer_id: 'c,2', order_date: '2024-01-02T10:00:00Z', order_amount: 7 },
      { customer_id: 'say "hi"', order_date: '2024-01-03', order_amount: 0 },
    ]);
  });

  it('accepts the columns in any order and ignores extra columns', () => {
    const text = 'order_amount,note,customer_id,order_date\n3,x,c9,2024-02-02\n';
    expect(parseOrderCsv(text)).toEqual([{ customer_id: 'c9', order_date: '2024-02-02', order_amount: 3 }]);
  });

  it('reports errors with line numbers', () => {
    const bad = (text: string) => {
      try {
        parseOrderCsv(text);
      } catch (error) {
        return error instanceof OrderCsvError ? [error.line, error.message] : ['other', String(error)];
      }
      return ['no error'];
    };
    expect(bad('customer_id,order_date\n')).toEqual([1, 'line 1: missing column(s) order_amount']);
    expect(bad('customer_id,order_date,order_amount\nc1,2024-01-01,1\nc2,yesterday,1\n')[0]).toBe(3);
    expect(bad('customer_id,order_date,order_amount\nc1,2024-01-01,ten\n')[0]).toBe(2);
    expect(bad('customer_id,order_date,order_amount\nc1,2024-01-01,\n')[0]).toBe(2);
    expect(bad('customer_id,order_date,order_amount\n,2024-01-01,1\n')[0]).toBe(2);
    expect(bad('customer_id,order_date,order_amount\n"c1,2024-01-01,1\n')[0]).toBe(2);
  });
});

describe('fitFromOrderRows', () => {
  it('summarises rows up to the calibration end and fits both models', () => {
    // 120 customers: every third buys once, the others on 2–4 days at customer-specific gaps.
    const rows = [];
    for (let i = 0; i < 120; i++) {
      const visits = i % 3 === 0 ? 1 : 2 + (i % 3);
      for (let k = 0; k < visits; k++) {
        const day = new Date(Date.UTC(2024, 0, 1 + (i % 30) + k * (7 + (i % 11) * 3)));
        rows.push({
          customer_id: `c${i}`,
          order_date: day.toISOString(),
          order_amount: 10 + (i % 5) * 3 + k,
        });
      }
    }
    rows.push({ customer_id: 'late', order_date: '2025-01-01', order_amount: 5 }); // after the end
    const fit = fitFromOrderRows(rows, '2024-06-30');
    expect(fit.customers).toBe(120);
    expect(fit.repeat_customers).toBe(80);
    for (const v of [fit.bgnbd.r, fit.bgnbd.alpha, fit.bgnbd.a, fit.bgnbd.b]) expect(v).toBeGreaterThan(0);
    expect(fit.bgnbd.log_likelihood).toBeLessThan(0);
    expect(fit.gamma_gamma?.log_likelihood).toBeLessThan(0);
    expect(Object.keys(fit.bgnbd).sort()).toEqual(['a', 'alpha', 'b', 'log_likelihood', 'r']);
    expect(Object.keys(fit.gamma_gamma ?? {}).sort()).toEqual(['gamma', 'log_likelihood', 'p', 'q']);
  });

  it('fails clearly without any repeat purchase', () => {
    const rows = [{ customer_id: 'a', order_date: '2024-01-01', order_amount: 1 }];
    expect(() => fitFromOrderRows(rows, '2024-02-01')).toThrow(/repeat purchase/);
  });
});
