// Readers of PostgreSQL's COPY text format for the two shapes the recompute reads. They work on the
// raw bytes: a million-customer account streams millions of lines, and splitting each into strings
// would cost more than the scoring itself.

const TAB = 9;
const NEWLINE = 10;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;

/** Splits a byte stream into whole lines, keeping a partial last line for the next chunk. */
export class LineSplitter {
  private rest: Buffer = Buffer.alloc(0);

  /** Calls `line(buf, start, end)` for every complete line (end excludes the newline). */
  push(chunk: Buffer, line: (buf: Buffer, start: number, end: number) => void): void {
    const buf = this.rest.length > 0 ? Buffer.concat([this.rest, chunk]) : chunk;
    let start = 0;
    for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
      line(buf, start, nl);
      start = nl + 1;
    }
    this.rest = start < buf.length ? Buffer.from(buf.subarray(start)) : Buffer.alloc(0);
  }

  /** Throws when the stream ended inside a line (COPY always ends lines with a newline). */
  end(): void {
    if (this.rest.length > 0) throw new Error('COPY stream ended inside a line');
  }
}

/** Index of the next tab at or after `from`, or `end` when there is none before it. */
export function nextTab(buf: Buffer, from: number, end: number): number {
  const at = buf.indexOf(TAB, from);
  return at === -1 || at > end ? end : at;
}

/** A signed integer field, e.g. the day number `20412`. */
export function readInt(buf: Buffer, start: number, end: number): number {
  let i = start;
  const negative = buf[i] === MINUS;
  if (negative) i++;
  if (i >= end) throw new Error('COPY: empty integer field');
  let value = 0;
  for (; i < end; i++) {
    const d = buf[i]! - ZERO;
    if (d < 0 || d > 9) throw new Error(`COPY: bad integer "${buf.toString('latin1', start, end)}"`);
    value = value * 10 + d;
  }
  return negative ? -value : value;
}

/**
 * A numeric field in plain decimal notation (what PostgreSQL prints for `numeric`, e.g. `12.3400`).
 * All digits are read as one integer and divided by a power of ten once: both are exact doubles below
 * 2^53, so the quotient is the correctly rounded value, the same double `Number('12.3400')` gives.
 */
export function readDecimal(buf: Buffer, start: number, end: number): number {
  let i = start;
  const negative = buf[i] === MINUS;
  if (negative) i++;
  let digits = 0;
  let scale = 1;
  let fraction = false;
  let count = 0;
  for (; i < end; i++) {
    const ch = buf[i]!;
    if (ch === DOT && !fraction) {
      fraction = true;
      continue;
    }
    const d = ch - ZERO;
    if (d < 0 || d > 9) return Number(buf.toString('latin1', start, end)); // NaN, exponents: rare
    digits = digits * 10 + d;
    if (fraction) scale *= 10;
    count++;
  }
  if (count === 0) throw new Error('COPY: empty numeric field');
  if (count > 15) return Number(buf.toString('latin1', start, end)); // beyond exact integer digits
  const value = digits / scale;
  return negative ? -value : value;
}
