import type { Projection, ProjectedEvent } from '../../projection.js';
import { CommerceChunk, type CommerceEventName } from './commerce-chunk.js';
import { KeySet, loadCustomers, loadStoredDedupKeys, type IdentityLookup } from './load-customers.js';
import { StatisticsKeeper } from './statistics.js';
import { writeCustomers } from './write-customers.js';
import { writeOrders } from './write-orders.js';
import { insertCustomerEvents, insertZeroPartySubmissions } from './write-webhook-rows.js';

/** The identity keys and dedup keys a chunk carries: what must be loaded before folding it. */
function keysOf(events: readonly ProjectedEvent<CommerceEventName>[]) {
  const lookups: IdentityLookup[] = [];
  const eventKeys = new KeySet();
  const submissionKeys = new KeySet();
  for (const e of events) {
    const accountId = e.value.metadata.account_id.toLowerCase();
    switch (e.type) {
      case 'OrderUpserted': {
        const o = e.value.order;
        lookups.push({ accountId, keys: { externalId: o.customer_id, email: o.email, phone: o.phone } });
        break;
      }
      case 'CustomerUpserted': {
        const c = e.value.customer;
        lookups.push({ accountId, keys: { externalId: c.external_id, email: c.email, phone: c.phone } });
        break;
      }
      case 'CustomerEventReceived': {
        const c = e.value.event;
        lookups.push({ accountId, keys: { externalId: c.external_id, email: c.email, phone: c.phone } });
        eventKeys.add(accountId, e.value.dedup_key);
        break;
      }
      case 'ZeroPartySubmitted':
        lookups.push({
          accountId,
          keys: { externalId: e.value.external_customer_id, email: e.value.email, phone: null },
        });
        submissionKeys.add(accountId, e.value.dedup_key);
        break;
    }
  }
  return { lookups, eventKeys, submissionKeys };
}

const statistics = new StatisticsKeeper();

/**
 * Orders, customers, inbound customer events and zero-party submissions: one projection because they
 * share one topic (holdfast.commerce) and one piece of state (customer identity), so a replay resolves
 * identities in exactly the order live did. Per chunk: a few set-based loads, one fold in memory,
 * then one statement per table (orders: one per round of re-posts).
 */
export const commerceProjection: Projection<CommerceEventName> = {
  name: 'commerce',
  topic: 'holdfast.commerce',
  handles: ['OrderUpserted', 'CustomerUpserted', 'CustomerEventReceived', 'ZeroPartySubmitted'],
  tables: ['orders', 'customers', 'customer_events', 'zero_party_submissions'],
  async apply(events, tx) {
    const { lookups, eventKeys, submissionKeys } = keysOf(events);
    const customers = await loadCustomers(tx, lookups);
    const storedEventKeys = await loadStoredDedupKeys(tx, 'customer_events', eventKeys);
    const storedSubmissionKeys = await loadStoredDedupKeys(tx, 'zero_party_submissions', submissionKeys);
    const chunk = new CommerceChunk({ customers, storedEventKeys, storedSubmissionKeys });
    for (const e of events) chunk.add(e);
    const customerWrites = chunk.customerWrites();
    await writeCustomers(tx, customerWrites);
    await writeOrders(tx, chunk.orders);
    await insertCustomerEvents(tx, chunk.customerEvents);
    await insertZeroPartySubmissions(tx, chunk.zeroParty);
    await statistics.afterWrite(tx, customerWrites.created.length + chunk.orders.length);
  },
};
