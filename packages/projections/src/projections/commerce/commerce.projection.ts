import type { ChunkLookahead, Projection, ProjectionTx } from '../../projection.js';
import {
  AccountIds,
  CommerceChunk,
  type CommerceEventName,
  type OpenedCommerceEvent,
} from './commerce-chunk.js';
import { CommerceKeys, openCommerce } from './open-commerce.js';
import { CommerceLookahead } from './commerce-lookahead.js';
import { IdentityIndex, RoutedIdentities } from './identity-index.js';
import {
  DEFAULT_MEMORY_BUDGET,
  IdentityMemory,
  NO_IDENTITY_MEMORY,
  type IdentitySource,
  type MemoryBudget,
  type PartitionMemory,
} from './identity-memory.js';
import { KeySet, loadCustomers, loadStoredDedupKeys, type IdentityLookup } from './load-customers.js';
import { FxSnapshots } from '@holdfast/read-models';
import { StatisticsKeeper } from './statistics.js';
import { writeCustomers } from './write-customers.js';
import { writeOrders } from './write-orders.js';
import {
  insertCustomerEvents,
  insertCustomerSubjects,
  insertZeroPartySubmissions,
} from './write-webhook-rows.js';

export { CommerceKeys } from './open-commerce.js';

/** The identity keys and dedup keys a chunk carries: what must be loaded before folding it. */
function keysOf(events: readonly OpenedCommerceEvent[]) {
  const lookups: IdentityLookup[] = [];
  const eventKeys = new KeySet();
  const submissionKeys = new KeySet();
  const accounts = new Set<string>();
  const ids = new AccountIds();
  for (const e of events) {
    const accountId = ids.of(e.value.metadata);
    accounts.add(accountId);
    // Emails and phones resolve by blind index (docs/privacy.md).
    const ix = e.indexes;
    switch (e.type) {
      case 'OrderUpserted': {
        const o = e.value.order;
        lookups.push({ accountId, keys: { externalId: o.customer_id, email: ix.email, phone: ix.phone } });
        break;
      }
      case 'CustomerUpserted': {
        const c = e.value.customer;
        lookups.push({ accountId, keys: { externalId: c.external_id, email: ix.email, phone: ix.phone } });
        break;
      }
      case 'CustomerEventReceived': {
        const c = e.value.event;
        lookups.push({ accountId, keys: { externalId: c.external_id, email: ix.email, phone: ix.phone } });
        eventKeys.add(accountId, e.value.dedup_key);
        break;
      }
      case 'ZeroPartySubmitted':
        lookups.push({
          accountId,
          keys: { externalId: e.value.external_customer_id, email: ix.email, phone: null },
        });
        submissionKeys.add(accountId, e.value.dedup_key);
        break;
    }
  }
  return { lookups, eventKeys, submissionKeys, accounts };
}

/**
 * The fold of a chunk that was not prepared ahead: resident accounts resolve in memory, the others
 * load what their records could resolve to (and the stored dedup keys) first.
 */
async function foldWithLookups(
  events: readonly OpenedCommerceEvent[],
  tx: ProjectionTx,
  memory: IdentitySource,
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

/** The state a commerce projection works with: its own, one set per projection instance. */
export interface CommerceState {
  /** Identities known without a query (an IdentityMemory, or NO_IDENTITY_MEMORY). */
  readonly identities: IdentitySource;
  /** Planner statistics kept fresh while the tables grow (default: a keeper of its own). */
  readonly statistics?: StatisticsKeeper;
  /** The fx snapshots orders are converted with (default: a cache of its own). */
  readonly fx?: FxSnapshots;
  /** The subject keys personal data is decrypted with (default: keys of its own). */
  readonly keys?: CommerceKeys;
}

/**
 * Orders, customers, inbound customer events and zero-party submissions: one projection because they
 * share one topic (holdfast.commerce) and one piece of state (customer identity), so a replay resolves
 * identities in exactly the order live did. Per chunk: a few set-based loads, one fold in memory,
 * then one statement per table (orders: one per round of re-posts). All its state is `state`'s:
 * tests build several to play several processes.
 */
export function createCommerceProjection(state: CommerceState): Projection<CommerceEventName> {
  const { identities } = state;
  const statistics = state.statistics ?? new StatisticsKeeper();
  const fxSnapshots = state.fx ?? new FxSnapshots();
  const keys = state.keys ?? new CommerceKeys();
  return {
    name: 'commerce',
    topic: 'holdfast.commerce',
    handles: ['OrderUpserted', 'CustomerUpserted', 'CustomerEventReceived', 'ZeroPartySubmitted'],
    tables: ['orders', 'customers', 'customer_events', 'zero_party_submissions', 'customer_subjects'],
    async apply(events, tx) {
      const mem = identities.open(tx, events);
      const refresh = () => statistics.refreshIfDue(tx).then(() => undefined);
      const chunk =
        mem?.takePrepared() ??
        (await foldWithLookups(await openCommerce(keys.of(tx), events), tx, identities, mem, refresh));
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
      await insertCustomerSubjects(tx, chunk.subjects);
      statistics.noteWritten(tx, customerWrites.created.length + chunk.orders.length);
      if (mem) identities.noteCreated(tx, mem, customerWrites.created);
    },
  };
}

/** A commerce projection with the runner options that make it fast (see `wireCommerce`). */
export interface WiredCommerce {
  readonly projection: Projection<CommerceEventName>;
  readonly lookahead?: ChunkLookahead<CommerceEventName>;
}

/**
 * The commerce projection of one projector, with state of its own: an identity memory of `budget`
 * (HOLDFAST_PROJECTOR_MEMORY_*; 0 customers turns it off) and the lookahead that folds the next
 * chunk into it while the current one is written.
 */
export function wireCommerce(
  budget: MemoryBudget = DEFAULT_MEMORY_BUDGET,
  keys: CommerceKeys = new CommerceKeys(),
): WiredCommerce {
  if (budget.customers <= 0)
    return { projection: createCommerceProjection({ identities: NO_IDENTITY_MEMORY, keys }) };
  const identities = new IdentityMemory(budget);
  return {
    projection: createCommerceProjection({ identities, keys }),
    // It opens personal data from the projection's key cache only (it must not wait).
    lookahead: new CommerceLookahead(identities, keys),
  };
}
