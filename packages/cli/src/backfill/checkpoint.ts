import { createHash } from 'node:crypto';
import { open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { BackfillKind } from './convert.js';

/**
 * A set of row numbers kept as sorted, merged, inclusive ranges. Batches complete out of order (several
 * are in flight), so the set can have holes; it stays small because neighbours merge.
 *
 * @example
 * const s = new RangeSet([[1, 5000]]);
 * s.add(5001, 10000); // ranges: [[1, 10000]]
 */
export class RangeSet {
  private ranges: [number, number][];

  constructor(ranges: readonly (readonly [number, number])[] = []) {
    this.ranges = [];
    for (const [a, b] of ranges) this.add(a, b);
  }

  add(from: number, to: number): void {
    const merged: [number, number][] = [];
    let [a, b] = [from, to];
    for (const [x, y] of this.ranges) {
      if (y < a - 1 || x > b + 1) merged.push([x, y]);
      else [a, b] = [Math.min(a, x), Math.max(b, y)];
    }
    merged.push([a, b]);
    this.ranges = merged.sort((p, q) => p[0] - q[0]);
  }

  has(n: number): boolean {
    let lo = 0;
    let hi = this.ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [a, b] = this.ranges[mid]!;
      if (n < a) hi = mid - 1;
      else if (n > b) lo = mid + 1;
      else return true;
    }
    return false;
  }

  /** How many row numbers the set holds. */
  size(): number {
    return this.ranges.reduce((n, [a, b]) => n + b - a + 1, 0);
  }

  toJSON(): [number, number][] {
    return this.ranges.map(([a, b]) => [a, b]);
  }
}

interface CheckpointFile {
  readonly version: 1;
  readonly kind: BackfillKind;
  readonly source: string;
  readonly fingerprint: string | null;
  /** A hash of the key (the key names the account): progress for one account says nothing about another. */
  readonly target: string;
  readonly completed: [number, number][];
  readonly updated_at: string;
}

/** A checkpoint that belongs to another file or kind: resuming from it would skip the wrong rows. */
export class CheckpointMismatchError extends Error {
  override readonly name = 'CheckpointMismatchError';
}

/**
 * What a checkpoint is bound to besides the file: the key, hashed (never stored). Not the URL: the same
 * gateway answers at several addresses (a proxy, localhost or 127.0.0.1).
 */
export function targetOf(key: string): string {
  return createHash('sha256').update(`holdfast-backfill-target\n${key}`).digest('hex').slice(0, 32);
}

/** SHA-256 of the first 64 KiB: tells "the same file" apart from "another file at the same path". */
export async function fingerprintFile(path: string): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return createHash('sha256').update(buf.subarray(0, bytesRead)).digest('hex');
  } finally {
    await fh.close();
  }
}

/**
 * The resume state of a backfill: which row ranges the endpoint has acknowledged. Written atomically
 * (temporary file, then rename) and one write at a time, after every acknowledged batch.
 */
export class Checkpoint {
  readonly completed: RangeSet;
  private writing: Promise<void> | null = null;
  private dirty = false;
  private failure: Error | null = null;

  private constructor(
    readonly path: string,
    private readonly meta: Omit<CheckpointFile, 'completed' | 'updated_at'>,
    completed: RangeSet,
    /** True when an earlier run's state was found and will be resumed. */
    readonly resumed: boolean,
  ) {
    this.completed = completed;
  }

  /** Loads the state at `path` (checking it belongs to this file and kind) or starts an empty one. */
  static async load(
    path: string,
    meta: { kind: BackfillKind; source: string; fingerprint: string | null; target: string },
  ): Promise<Checkpoint> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return new Checkpoint(path, { version: 1, ...meta }, new RangeSet(), false);
    }
    const saved = JSON.parse(text) as CheckpointFile;
    const other =
      saved.version !== 1 || saved.kind !== meta.kind
        ? `kind (${saved.kind})`
        : saved.fingerprint !== meta.fingerprint
          ? 'file'
          : saved.target !== meta.target
            ? 'key (another account?)'
            : null;
    if (other)
      throw new CheckpointMismatchError(
        `${path} records progress of another ${other}; delete it to start over, or pass --state with another path`,
      );
    return new Checkpoint(path, { version: 1, ...meta }, new RangeSet(saved.completed), true);
  }

  /** Records an acknowledged range and schedules a write. */
  complete(from: number, to: number): void {
    this.completed.add(from, to);
    this.dirty = true;
    this.writing ??= this.drain().catch((err: unknown) => {
      this.failure = err as Error;
      this.writing = null;
    });
  }

  private async drain(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      const body: CheckpointFile = {
        ...this.meta,
        completed: this.completed.toJSON(),
        updated_at: new Date().toISOString(),
      };
      const tmp = `${this.path}.tmp`;
      await writeFile(tmp, `${JSON.stringify(body)}\n`);
      await rename(tmp, this.path);
    }
    this.writing = null;
  }

  /** Waits until every recorded range is on disk. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failure) throw new Error(`cannot write the checkpoint ${this.path}: ${this.failure.message}`);
  }

  /** Removes the state after a complete run: a later run of the same file starts from the beginning. */
  async remove(): Promise<void> {
    await this.flush();
    await rm(this.path, { force: true });
  }
}
