import type { Projection, ProjectedEvent, ProjectionTx } from '../../projection.js';
import { accountOf, CommerceChunk, type CommerceEventName } from './commerce-chunk.js';
import { IdentityIndex, RoutedIdentities } from './identity-index.js';
import { IdentityMemory, type MemoryBudget, type PartitionMemory } from './identity-memory.js';
import { KeySet, loadCustomers, loadStoredDedupKeys, type IdentityLookup } from './load-customers.js';
import { FxSnapshots } from '../../fx/fx-snapshot.js';
import { StatisticsKeeper } from './statistics.js';
import { writeCustomers } from './write-customers.js';
import { writeOrders } from './write-orders.js';
import { insertCustomerEvents, insertZeroPartySubmissions } from './write-webhook-rows.js';

/** The identity keys and dedup keys a chunk carries: what must be loaded before folding it. */
function keysOf(events: readonly ProjectedEvent<CommerceEventName>[]) {
  const lookups: IdentityLookup[] = [];
  const eventKeys = new KeySet();
  const submissionKeys = new KeySet();
  const accounts = new Set<string>();
  for (const e of events) {
    const accountId = accountOf(e.value.metadata);
    accounts.add(accountId);
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
  return { lookups, eventKeys, submissionKeys, accounts };
}

const statistics = new StatisticsKeeper();
const fxSnapshots = new FxSnapshots();
const NONE: ReadonlySet<string> = new Set();

/**
 * The fold of a chunk that was not prepared ahead: resident accounts resolve in memory, the others
 * load what their records could resolve to (and the stored dedup keys) first.
 */
async function foldWithLookups(
  events: readonly ProjectedEvent<CommerceEventName>[],
  tx: ProjectionTx,
  memory: IdentityMemory,
  mem: PartitionMemory | null,
  refresh: () => Promise<void>,
): Promise<CommerceChunk> {
  const { lookups, eventKeys, submissionKeys, accounts } = keysOf(events);
  const resident = mem ? await memory.admit(tx, mem, accounts) : new Set<string>();
  const queried = resident.size ? lookups.filter((l) => !resident.has(l.accountId)) : lookups;
  if (queried.length) await refresh();
  const local = new IdentityIndex(await loadCustomers(tx, queried));
  const storedEventKeys = await loadStoredDedupKeys(tx, 'customer_events', eventKeys);
  const storedSubmissionKeys = await loadStoredDedupKeys(tx, 'zero_party_submissions', submissionKeys);
  const identities = mem ? new RoutedIdentities(mem.index, resident, local) : local;
  const chunk = new CommerceChunk({ identities, storedEventKeys, storedSubmissionKeys });
  for (const e of events) chunk.add(e);
  return chunk;
}

/**
 * Default budget of the identity memory. Measured in the projector's heap: ~0.93 KiB per customer,
 * ~45 bytes per order id (docs/performance.md), so a full memory is ~500 MiB and the process stays
 * under 1 GiB. The same figures are the defaults of HOLDFAST_PROJECTOR_MEMORY_*.
 */
export const DEFAULT_MEMORY_BUDGET: MemoryBudget = { customers: 400_000, orders: 3_000_000 };
let processMemory = new IdentityMemory(DEFAULT_MEMORY_BUDGET);

/** Sets the budget of the process's identity memory (0 customers turns it off). Drops what is held. */
export function configureCommerceMemory(budget: MemoryBudget): void {
  processMemory = new IdentityMemory(budget);
}

/**
 * Orders, customers, inbound customer events and zero-party submissions: one projection because they
 * share one topic (holdfast.commerce) and one piece of state (customer identity), so a replay resolves
 * identities in exactly the order live did. Per chunk: a few set-based loads, one fold in memory,
 * then one statement per table (orders: one per round of re-posts).
 */
export const commerceProjection: Projection<CommerceEventName> = createCommerceProjection(
  () => processMemory,
);

/**
 * The commerce projection over the identity memory `memoryOf` returns (one per process; tests give
 * several to play several processes).
 */
export function createCommerceProjection(memoryOf: () => IdentityMemory): Projection<CommerceEventName> {
  return {
    name: 'commerce',
    topic: 'holdfast.commerce',
    handles: ['OrderUpserted', 'CustomerUpserted', 'CustomerEventReceived', 'ZeroPartySubmitted'],
    tables: ['orders', 'customers', 'customer_events', 'zero_party_submissions'],
    async apply(events, tx) {
      const memory = memoryOf();
      const mem = memory.open(tx, events);
      const refresh = () => statistics.refreshIfDue(tx).then(() => undefined);
      const chunk = mem?.takePrepared() ?? (await foldWithLookups(events, tx, memory, mem, refresh));
      const customerWrites = chunk.customerWrites();
      await writeCustomers(tx, customerWrites);
      const fx = chunk.orders.length ? await fxSnapshots.current(tx.client) : null;
      await writeOrders(tx, chunk.orders, {
        conversionOf: fx ? (account, currency, date) => fx.conversion(account, currency, date) : undefined,
        resident: mem?.orders,
        beforeJoin: refresh,
        whileCopying: tx.meanwhile,
      });
      await insertCustomerEvents(tx, chunk.customerEvents);
      await insertZeroPartySubmissions(tx, chunk.zeroParty);
      statistics.noteWritten(tx, customerWrites.created.length + chunk.orders.length);
      if (mem) memory.noteCreated(tx, mem, customerWrites.created);
    },
    prepare(events, schema, partition) {
      // Folds the next chunk into the memory now, while the current chunk's COPY runs, when it can be
      // folded from memory alone: every account resident, no dedup keys to look up.
      const memory = memoryOf();
      const mem = memory.pending(schema, partition);
      if (!mem || mem.prepared || !events.length) return;
      for (const e of events) {
        if (e.type !== 'OrderUpserted' && e.type !== 'CustomerUpserted') return;
        if (!mem.isResident(accountOf(e.value.metadata))) return;
      }
      const chunk = new CommerceChunk({
        identities: mem.index,
        storedEventKeys: NONE,
        storedSubmissionKeys: NONE,
      });
      try {
        for (const e of events) chunk.add(e);
      } catch {
        // A record the fold refuses (poison) left the memory half changed: apply will start afresh.
        memory.drop(schema, partition);
        return;
      }
      mem.prepared = { first: events[0]!.offset, last: events.at(-1)!.offset, count: events.length, chunk };
    },
    committed(schema, partition, position) {
      memoryOf().committed(schema, partition, position);
    },
  };
}
