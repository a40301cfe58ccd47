/**
 * Weighted groups of equal rows of up to four numbers, kept in typed arrays: the one way the fit's
 * sufficient statistics are grouped ((x, t_x, T), (x, m_x), (x, t_x, T, x*)).
 *
 * Why not a `Map` keyed by `${x}|${t_x}|${T}`: at 10 million customers the account holds millions
 * of groups, and a string key, its Map entry and a boxed number per column cost about 100 bytes a
 * group (the 10 M recompute reached 1 GiB). Here a group is its numbers (8 bytes a dimension), its
 * weight (8) and two 4-byte slots of an open-addressing table kept at most half full: 40 bytes for
 * (x, t_x, T), 48 for four dimensions, and no object for the garbage collector to trace.
 *
 * Rows are equal when every number is equal (`===`; the numbers must not be NaN), so an integer
 * and a fraction key alike.
 *
 * @example
 * const g = new GroupIndex(3);
 * g.add(2, 10, 30); g.add(2, 10, 30); g.add(0, 0, 30);
 * g.size; // 2
 * g.column(0); // Float64Array [2, 0]
 * g.weights(); // Float64Array [2, 1]
 */
export class GroupIndex {
  private values: Float64Array;
  private weight: Float64Array;
  /** Open addressing: group number + 1 per slot (0: empty); its length a power of two. */
  private slots: Int32Array;
  private count = 0;
  private total = 0;

  constructor(
    private readonly dims: 1 | 2 | 3 | 4,
    capacity = 1024,
  ) {
    const start = Math.max(16, 2 ** Math.ceil(Math.log2(capacity)));
    this.values = new Float64Array(start * dims);
    this.weight = new Float64Array(start);
    this.slots = new Int32Array(start * 2);
  }

  /** Distinct rows held. */
  get size(): number {
    return this.count;
  }

  /** Σ weight of the rows added. */
  get weightTotal(): number {
    return this.total;
  }

  /** Adds `weight` (default 1) to the row (a, b, c, d); unused dimensions are ignored. Returns its group. */
  add(a: number, b = 0, c = 0, d = 0, weight = 1): number {
    // NaN equals nothing, itself included: a NaN row would be a new group every time.
    if (Number.isNaN(a) || Number.isNaN(b) || Number.isNaN(c) || Number.isNaN(d))
      throw new RangeError('GroupIndex rows must not hold NaN');
    this.total += weight;
    const i = this.probe(a, b, c, d);
    const found = this.slots[i]!;
    if (found !== 0) {
      this.weight[found - 1]! += weight;
      return found - 1;
    }
    const dims = this.dims;
    const g = this.count;
    if (g === this.weight.length) this.grow();
    const at = g * dims;
    this.values[at] = a;
    if (dims > 1) this.values[at + 1] = b;
    if (dims > 2) this.values[at + 2] = c;
    if (dims > 3) this.values[at + 3] = d;
    this.weight[g] = weight;
    this.count++;
    if (this.slots.length !== this.weight.length * 2) this.rehash();
    else this.slots[i] = g + 1;
    return g;
  }

  /** The group of the row (a, b, c, d), or -1 when it was never added. */
  find(a: number, b = 0, c = 0, d = 0): number {
    return this.slots[this.probe(a, b, c, d)]! - 1;
  }

  /** Forgets every group (the room already taken is kept). */
  clear(): void {
    this.slots.fill(0);
    this.count = 0;
    this.total = 0;
  }

  /** The table slot holding the row, or the empty slot where it would go. */
  private probe(a: number, b: number, c: number, d: number): number {
    const dims = this.dims;
    const v = this.values;
    const mask = this.slots.length - 1;
    let i = hashRow(dims, a, b, c, d) & mask;
    for (;;) {
      const s = this.slots[i]!;
      if (s === 0) return i;
      const at = (s - 1) * dims;
      if (
        v[at] === a &&
        (dims < 2 || v[at + 1] === b) &&
        (dims < 3 || v[at + 2] === c) &&
        (dims < 4 || v[at + 3] === d)
      )
        return i;
      i = (i + 1) & mask;
    }
  }

  /** Dimension `j` of every group, in the order the groups were first met. */
  column(j: number): Float64Array {
    if (!(j >= 0 && j < this.dims)) throw new RangeError(`No dimension ${j} in ${this.dims}`);
    const out = new Float64Array(this.count);
    for (let g = 0, at = j; g < this.count; g++, at += this.dims) out[g] = this.values[at]!;
    return out;
  }

  /** The weight of every group, in the order of {@link column}. */
  weights(): Float64Array {
    return this.weight.slice(0, this.count);
  }

  /** Doubles the groups' room; the table follows (kept at most half full). */
  private grow(): void {
    const values = new Float64Array(this.values.length * 2);
    values.set(this.values);
    this.values = values;
    const weight = new Float64Array(this.weight.length * 2);
    weight.set(this.weight);
    this.weight = weight;
  }

  private rehash(): void {
    const slots = new Int32Array(this.weight.length * 2);
    const mask = slots.length - 1;
    const v = this.values;
    const dims = this.dims;
    for (let g = 0; g < this.count; g++) {
      const at = g * dims;
      let i =
        hashRow(
          dims,
          v[at]!,
          dims > 1 ? v[at + 1]! : 0,
          dims > 2 ? v[at + 2]! : 0,
          dims > 3 ? v[at + 3]! : 0,
        ) & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = g + 1;
    }
    this.slots = slots;
  }
}

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);

/** A 32-bit hash of a row: each number's two 32-bit words mixed in (murmur3's constants). */
function hashRow(dims: number, a: number, b: number, c: number, d: number): number {
  let h = mix(0x9747b28c, a + 0); // + 0: -0 and 0 are the same key (=== says so)
  if (dims > 1) h = mix(h, b + 0);
  if (dims > 2) h = mix(h, c + 0);
  if (dims > 3) h = mix(h, d + 0);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function mix(h: number, value: number): number {
  bits[0] = value;
  h = Math.imul(h ^ words[0]!, 0xcc9e2d51);
  h = Math.imul((h << 15) | (h >>> 17), 0x1b873593);
  h = Math.imul(h ^ words[1]!, 0xcc9e2d51);
  return Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64;
}
