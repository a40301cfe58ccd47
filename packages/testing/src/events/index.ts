// Event builders for tests and the benchmark: override factories over the generated types, so a test
// states only what it is about.
import { randomUUID } from 'node:crypto';
import type {
  CustomerEventReceived,
  CustomerRow,
  CustomerUpserted,
  EventMetadata,
  InboundCustomerEvent,
  OrderRow,
  OrderUpserted,
  ZeroPartySubmitted,
} from '@holdfast/contracts';

export function metadata(
  accountId: string,
  receivedAt = '2025-01-01T00:00:00.000Z',
  over: Partial<EventMetadata> = {},
): EventMetadata {
  return {
    account_id: accountId,
    event_id: randomUUID(),
    batch_id: null,
    request_id: null,
    key_id: null,
    received_at: receivedAt,
    ...over,
  };
}

export function orderRow(over: Partial<OrderRow> & Pick<OrderRow, 'order_id'>): OrderRow {
  return {
    customer_id: 'c-1',
    order_date: '2024-06-01T10:00:00.000Z',
    order_amount: 100,
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
    ...over,
  };
}

export const orderUpserted = (m: EventMetadata, order: OrderRow): OrderUpserted => ({
  metadata: m,
  order,
  personal: null,
});

export function customerRow(over: Partial<CustomerRow> = {}): CustomerRow {
  return {
    external_id: null,
    email: null,
    phone: null,
    name: null,
    address: null,
    consent: null,
    source_label: 'custom-api',
    subscription_status: null,
    subscription_started_at: null,
    ...over,
  };
}

export const customerUpserted = (m: EventMetadata, customer: CustomerRow): CustomerUpserted => ({
  metadata: m,
  customer,
  personal: null,
});

export function customerEvent(
  m: EventMetadata,
  dedupKey: string,
  over: Partial<InboundCustomerEvent> = {},
): CustomerEventReceived {
  return {
    metadata: m,
    dedup_key: dedupKey,
    event: {
      external_id: null,
      email: null,
      phone: null,
      name: null,
      address: null,
      consent: null,
      event_type: 'custom',
      source_label: 'custom-api',
      ...over,
    },
    personal: null,
  };
}

export function zeroParty(
  m: EventMetadata,
  dedupKey: string,
  over: Partial<Omit<ZeroPartySubmitted, 'metadata' | 'dedup_key'>> = {},
): ZeroPartySubmitted {
  return {
    metadata: m,
    dedup_key: dedupKey,
    email: null,
    external_customer_id: null,
    interests: [],
    attributes_json: null,
    personal: null,
    source_label: null,
    quiz_version: null,
    completed_at: null,
    ...over,
  };
}
