// One test file's pair of read-model schemas: every scenario is applied twice, as one chunk and one
// record per chunk, and both schemas must end up identical. That is the "same batch or separate
// batches, same rows" property behind exactly-once replays with any chunking.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { TestEnv } from '@holdfast/testing';
import type { AnyProjection, WiredProjection } from '../../src/projection.js';
import { readModelDigest } from '../../src/replay/table-digest.js';
import { ProjectionHarness, type Given } from './projection-harness.js';

export class MergeFixture {
  private constructor(
    readonly whole: ProjectionHarness,
    readonly oneByOne: ProjectionHarness,
    private readonly t: TestEnv,
  ) {}

  static async create(
    t: TestEnv,
    label: string,
    projection: AnyProjection | WiredProjection,
  ): Promise<MergeFixture> {
    return new MergeFixture(
      await ProjectionHarness.create(t, `${label}_whole`, projection),
      await ProjectionHarness.create(t, `${label}_each`, projection),
      t,
    );
  }

  /** A fresh account: scenarios of one file share the schemas, never an account. */
  account(): string {
    return randomUUID();
  }

  /** Applies `events` both ways and checks both read models agree. */
  async given(...events: Given[]): Promise<ProjectionHarness> {
    await this.whole.apply(events);
    await this.oneByOne.apply(events, { chunk: 1 });
    expect(await readModelDigest(this.t.pool, this.oneByOne.schema)).toEqual(
      await readModelDigest(this.t.pool, this.whole.schema),
    );
    return this.whole;
  }
}
