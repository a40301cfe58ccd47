import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { batchBody, batchBytes, batches, splitByBytes, splitByRows, type Batch } from './batch.js';
import { RangeSet } from './checkpoint.js';
import type { SourceRow } from './source.js';

const rows = (list: SourceRow[]): AsyncIterable<SourceRow> => Readable.from(list) as AsyncIterable<SourceRow>;
const ok = (row: number, extra = ''): SourceRow => ({
  row,
  line: row + 1,
  id: `o-${row}`,
  value: { order_id: `o-${row}${extra}` },
});

async function collect(list: SourceRow[], o: { maxRows?: number; maxBytes?: number; done?: RangeSet } = {}) {
  const errors: [number, readonly string[]][] = [];
  let skipped = 0;
  const out: Batch[] = [];
  for await (const b of batches(rows(list), {
    kind: 'orders',
    maxRows: o.maxRows ?? 5000,
    maxBytes: o.maxBytes ?? 32 * 1024 * 1024,
    isCompleted: (n) => o.done?.has(n) ?? false,
    onRowError: (r, codes) => errors.push([r.row, codes]),
    onSkipped: () => (skipped += 1),
  }))
    out.push(b);
  return { out, errors, skipped, ranges: out.map((b) => [b.from, b.to, b.rows.length]) };
}

describe('batches', () => {
  it('pages by row count, ranges covering every row', async () => {
    const r = await collect(
      Array.from({ length: 7 }, (_, i) => ok(i + 1)),
      { maxRows: 3 },
    );
    expect(r.ranges).toEqual([
      [1, 3, 3],
      [4, 6, 3],
      [7, 7, 1],
    ]);
  });

  it('pages by body bytes, and the body is the JSON the size says', async () => {
    const list = Array.from({ length: 10 }, (_, i) => ok(i + 1));
    const one = JSON.stringify(list[0]!.value).length;
    const r = await collect(list, { maxBytes: batchBytes('orders', []) + 3 * one + 2 });
    expect(r.out.every((b) => b.rows.length <= 3)).toBe(true);
    const body = batchBody('orders', r.out[0]!.rows);
    expect(body.length).toBe(batchBytes('orders', r.out[0]!.rows));
    expect(JSON.parse(body.toString())).toEqual({ orders: list.slice(0, 3).map((x) => x.value) });
  });

  it('keeps error rows inside the range, skips completed rows without spanning them', async () => {
    const list = [ok(1), { row: 2, line: 3, id: null, codes: ['invalid_json'] }, ok(3), ok(4), ok(5), ok(6)];
    const r = await collect(list, { done: new RangeSet([[4, 5]]) });
    expect(r.ranges).toEqual([
      [1, 3, 2],
      [6, 6, 1],
    ]);
    expect(r.errors).toEqual([[2, ['invalid_json']]]);
    expect(r.skipped).toBe(2);
  });

  it('reports a row larger than a whole request', async () => {
    const r = await collect([ok(1), ok(2, 'x'.repeat(200))], { maxBytes: 100 });
    expect(r.errors).toEqual([[2, ['row_too_large']]]);
    expect(r.ranges).toEqual([[1, 2, 1]]);
  });
});

describe('splitting', () => {
  const b: Batch = {
    from: 10,
    to: 20,
    rows: [11, 12, 15, 20].map((row, i) => ({
      row,
      line: row,
      id: null,
      json: 'x'.repeat(i === 0 ? 30 : 10),
      bytes: i === 0 ? 30 : 10,
    })),
  };
  it('halves by rows', () => {
    expect(splitByRows(b).map((p) => [p.from, p.to, p.rows.map((r) => r.row)])).toEqual([
      [10, 12, [11, 12]],
      [13, 20, [15, 20]],
    ]);
  });
  it('halves by bytes', () => {
    expect(splitByBytes(b).map((p) => [p.from, p.to, p.rows.length])).toEqual([
      [10, 11, 1],
      [12, 20, 3],
    ]);
  });
});

describe('RangeSet', () => {
  it('merges neighbours and answers membership', () => {
    const s = new RangeSet();
    s.add(5001, 10000);
    s.add(1, 5000);
    s.add(20001, 25000);
    expect(s.toJSON()).toEqual([
      [1, 10000],
      [20001, 25000],
    ]);
    expect([s.has(1), s.has(10000), s.has(10001), s.has(20001), s.has(25001)]).toEqual([
      true,
      true,
      false,
      true,
      false,
    ]);
    expect(s.size()).toBe(15000);
  });
});
