import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionalAppender } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { selectProjections } from '../../src/projections/index.js';
import { consumerLag } from '../../src/runtime/consumer-lag.js';
import {
  startProjector,
  type ProjectorDeps,
  type RunningProjector,
} from '../../src/runtime/start-projector.js';
import { applyRetention, retentionRules } from '../../src/retention.js';
import { appendInBatches, mixedStream } from '../test-support/mixed-stream.js';
import { until } from '@holdfast/testing';
import { rebuildReadModels } from '../../src/replay/rebuild-read-models.js';
import type { RebuildProgress } from '../../src/replay/rebuild-tracker.js';
import { switchTables } from '../../src/replay/switch-tables.js';
import { readModelDigest } from '../../src/replay/table-digest.js';
import { DEFAULT_READ_MODEL_SCHEMA } from '@holdfast/read-models';

let t: TestEnv;
let appender: TransactionalAppender;
let live: RunningProjector;
let deps: ProjectorDeps;
let seed = 1;
const rewinds: string[] = [];
/** Seeks to swallow, as a seek made while the group rebalances is lost. */
let seeksToLose = 0;
let seeksLost = 0;

beforeAll(async () => {
  t = await createTestEnv('replay');
  deps = { pool: t.pool, kafka: t.kafka, codec: t.codec, logger: silentLogger };
  appender = await TransactionalAppender.create(t.kafka, { name: `${t.topicPrefix}replay`, size: 1 });
  const logger = {
    ...silentLogger,
    warn: (event: string) => void (event === 'checkpoint_moved_rewinding' && rewinds.push(event)),
  };
  live = await startProjector(
    {
      topicPrefix: t.topicPrefix,
      readSchema: DEFAULT_READ_MODEL_SCHEMA,
      sessionTimeoutMs: 6000,
      checkpointWatchMs: 500,
      onConsumer: (consumer) => {
        const seek = consumer.seek.bind(consumer);
        (consumer as { seek: typeof seek }).seek = (topic, partition, offset) => {
          if (seeksToLose > 0) {
            seeksToLose--;
            seeksLost++;
            return;
          }
          seek(topic, partition, offset);
        };
      },
    },
    { ...deps, logger },
  );
});
afterAll(async () => {
  await live?.stop();
  await appender?.close();
  await t?.close();
});

// The retention cut every comparison is made after (a rebuild applies it before its switch; here the
// live tables get the same one before they are digested). The stream's records are received from
// 2025-01-03 on, about a day apart per append: at this "now" the first appends' batch records (90
// days) and the first append's pixel events (91 days) are past the horizon, later ones are not.
const CUT_AT = new Date(Date.UTC(2025, 0, 1) + 94 * 86_400_000);
const RETENTION = { deadLetterDays: 30, pixelEventDays: 91 };
const cut = { now: () => CUT_AT, retention: RETENTION };

/** `schema`'s digest after the retention cut at CUT_AT (what a rebuild switches in). */
async function retainedDigest(schema: string) {
  await applyRetention(retentionRules(selectProjections()), t.pool, schema, CUT_AT, RETENTION);
  return readModelDigest(t.pool, schema);
}

const append = () =>
  appendInBatches(
    appender,
    mixedStream(t.codec, t.topicPrefix, { orders: 250, seed: seed++, startMinute: seed * 100_000 }),
    400,
  );

async function liveCaughtUp(): Promise<void> {
  const lag = consumerLag(
    t.kafka,
    live.groupId,
    selectProjections().map((p) => `${t.topicPrefix}${p.topic}`),
  );
  try {
    await until('live projector caught up', lag, (l) => l.length > 0 && l.every((x) => x.lag === 0));
  } finally {
    await lag.close();
  }
}

/** A from-scratch rebuild into read_models_next (not switched in), digested. */
async function freshRebuildDigest() {
  await rebuildReadModels(
    {
      topicPrefix: t.topicPrefix,
      readSchema: DEFAULT_READ_MODEL_SCHEMA,
      noSwitch: true,
      chunkSize: 700,
      ...cut,
    },
    deps,
  );
  return readModelDigest(t.pool, 'read_models_next');
}

