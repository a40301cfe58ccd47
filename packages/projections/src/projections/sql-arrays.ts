/**
 * A PostgreSQL array literal for a text[] value, or null. Rows are passed to SQL as one array per
 * column (`unnest($1::text[], ...)`), and unnest would flatten an array of arrays, so per-row arrays
 * travel as literals and are cast back (`col::text[]`) in SQL.
 *
 * @example
 * textArrayLiteral(['a', 'b "c"']); // '{"a","b \\"c\\""}'
 */
export function textArrayLiteral(values: readonly string[] | null): string | null {
  if (values === null) return null;
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

/**
 * Turns rows into one array per column, the parameters of a multi-row `insert ... select from
 * unnest($1::t1[], $2::t2[], ...)`: thousands of rows in one statement with a fixed parameter count.
 *
 * @example
 * columnsOf([{ a: 1, b: 'x' }, { a: 2, b: 'y' }], (r) => [r.a, r.b]); // [[1, 2], ['x', 'y']]
 */
export function columnsOf<T>(rows: Iterable<T>, pick: (row: T) => readonly unknown[]): unknown[][] {
  const cols: unknown[][] = [];
  for (const r of rows) {
    const values = pick(r);
    for (let i = 0; i < values.length; i++) (cols[i] ??= []).push(values[i]);
  }
  return cols;
}
