import { rawQuery, type Pool } from '@holdfast/postgres';
import type { AnyEvent, EventCodec, EventTypes } from '@holdfast/contracts';
import {
  ensureTopics,
  topicName,
  TOPICS,
  type ConsumedRecord,
  type KafkaClient,
  type OutgoingRecord,
} from '@holdfast/kafka';
import {
  sealPersonal,
  sealPixelPersonal,
  withoutPersonal,
  withoutPixelPersonal,
  type PersonalEvent,
  type PersonalEventName,
  type PixelEvent,
  type SubjectKeyCache,
} from '@holdfast/privacy';
import type { Logger } from '@holdfast/platform';

const PERSONAL: ReadonlySet<string> = new Set<PersonalEventName>([
  'OrderUpserted',
  'CustomerUpserted',
  'CustomerEventReceived',
  'ZeroPartySubmitted',
]);

/** Whether a decoded commerce record still carries personal fields in clear (written before sealing). */
export function needsSealing(e: AnyEvent): e is PersonalEvent {
  if (!PERSONAL.has(e.type)) return false;
  const p = e as PersonalEvent;
  return p.value.personal == null && withoutPersonal(p).fields !== null;
}

/** Whether a decoded pixel event still carries raw_props, search or a page title in clear. */
export function needsPixelSealing(e: AnyEvent): e is { type: 'PixelEventCollected'; value: PixelEvent } {
  if (e.type !== 'PixelEventCollected') return false;
  return e.value.personal == null && withoutPixelPersonal(e.value).fields !== null;
}

/** The erased subjects of every account (`privacy.erased_subjects`): indexes only, never identifiers. */
export async function erasedSubjects(pool: Pool): Promise<Map<string, Set<string>>> {
  const { rows } = await rawQuery<{ account_id: string; subject_id: string }>(
    pool,
    'migrate-log.erased-subjects',
    'select account_id::text, subject_id from privacy.erased_subjects',
  );
  const out = new Map<string, Set<string>>();
  for (const r of rows) {
    let s = out.get(r.account_id);
    if (!s) out.set(r.account_id, (s = new Set()));
    s.add(r.subject_id);
  }
  return out;
}

/**
 * One fetched batch of `holdfast.commerce` or `holdfast.pixel-events` as it is written to the new
 * topic: each record in clear sealed as the gateway seals (`sealPersonal` / `sealPixelPersonal`: same
 * subjects, same blind indexes, one key round trip per account), with its personal fields dropped
 * when its subject was erased; sealed records and the other types as they were, byte for byte. Same
 * key, same headers, same order.
 */
export async function sealBatch(
  records: readonly ConsumedRecord[],
  to: string,
  o: { codec: EventCodec; keys: SubjectKeyCache; erased: ReadonlyMap<string, ReadonlySet<string>> },
): Promise<{ out: OutgoingRecord[]; sealed: number }> {
  const decoded: (AnyEvent | undefined)[] = [];
  for (const r of records) decoded.push(r.value ? await o.codec.decode(r.value) : undefined);
  // Per account, the records to seal, in one call each.
  const byAccount = new Map<string, number[]>();
  const pixelByAccount = new Map<string, number[]>();
  decoded.forEach((e, i) => {
    if (e && needsPixelSealing(e)) {
      const account = e.value.metadata.account_id.toLowerCase();
      let list = pixelByAccount.get(account);
      if (!list) pixelByAccount.set(account, (list = []));
      list.push(i);
      return;
    }
    if (!e || !needsSealing(e)) return;
    const account = e.value.metadata.account_id.toLowerCase();
    let list = byAccount.get(account);
    if (!list) byAccount.set(account, (list = []));
    list.push(i);
  });
  const values = new Map<number, Buffer>();
  for (const [account, at] of byAccount) {
    const events = at.map((i) => decoded[i] as PersonalEvent);
    const sealed = await sealPersonal(o.keys, account, events, { erased: o.erased.get(account) });
    at.forEach((i, j) =>
      values.set(i, o.codec.encode(events[j]!.type, sealed[j] as EventTypes[PersonalEventName])),
    );
  }
  for (const [account, at] of pixelByAccount) {
    const events = at.map((i) => decoded[i]!.value as PixelEvent);
    const sealed = await sealPixelPersonal(o.keys, account, events, { erased: o.erased.get(account) });
    at.forEach((i, j) => values.set(i, o.codec.encode('PixelEventCollected', sealed[j]!)));
  }
  const out = records.map((r, i) => ({
    topic: to,
    key: r.key?.toString('utf8') ?? '',
    value: values.get(i) ?? r.value ?? Buffer.alloc(0),
    headers: Object.fromEntries(
      Object.entries(r.headers ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k, v]])),
    ),
  }));
  return { out, sealed: values.size };
}

export interface MigrateLogOptions {
  readonly kafka: KafkaClient;
  readonly pool: Pool;
  readonly codec: EventCodec;
  readonly keys: SubjectKeyCache;
  readonly fromPrefix: string;
  readonly toPrefix: string;
  readonly partitions: number;
  readonly logger: Logger;
  /** Stops waiting for the copy to reach the end of the source after this long (default 10 min). */
  readonly timeoutMs?: number;
  /** How long nothing must come before a partition one short of its end is done (default 5 s). */
  readonly quietMs?: number;
}

export interface MigrateLogResult {
  readonly copied: number;
  readonly sealed: number;
  readonly topics: number;
}

