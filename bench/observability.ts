// npm run bench -- observability [--rounds N]: what carrying the request id costs with tracing OFF,
// in process (no stack, a few seconds of CPU). Per 5,000-record ingest request: the gateway's
// request context and header decoration (services/gateway/src/http/request-context.ts), the
// appender's message building, and kafkajs's encoding of each record (with the header vs without),
// plus the record bytes; per 5,000-record chunk, the projector reading the request ids back.
import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { REQUEST_ID_HEADER, requestIdOfRecord, type Appender, type OutgoingRecord } from '@holdfast/kafka';
import { inSpan, traceHeaders, tracingOn } from '@holdfast/platform';
import { runAsRequest, withRequestHeaders } from '../services/gateway/src/http/request-context.js';
import { median, report } from './report.js';

const require = createRequire(import.meta.url);
// kafkajs's own record encoder (what every produced record goes through).
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (r: {
  offsetDelta: number;
  key: Buffer;
  value: Buffer;
  headers?: Record<string, string | Buffer>;
}) => { buffer: Buffer };

const RECORDS = 5000;
const VALUE_BYTES = 450;

/** What TransactionalAppender.send does per record before kafkajs, then kafkajs's record encoding. */
function sink(bytes: { n: number }): Appender {
  return {
    append(records: readonly OutgoingRecord[]) {
      let i = 0;
      for (const r of records) {
        const m = r.headers
          ? { key: r.key, value: r.value, headers: r.headers }
          : { key: r.key, value: r.value };
        bytes.n += encodeRecord({
          offsetDelta: i++,
          key: Buffer.from(m.key),
          value: m.value,
          headers: 'headers' in m ? m.headers : undefined,
        }).buffer.length;
      }
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
}

async function timeIt(rounds: number, fn: () => Promise<void>): Promise<number> {
  for (let i = 0; i < 3; i++) await fn(); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

export async function benchObservability(args: Record<string, string>): Promise<void> {
  const rounds = Number(args.rounds ?? 40);
  if (tracingOn()) throw new Error('tracing must be off for this bench');
  const account = randomUUID();
  const records: OutgoingRecord[] = Array.from({ length: RECORDS }, () => ({
    topic: 'holdfast.commerce',
    key: account,
    value: randomBytes(VALUE_BYTES),
  }));
  const plainBytes = { n: 0 };
  const plain = sink(plainBytes);
  const taggedBytes = { n: 0 };
  const tagged = withRequestHeaders(sink(taggedBytes));
  const requestId = randomUUID();

  // Interleaved rounds: before (no request context, no headers) and after (tracing off).
  const before: number[] = [];
  const after: number[] = [];
  for (let i = 0; i < 5; i++) {
    before.push(await timeIt(rounds, () => plain.append(records)));
    after.push(await timeIt(rounds, () => runAsRequest(requestId, () => tagged.append(records))));
  }
  const bytesBefore = plainBytes.n / (rounds + 3) / 5 / RECORDS;
  const bytesAfter = taggedBytes.n / (rounds + 3) / 5 / RECORDS;

  // The projector's side: the request ids of a chunk as consumed (kafkajs hands header values as Buffers).
  const consumed = records.map((r, i) => ({
    offset: String(i),
    headers: { [REQUEST_ID_HEADER]: Buffer.from(requestId) },
    key: Buffer.from(r.key),
  }));
  const readIds = () => {
    const ids = new Set<string>();
    for (const r of consumed) {
      const id = requestIdOfRecord(r);
      if (id) ids.add(id);
      if (ids.size >= 20) break;
    }
    if (!ids.has(requestId)) throw new Error('request id not read back');
    return Promise.resolve();
  };
  const projectorMs = await timeIt(rounds * 5, readIds);

  // The tracing hooks alone, off: the request context, the producer-span wrapper and the trace
  // headers, per request (what the instrumentation costs when no endpoint is set).
  const hooks = () =>
    runAsRequest(requestId, () =>
      inSpan('kafka.append', 'producer', { 'messaging.batch.message_count': RECORDS }, () => {
        if (Object.keys(traceHeaders()).length) throw new Error('tracing is on');
        return Promise.resolve();
      }),
    );
  const hooksMs = await timeIt(rounds * 50, hooks);

  const b = median(before);
  const a = median(after);
  report(
    'observability',
    {
      records_per_request: RECORDS,
      value_bytes: VALUE_BYTES,
      gateway_ms_before: Math.round(b * 1000) / 1000,
      gateway_ms_after: Math.round(a * 1000) / 1000,
      gateway_ms_added: Math.round((a - b) * 1000) / 1000,
      record_bytes_before: Math.round(bytesBefore),
      record_bytes_after: Math.round(bytesAfter),
      projector_ms_per_chunk: Math.round(projectorMs * 1000) / 1000,
      tracing_off_hooks_us_per_request: Math.round(hooksMs * 1e6) / 1000,
      rounds: before.map((x, i) => `${x.toFixed(2)}/${after[i]!.toFixed(2)}`).join(' '),
    },
    [
      [
        `gateway, one ${RECORDS}-record request: decorate + build + kafkajs encode, ms (before / after)`,
        `${b.toFixed(2)} / ${a.toFixed(2)} (+${(a - b).toFixed(2)})`,
      ],
      ['encoded record bytes (before / after)', `${Math.round(bytesBefore)} / ${Math.round(bytesAfter)}`],
      [`projector, request ids of one ${RECORDS}-record chunk, ms`, projectorMs.toFixed(3)],
      ['tracing hooks with tracing off, per request, µs', (hooksMs * 1000).toFixed(2)],
      [
        'medians of interleaved rounds (before/after ms)',
        before.map((x, i) => `${x.toFixed(2)}/${after[i]!.toFixed(2)}`).join(' '),
      ],
    ],
  );
}
