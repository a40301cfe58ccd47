// Test support (e2e): customers and orders appended to the real holdfast.commerce topic, as the
// gateway would append them, for the real projector to fold.
import { randomUUID } from 'node:crypto';
import type { CustomerUpserted, EventMetadata, OrderRow, OrderUpserted } from '@holdfast/contracts';
import { TransactionalAppender, topicName } from '@holdfast/kafka';
import type { TestEnv } from '@holdfast/testing';

const meta = (accountId: string, receivedAt: string): EventMetadata => ({
  account_id: accountId,
  event_id: randomUUID(),
  batch_id: randomUUID(),
  request_id: null,
  key_id: null,
  received_at: receivedAt,
});

export function customerUpserted(
  accountId: string,
  externalId: string,
  email: string,
  receivedAt: string,
): CustomerUpserted {
  return {
    metadata: meta(accountId, receivedAt),
    customer: {
      external_id: externalId,
      email,
      phone: null,
      name: null,
      address: null,
      consent: { marketing_email: true, sms: null, suppressed: false, bounced: false },
      source_label: 'custom-api',
      subscription_status: null,
      subscription_started_at: null,
    },
    personal: null,
  };
}

export function orderUpserted(
  accountId: string,
  o: Pick<OrderRow, 'order_id' | 'customer_id' | 'order_date' | 'order_amount'> & Partial<OrderRow>,
  receivedAt: string,
): OrderUpserted {
  return {
    metadata: meta(accountId, receivedAt),
    order: {
      product_name: 'Tea',
      email: null,
      phone: null,
      customer_name: null,
      source: null,
      order_channel: null,
      currency: 'USD',
      shipping_city: null,
      shipping_state: null,
      shipping_zip: null,
      refunded_amount: null,
      discount_total: null,
      discount_pct: null,
      discount_codes: null,
      cancelled_at: null,
      ...o,
    },
    personal: null,
  };
}

/** Appends customers and orders to holdfast.commerce in one transaction (one ingest batch). */
export async function appendCommerce(
  t: TestEnv,
  accountId: string,
  events: readonly (
    { type: 'CustomerUpserted'; value: CustomerUpserted } | { type: 'OrderUpserted'; value: OrderUpserted }
  )[],
): Promise<void> {
  const appender = await TransactionalAppender.create(t.kafka, {
    name: `${t.topicPrefix}e2e-ingest`,
    size: 1,
  });
  try {
    await appender.append(
      events.map((e) => ({
        topic: topicName(t.topicPrefix, 'holdfast.commerce'),
        key: accountId,
        value:
          e.type === 'CustomerUpserted' ? t.codec.encode(e.type, e.value) : t.codec.encode(e.type, e.value),
      })),
    );
  } finally {
    await appender.close();
  }
}

/** Polls `check` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