/**
 * `holdfast privacy migrate-log`: copies every topic of `fromPrefix` to `toPrefix` up to the end
 * each partition had when it started, `holdfast.commerce` and `holdfast.pixel-events` through
 * `sealBatch`, the others byte for
 * byte, each record to the same partition number (same key, same partitioner, same partition count).
 * Progress is the consumer group `holdfast.migrate-log.<toPrefix>`'s committed offsets, committed
 * after each batch's produce transaction: stopped and run again, it resumes; a crash between the two
 * commits copies that batch twice, which every projection folds as a re-post (no change).
 */
export async function migrateLog(o: MigrateLogOptions): Promise<MigrateLogResult> {
  if (o.fromPrefix === o.toPrefix) throw new Error('--to-prefix must differ from the current prefix');
  const admin = o.kafka.admin();
  await admin.connect();
  const ends = new Map<string, Map<number, bigint>>();
  const groupId = `holdfast.migrate-log.${o.toPrefix}`;
  try {
    await ensureTopics(admin, o.toPrefix, o.partitions);
    for (const t of TOPICS) {
      const from = topicName(o.fromPrefix, t);
      const done = new Map<number, bigint>();
      for (const p of await admin.topicOffsets(from, 'committed'))
        if (BigInt(p.high) > BigInt(p.low)) done.set(p.partition, BigInt(p.high));
      if (done.size) ends.set(from, done);
    }
    // Partitions a previous run copied to their end already (the group's committed offsets).
    for (const c of await admin.groupOffsets(groupId, [...ends.keys()])) {
      const end = ends.get(c.topic)?.get(c.partition);
      if (end !== undefined && BigInt(c.offset) >= end) ends.get(c.topic)!.delete(c.partition);
    }
    for (const [t, ps] of ends) if (!ps.size) ends.delete(t);
  } finally {
    await admin.disconnect();
  }
  if (!ends.size) return { copied: 0, sealed: 0, topics: 0 };
  const erased = await erasedSubjects(o.pool);
  const sealedTopics = new Set([
    topicName(o.fromPrefix, 'holdfast.commerce'),
    topicName(o.fromPrefix, 'holdfast.pixel-events'),
  ]);
  const producer = await o.kafka.transactionalProducer({
    transactionalId: groupId,
    transactionTimeoutMs: 60_000,
  });
  const consumer = o.kafka.groupConsumer({
    groupId,
    topics: [...ends.keys()],
    fromBeginning: true,
    sessionTimeoutMs: 30_000,
    heartbeatIntervalMs: 3_000,
  });
  let copied = 0;
  let sealed = 0;
  // How far each partition is copied (the offset after its last record copied).
  const at = new Map<string, bigint>();
  const partitionKeys = [...ends].flatMap(([t, ps]) => [...ps].map(([p, end]) => ({ k: `${t}/${p}`, end })));
  let lastBatchAt = performance.now();
  let finish!: () => void;
  let fail!: (err: Error) => void;
  const finished = new Promise<void>((resolve, reject) => ((finish = resolve), (fail = reject)));
  consumer.on('crash', (err) => fail(err));
  const timer = setTimeout(
    () => fail(new Error(`the copy did not reach the end of the log within ${o.timeoutMs ?? 600_000} ms`)),
    o.timeoutMs ?? 600_000,
  );
  // The end is the high watermark at the start. A transactional topic's last offset is a commit marker
  // no consumer sees, so a partition one short of its end is done only once nothing came for a while.
  const check = setInterval(() => {
    const reached = partitionKeys.every(({ k, end }) => (at.get(k) ?? 0n) >= end - 1n);
    const exact = partitionKeys.every(({ k, end }) => (at.get(k) ?? 0n) >= end);
    if (exact || (reached && performance.now() - lastBatchAt > (o.quietMs ?? 5_000))) finish();
  }, 200);
  try {
    void consumer
      .run(async (batch, control) => {
        const end = ends.get(batch.topic)?.get(batch.partition);
        if (end === undefined) return;
        const records = batch.records.filter((r) => BigInt(r.offset) < end);
        if (records.length) {
          const to = `${o.toPrefix}${batch.topic.slice(o.fromPrefix.length)}`;
          const r = sealedTopics.has(batch.topic)
            ? await sealBatch(records, to, { codec: o.codec, keys: o.keys, erased })
            : {
                out: records.map((x) => ({
                  topic: to,
                  key: x.key?.toString('utf8') ?? '',
                  value: x.value ?? Buffer.alloc(0),
                  headers: Object.fromEntries(
                    Object.entries(x.headers ?? {}).flatMap(([k, v]) => (v === undefined ? [] : [[k, v]])),
                  ),
                })),
                sealed: 0,
              };
          const tx = await producer.transaction();
          try {
            await tx.send(r.out, 30_000);
            await tx.commit();
          } catch (err) {
            await tx.abort().catch(() => {});
            throw err;
          }
          copied += r.out.length;
          sealed += r.sealed;
          control.resolveOffset(records.at(-1)!.offset);
          await control.commitResolved();
        }
        const last = batch.records.at(-1);
        if (last) at.set(`${batch.topic}/${batch.partition}`, BigInt(last.offset) + 1n);
        lastBatchAt = performance.now();
      })
      .catch((err: Error) => fail(err));
    await finished;
  } finally {
    clearTimeout(timer);
    clearInterval(check);
    await consumer.stop().catch(() => {});
    await producer.close().catch(() => {});
  }
  return { copied, sealed, topics: ends.size };
}
