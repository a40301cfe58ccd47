// Drives a projection through the real runner (checkpoint, decode, isolation, dead letters) against
// the real database, without Kafka: records are encoded with the real codec and given offsets here.
// Merge-rule tests apply the same events cut into different chunk sizes and compare the outcomes.
import type { EventName, EventTypes } from '@holdfast/contracts';
import type { ConsumedRecord } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import type { TestEnv } from '@holdfast/testing';
import type { AnyProjection, WiredProjection } from '../../src/projection.js';
import type { DeadLetter, DeadLetterPublisher } from '../../src/runtime/dead-letters.js';
import { ProjectionRunner } from '../../src/runtime/projection-runner.js';
import { ensureReadModelSchema } from '@holdfast/read-models';

/** An event to append: its record name and value, or raw bytes (to test poison records). */
export type Given = { [K in EventName]: readonly [K, EventTypes[K]] }[EventName] | readonly ['raw', Buffer];

export class ProjectionHarness {
  readonly published: DeadLetter[] = [];
  private nextOffset = 0;
  private readonly runner: ProjectionRunner;

  private constructor(
    private readonly t: TestEnv,
    readonly schema: string,
    projection: AnyProjection | WiredProjection,
  ) {
    const publisher: DeadLetterPublisher = {
      publish: (l) => Promise.resolve(void this.published.push(...l)),
    };
    // A wired projection (its lookahead told of every commit) runs as the projector runs it.
    const wired = 'projection' in projection ? projection : { projection };
    this.runner = new ProjectionRunner(
      wired.projection,
      { pool: t.pool, codec: t.codec, schema, logger: silentLogger, publisher },
      { lookahead: wired.lookahead },
    );
  }

  static async create(
    t: TestEnv,
    schema: string,
    projection: AnyProjection | WiredProjection,
  ): Promise<ProjectionHarness> {
    await ensureReadModelSchema(t.pool, schema);
    return new ProjectionHarness(t, schema, projection);
  }

  /** Encodes `events`, numbers them on partition 0, and applies them in chunks of `chunk` records. */
  async apply(events: readonly Given[], { chunk = 5000 } = {}): Promise<void> {
    const records = events.map((g): ConsumedRecord => {
      const value = g[0] === 'raw' ? g[1] : this.t.codec.encode(g[0], g[1]);
      const accountId = 'metadata' in g[1] ? g[1].metadata.account_id : null;
      return {
        topic: 'test',
        partition: 0,
        offset: String(this.nextOffset++),
        key: accountId ? Buffer.from(accountId) : null,
        value,
        timestamp: '1735689600000',
      };
    });
    for (let i = 0; i < records.length; i += chunk) {
      const outcome = await this.runner.handle({
        topic: 'test',
        partition: 0,
        records: records.slice(i, i + chunk),
      });
      if (outcome.kind !== 'applied') throw new Error(`unexpected ${outcome.kind}`);
    }
  }

  async rows<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const { rows } = await this.t.pool.query(sql.replaceAll('rm.', `"${this.schema}".`), params);
    return rows as T[];
  }
}
