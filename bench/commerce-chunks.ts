// What the projector benches share: the commerce projection's runner on a `phases` schema (no Kafka),
// and generated orders turned into the 5,000-record chunks a consumer would hand it.
import { randomUUID } from 'node:crypto';
import { EventCodec, type OrderUpserted } from '@holdfast/contracts';
import { classifyOrders, validateOrdersRequest } from '@holdfast/domain';
import type { ConsumedRecord } from '@holdfast/kafka';
import { silentLogger } from '@holdfast/platform';
import { ProjectionRunner, selectWiredProjections } from '@holdfast/projections';
import { ensureReadModelSchema } from '@holdfast/read-models';
import { generateOrders } from './generate-orders.js';
import type { benchStack } from './stack.js';

type Stack = Awaited<ReturnType<typeof benchStack>>;

/** The commerce projection's runner over schema `phases`, dead letters dropped. */
export async function commerceRunner(stack: Stack): Promise<{ codec: EventCodec; runner: ProjectionRunner }> {
  const codec = await EventCodec.connect(stack.env.SCHEMA_REGISTRY_URL!);
  await ensureReadModelSchema(stack.pool, 'phases');
  const { projection, lookahead } = selectWiredProjections(['commerce'])[0]!;
  const runner = new ProjectionRunner(
    projection,
    {
      pool: stack.pool,
      codec,
      schema: 'phases',
      logger: silentLogger,
      publisher: { publish: () => Promise.resolve() },
    },
    { lookahead },
  );
  return { codec, runner };
}

/** `n` generated orders of one new account, validated, classified and encoded, in chunks of 5,000. */
export function orderChunks(codec: EventCodec, n: number): ConsumedRecord[][] {
  const account = randomUUID();
  const now = new Date('2026-11-22T00:00:00Z');
  const chunks: ConsumedRecord[][] = [];
  let rows: unknown[] = [];
  let offset = 0;
  const flush = () => {
    const v = validateOrdersRequest({ orders: rows });
    if (!v.ok) throw new Error('invalid');
    chunks.push(
      classifyOrders(v.rows, { now }).accepted.map((order): ConsumedRecord => {
        const value: OrderUpserted = {
          metadata: {
            account_id: account,
            event_id: randomUUID(),
            batch_id: 'b',
            request_id: null,
            key_id: null,
            received_at: now.toISOString(),
          },
          order,
          personal: null,
        };
        return {
          topic: 't',
          partition: 0,
          offset: String(offset++),
          key: null,
          value: codec.encode('OrderUpserted', value),
          timestamp: '0',
        };
      }),
    );
    rows = [];
  };
  for (const o of generateOrders(n)) {
    rows.push(o);
    if (rows.length === 5000) flush();
  }
  if (rows.length) flush();
  return chunks;
}
