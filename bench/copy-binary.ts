// PostgreSQL's binary COPY format (https://www.postgresql.org/docs/current/sql-copy.html, "Binary
// Format"), for the bench loader: the server reads uuids, timestamps and numerics as they are stored
// instead of parsing their text (most of the text COPY's server-side cost per row), and the loader
// writes numbers into a buffer instead of formatting dates and joining strings.

/** Microseconds from the Unix epoch to PostgreSQL's (2000-01-01 UTC). */
const PG_EPOCH_MS = 946_684_800_000;
const TWO_32 = 4_294_967_296;

/**
 * Rows of one COPY ... (format binary) stream, written field by field into fixed-size chunks:
 * `row(n)` then n fields, `take()` hands over the full chunks (for a Readable), `end()` the trailer.
 */
export class BinaryCopyWriter {
  private buf: Buffer;
  private at = 0;
  private readonly full: Buffer[] = [];

  constructor(private readonly chunkBytes = 1 << 20) {
    this.buf = Buffer.allocUnsafe(chunkBytes);
    // Signature, flags (no OIDs), header extension length.
    this.buf.write('PGCOPY\n\xff\r\n\0', 0, 'latin1');
    this.buf.writeInt32BE(0, 11);
    this.buf.writeInt32BE(0, 15);
    this.at = 19;
  }

  /** Room for `bytes` more in the current chunk (a row's fields never straddle two chunks' logic). */
  private room(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    this.full.push(this.buf.subarray(0, this.at));
    this.buf = Buffer.allocUnsafe(Math.max(this.chunkBytes, bytes));
    this.at = 0;
  }

  row(fields: number): this {
    this.room(2);
    this.buf.writeInt16BE(fields, this.at);
    this.at += 2;
    return this;
  }

  null(): this {
    this.room(4);
    this.buf.writeInt32BE(-1, this.at);
    this.at += 4;
    return this;
  }

  /** A text field (UTF-8). */
  text(value: string): this {
    const bytes = Buffer.byteLength(value);
    this.room(4 + bytes);
    this.buf.writeInt32BE(bytes, this.at);
    this.buf.write(value, this.at + 4);
    this.at += 4 + bytes;
    return this;
  }

  /** A uuid given as its 32 hex digits (no dashes). */
  uuidHex(hex32: string): this {
    this.room(20);
    this.buf.writeInt32BE(16, this.at);
    this.buf.write(hex32, this.at + 4, 16, 'hex');
    this.at += 20;
    return this;
  }

  /** A timestamptz at a Unix time in milliseconds (truncated to whole ones, as `new Date(ms)` does). */
  timestampMs(ms: number): this {
    this.room(12);
    const us = (Math.trunc(ms) - PG_EPOCH_MS) * 1000;
    const hi = Math.floor(us / TWO_32);
    this.buf.writeInt32BE(8, this.at);
    this.buf.writeInt32BE(hi, this.at + 4);
    this.buf.writeUInt32BE(us - hi * TWO_32, this.at + 8);
    this.at += 12;
    return this;
  }

  /**
   * A numeric of `cents` hundredths (non-negative, below 10^12): base-10000 digits, the last one the
   * fraction (cents × 100), display scale 2. Zero has no digits.
   */
  numericCents(cents: number): this {
    if (cents === 0) {
      this.room(12);
      this.buf.writeInt32BE(8, this.at);
      this.buf.writeInt16BE(0, this.at + 4); // ndigits
      this.buf.writeInt16BE(0, this.at + 6); // weight
      this.buf.writeInt16BE(0, this.at + 8); // sign +
      this.buf.writeInt16BE(2, this.at + 10); // dscale
      this.at += 12;
      return this;
    }
    const whole = Math.floor(cents / 100);
    const groups: number[] = [];
    for (let w = whole; w > 0; w = Math.floor(w / 10_000)) groups.unshift(w % 10_000);
    const weight = groups.length - 1; // -1 when below 1: the fraction group is then the first
    groups.push((cents % 100) * 100);
    this.room(12 + 2 * groups.length);
    this.buf.writeInt32BE(8 + 2 * groups.length, this.at);
    this.buf.writeInt16BE(groups.length, this.at + 4);
    this.buf.writeInt16BE(weight, this.at + 6);
    this.buf.writeInt16BE(0, this.at + 8);
    this.buf.writeInt16BE(2, this.at + 10);
    let at = this.at + 12;
    for (const g of groups) {
      this.buf.writeInt16BE(g, at);
      at += 2;
    }
    this.at = at;
    return this;
  }

  /** The chunks filled so far (the current one once it holds at least `minBytes`). */
  take(minBytes = this.chunkBytes / 2): Buffer[] {
    if (this.at >= minBytes) {
      this.full.push(this.buf.subarray(0, this.at));
      this.buf = Buffer.allocUnsafe(this.chunkBytes);
      this.at = 0;
    }
    return this.full.splice(0);
  }

  /** The file trailer and the rest. */
  end(): Buffer[] {
    this.room(2);
    this.buf.writeInt16BE(-1, this.at);
    this.at += 2;
    return this.take(0);
  }
}