describe('replay', () => {
  it('rebuilds every read-model table identically from offset 0, with progress, and switches it in', async () => {
    await append();
    await liveCaughtUp();
    const uncut = await readModelDigest(t.pool, DEFAULT_READ_MODEL_SCHEMA);
    const before = await retainedDigest(DEFAULT_READ_MODEL_SCHEMA);
    expect(before.orders!.rows).toBeGreaterThan(200);
    expect(before.dead_letters!.rows).toBeGreaterThan(0);
    // The cut removed expired rows the log still holds: the rebuild must not bring them back.
    expect(before.pixel_events!.rows).toBeLessThan(uncut.pixel_events!.rows);
    expect(before.ingest_batches!.rows).toBeLessThan(uncut.ingest_batches!.rows);
    const progress: RebuildProgress[] = [];
    // A different chunk size than live: the fold must not depend on where chunks are cut.
    const result = await rebuildReadModels(
      {
        topicPrefix: t.topicPrefix,
        readSchema: DEFAULT_READ_MODEL_SCHEMA,
        chunkSize: 333,
        onProgress: (p) => progress.push(p),
        ...cut,
      },
      deps,
    );
    expect(await readModelDigest(t.pool, DEFAULT_READ_MODEL_SCHEMA)).toEqual(before);
    expect(await readModelDigest(t.pool, result.oldSchema!)).toEqual(before);
    // The rebuild folded without the readers' indexes and built them afterwards: the tables switched
    // in carry every index the live ones had.
    const indexes = (schema: string) =>
      t.pool
        .query<{ i: string }>(
          `select tablename || '.' || indexname as i from pg_indexes where schemaname = $1 order by 1`,
          [schema],
        )
        .then((r) => r.rows.map((x) => x.i));
    const replaced = await indexes(result.oldSchema!);
    const moved = new Set(replaced.map((i) => i.split('.')[0]));
    const live = (await indexes(DEFAULT_READ_MODEL_SCHEMA)).filter((i) => moved.has(i.split('.')[0]));
    expect(live).toContain('orders.orders_by_date');
    expect(live).toEqual(replaced);
    expect(progress.at(-1)).toMatchObject({ phase: 'final' });
    expect(
      progress.find((p) => p.phase === 'bulk' && p.partitionsDone === p.partitions)?.consumed,
    ).toBeGreaterThan(0);
  });

  it('loses and duplicates nothing when the log keeps growing during a rebuild', async () => {
    const rebuilding = rebuildReadModels(
      { topicPrefix: t.topicPrefix, readSchema: DEFAULT_READ_MODEL_SCHEMA, chunkSize: 1000, ...cut },
      deps,
    );
    await append();
    await rebuilding;
    await append();
    await liveCaughtUp();
    // Committed offsets can reach the high watermark before a rewind (after the switch moved the
    // checkpoints behind the live projector) has re-applied the difference: wait for the tables.
    const fresh = JSON.stringify(await freshRebuildDigest());
    const settled = await until(
      'live equals a fresh rebuild',
      async () => JSON.stringify(await retainedDigest(DEFAULT_READ_MODEL_SCHEMA)),
      (d) => d === fresh,
    );
    expect(settled).toBe(fresh);
  });

  it('rewinds the live projector when a switch moves its checkpoints behind it', async () => {
    // Build without switching, let live run ahead, then switch with no catch-up: the live projector
    // finds checkpoints behind what it applied and must re-apply the difference into the new tables.
    await rebuildReadModels(
      { topicPrefix: t.topicPrefix, readSchema: DEFAULT_READ_MODEL_SCHEMA, noSwitch: true, ...cut },
      deps,
    );
    await append();
    await liveCaughtUp();
    const rewindsBefore = rewinds.length;
    await switchTables(t.pool, DEFAULT_READ_MODEL_SCHEMA, 'read_models_next', selectProjections(), 'manual');
    // No new record arrives: the checkpoint watch alone must notice and re-apply the difference.
    const fresh = JSON.stringify(await freshRebuildDigest());
    await until(
      `live equals a fresh rebuild ${fresh}`,
      async () => JSON.stringify(await retainedDigest(DEFAULT_READ_MODEL_SCHEMA)),
      (d) => d === fresh,
    );
    expect(rewinds.length).toBeGreaterThan(rewindsBefore);
  });

  it('asks for the rewind again when its seek is lost (a rebalance), until a chunk from it commits', async () => {
    await rebuildReadModels(
      { topicPrefix: t.topicPrefix, readSchema: DEFAULT_READ_MODEL_SCHEMA, noSwitch: true, ...cut },
      deps,
    );
    await append();
    await liveCaughtUp();
    const rewindsBefore = rewinds.length;
    // Every partition's first rewind is lost: only asking again can re-apply the difference.
    seeksToLose = selectProjections().length * 64;
    seeksLost = 0;
    await switchTables(t.pool, DEFAULT_READ_MODEL_SCHEMA, 'read_models_next', selectProjections(), 'manual');
    await until(
      'the first rewinds to be lost',
      () => Promise.resolve(seeksLost),
      (n) => n > 0,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    seeksToLose = 0;
    const fresh = JSON.stringify(await freshRebuildDigest());
    await until(
      `live equals a fresh rebuild ${fresh}`,
      async () => JSON.stringify(await retainedDigest(DEFAULT_READ_MODEL_SCHEMA)),
      (d) => d === fresh,
    );
    expect(rewinds.length - rewindsBefore).toBeGreaterThan(seeksLost);
  });
});
