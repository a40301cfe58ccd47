import { qualified, type ProjectedEvent, type ProjectionTx } from '../../projection.js';
import type { CustomerState } from './customer-state.js';
import { IdentityIndex } from './identity-index.js';
import { CUSTOMER_COLUMNS, toState, type CustomerRow } from './load-customers.js';
import { AccountIds, type CommerceChunk, type CommerceEventName } from './commerce-chunk.js';

/** How much one identity memory (one projector) may hold, over all partitions and schemas. */
export interface MemoryBudget {
  readonly customers: number;
  readonly orders: number;
}

/**
 * Default budget of the identity memory. Measured in the projector's heap: ~0.93 KiB per customer,
 * ~45 bytes per order id (docs/performance.md), so a full memory is ~500 MiB and the process stays
 * under 1 GiB. The same figures are the defaults of HOLDFAST_PROJECTOR_MEMORY_*.
 */
export const DEFAULT_MEMORY_BUDGET: MemoryBudget = Object.freeze({ customers: 400_000, orders: 3_000_000 });

/**
 * The port through which the commerce projection finds the identities it already knows without a
 * query: an `IdentityMemory`, or `NO_IDENTITY_MEMORY` (budget 0: every chunk takes the query path).
 * One per projection instance, injected by whoever wires it (`wireCommerce`).
 */
export interface IdentitySource {
  /** The partition's memory for the chunk in `tx`, or null: resolve with queries. */
  open(tx: ProjectionTx, events: readonly ProjectedEvent<CommerceEventName>[]): PartitionMemory | null;
  /** Makes `accounts` resident in `m` where the budget allows; returns the resident ones. */
  admit(tx: ProjectionTx, m: PartitionMemory, accounts: Iterable<string>): Promise<Set<string>>;
  /** Records the customers a chunk created in resident accounts. */
  noteCreated(tx: ProjectionTx, m: PartitionMemory, created: readonly CustomerState[]): void;
  /** The memory of a partition whose chunk is being applied right now (not yet committed). */
  pending(schema: string, partition: number): PartitionMemory | undefined;
  /** Forgets a partition (its memory was changed by a fold that did not complete). */
  drop(schema: string, partition: number): void;
  /** The chunk applied on (schema, partition) committed at checkpoint version `position`. */
  committed(schema: string, partition: number, position: string): void;
}

/** The identity source of a projector without memory: nothing is known, every chunk queries. */
export const NO_IDENTITY_MEMORY: IdentitySource = Object.freeze({
  open: () => null,
  admit: () => Promise.resolve(new Set<string>()),
  noteCreated: () => {},
  pending: () => undefined,
  drop: () => {},
  committed: () => {},
});

/**
 * What the projector knows of the accounts of one partition: every customer (indexed for identity
 * resolution) and every order id of each resident account, exactly as the database holds them after
 * the last commit of this process. The commerce projection is the only writer of these rows, and an
 * account's records all live in one partition, so after a commit nothing but the next chunk of this
 * partition can change them; `validAt` (the checkpoint version of that commit) proves it.
 */
export class PartitionMemory {
  /** Checkpoint version at which this memory is exact; null while a chunk is being applied. */
  validAt: string | null = null;
  readonly index = new IdentityIndex<CustomerState>();
  /** Resident accounts: account → stored order ids. */
  readonly orders = new Map<string, Set<string>>();
  /** Resident accounts: account → stored customers. */
  readonly customers = new Map<string, number>();
  /**
   * The next chunk, folded ahead into this memory while the previous one was being written. Valid
   * only for exactly those events, applied right after the chunk that was pending when it was folded.
   */
  prepared:
    | { readonly first: string; readonly last: string; readonly count: number; readonly chunk: CommerceChunk }
    | undefined;

  /** The prepared fold, if it is the fold of `events` (taken either way). */
  takePrepared(): CommerceChunk | undefined {
    const p = this.prepared;
    this.prepared = undefined;
    return p?.chunk;
  }

  /** Whether the fold prepared ahead (if any) is the fold of `events`. */
  preparedFits(events: readonly ProjectedEvent[]): boolean {
    const p = this.prepared;
    return (
      !p || (p.count === events.length && p.first === events[0]?.offset && p.last === events.at(-1)?.offset)
    );
  }

  /** Resident accounts: account → the memory's tick when a chunk last used it. */
  readonly lastUsed = new Map<string, number>();

  isResident(accountId: string): boolean {
    return this.orders.has(accountId);
  }

  /** Makes `accountId` non-resident: its rows are looked up again, or loaded again, when next seen. */
  forget(accountId: string): void {
    this.index.forget(accountId);
    this.orders.delete(accountId);
    this.customers.delete(accountId);
    this.lastUsed.delete(accountId);
  }

  /** Customers and order ids held for `accountId`. */
  sizeOf(accountId: string): { customers: number; orders: number } {
    return { customers: this.customers.get(accountId) ?? 0, orders: this.orders.get(accountId)?.size ?? 0 };
  }

  held(): { customers: number; orders: number } {
    let customers = 0;
    let orders = 0;
    for (const n of this.customers.values()) customers += n;
    for (const s of this.orders.values()) orders += s.size;
    return { customers, orders };
  }
}

/**
 * The memory of every partition this process projects, within a budget. Resident accounts resolve
 * identities and recognise stored orders without a query: on a backfill, the two lookups per chunk
 * (customers by external id/email/phone, stored order ids) were a third of the projector's time in
 * PostgreSQL. An account that does not fit the budget stays on the query path (always correct).
 */
export class IdentityMemory implements IdentitySource {
  private readonly partitions = new Map<string, PartitionMemory>();
  /** `schema\0account` of accounts too large for the budget: never loaded again by this process. */
  private readonly oversize = new Set<string>();
  /** Counts chunks: an account's `lastUsed` is the tick of the last chunk that carried it. */
  private tick = 0;

  constructor(private readonly budget: MemoryBudget) {}

  /**
   * The partition's memory for the chunk in `tx`: kept if still exact at `tx.position`, otherwise
   * emptied. Null (and the memory dropped) while the runner isolates poison records. The memory is
   * pending (not valid) until `committed` reports the chunk's commit.
   */
  open(tx: ProjectionTx, events: readonly ProjectedEvent<CommerceEventName>[]): PartitionMemory | null {
    const key = `${tx.schema}\u0000${tx.partition}`;
    let m = this.partitions.get(key);
    if (tx.position === null || this.budget.customers <= 0) {
      this.partitions.delete(key);
      return null;
    }
    // A fold prepared for other events than these has changed the memory: start again from the rows.
    if (!m || m.validAt !== tx.position || !m.preparedFits(events)) {
      m = new PartitionMemory();
      this.partitions.set(key, m);
    }
    m.validAt = null;
    const tick = ++this.tick;
    const accounts = new AccountIds();
    for (const e of events) {
      const a = accounts.of(e.value.metadata);
      if (m.isResident(a)) m.lastUsed.set(a, tick);
    }
    return m;
  }

  /** The memory of a partition whose chunk is being applied right now (not yet committed). */
  pending(schema: string, partition: number): PartitionMemory | undefined {
    const m = this.partitions.get(`${schema}\u0000${partition}`);
    return m && m.validAt === null ? m : undefined;
  }

  /** Forgets a partition (its memory was changed by a fold that did not complete). */
  drop(schema: string, partition: number): void {
    this.partitions.delete(`${schema}\u0000${partition}`);
  }

  committed(schema: string, partition: number, position: string): void {
    const m = this.partitions.get(`${schema}\u0000${partition}`);
    if (m) m.validAt = position;
  }

  /**
   * Makes `accounts` resident in `m` where the budget allows: accounts already resident stay,
   * others are counted (bounded by what is left of the budget) and loaded whole. Returns the
   * resident ones among `accounts`.
   */
  async admit(tx: ProjectionTx, m: PartitionMemory, accounts: Iterable<string>): Promise<Set<string>> {
    const resident = new Set<string>();
    const candidates: string[] = [];
    for (const a of accounts) {
      if (m.isResident(a)) resident.add(a);
      else if (!this.oversize.has(`${tx.schema}\u0000${a}`)) candidates.push(a);
    }
    if (!candidates.length) return resident;
    // Counting stops past the whole budget, so a huge account costs a bounded scan of its index.
    const { rows: sizes } = await tx.client.query<{ a: string; customers: number; orders: number }>(
      tx.named(
        'identity-memory.account-sizes',
        (s) => `select a,
         (select count(*) from (select 1 from ${qualified(s, 'customers')} c
            where c.account_id = a limit $2) x)::int as customers,
         (select count(*) from (select 1 from ${qualified(s, 'orders')} o
            where o.account_id = a limit $3) y)::int as orders
       from unnest($1::uuid[]) a`,
      ),
      [candidates, this.budget.customers + 1, this.budget.orders + 1],
    );
    const held = this.held();
    const room = {
      customers: this.budget.customers - held.customers,
      orders: this.budget.orders - held.orders,
    };
    const admitted: string[] = [];
    for (const s of sizes) {
      if (s.customers > this.budget.customers || s.orders > this.budget.orders) {
        this.oversize.add(`${tx.schema}\u0000${s.a}`);
        continue;
      }
      // Room is made by forgetting the accounts no chunk has carried for the longest time.
      if (s.customers > room.customers || s.orders > room.orders) {
        const freed = this.evict(s.customers - room.customers, s.orders - room.orders);
        room.customers += freed.customers;
        room.orders += freed.orders;
        if (s.customers > room.customers || s.orders > room.orders) continue;
      }
      room.customers -= s.customers;
      room.orders -= s.orders;
      admitted.push(s.a);
    }
    if (!admitted.length) return resident;
    const customers = await tx.client.query<CustomerRow>(
      tx.named(
        'identity-memory.load-customers',
        (s) =>
          `select ${CUSTOMER_COLUMNS} from ${qualified(s, 'customers')} c where c.account_id = any($1::uuid[])`,
      ),
      [admitted],
    );
    const orders = await tx.client.query<{ account_id: string; order_id: string }>(
      tx.named(
        'identity-memory.load-order-ids',
        (s) =>
          `select account_id, order_id from ${qualified(s, 'orders')} where account_id = any($1::uuid[])`,
      ),
      [admitted],
    );
    for (const a of admitted) {
      m.orders.set(a, new Set());
      m.customers.set(a, 0);
      m.lastUsed.set(a, this.tick);
      resident.add(a);
    }
    for (const r of customers.rows) {
      m.index.add(toState(r));
      m.customers.set(r.account_id, m.customers.get(r.account_id)! + 1);
    }
    for (const r of orders.rows) m.orders.get(r.account_id)!.add(r.order_id);
    return resident;
  }

  /**
   * Records the customers a chunk created in resident accounts. When the process now holds more than
   * its budget, the accounts unused for longest are forgotten; if the chunk's own accounts are still
   * too many, the partition's largest account is marked oversize and the partition's memory dropped
   * (its other accounts are loaded again on their next chunk).
   */
  noteCreated(tx: ProjectionTx, m: PartitionMemory, created: readonly CustomerState[]): void {
    for (const c of created)
      if (m.isResident(c.accountId)) m.customers.set(c.accountId, m.customers.get(c.accountId)! + 1);
    const held = this.held();
    const over = {
      customers: held.customers - this.budget.customers,
      orders: held.orders - this.budget.orders,
    };
    if (over.customers <= 0 && over.orders <= 0) return;
    const freed = this.evict(over.customers, over.orders);
    if (freed.customers >= over.customers && freed.orders >= over.orders) return;
    let largest: string | undefined;
    let size = -1;
    for (const [a, ids] of m.orders) {
      const n = ids.size + (m.customers.get(a) ?? 0);
      if (n > size) [largest, size] = [a, n];
    }
    if (largest !== undefined) this.oversize.add(`${tx.schema}\u0000${largest}`);
    this.partitions.delete(`${tx.schema}\u0000${tx.partition}`);
  }

  /**
   * Forgets resident accounts, least recently used first, until `customers` and `orders` are freed
   * or nothing more may go. Never the accounts of the chunk being applied (used at this tick), and
   * never in a partition holding a fold prepared ahead (that fold already changed the memory).
   * Forgetting keeps a memory exact: what stays is still what the database holds.
   */
  private evict(customers: number, orders: number): { customers: number; orders: number } {
    const freed = { customers: 0, orders: 0 };
    const victims: { m: PartitionMemory; a: string; used: number }[] = [];
    for (const m of this.partitions.values()) {
      if (m.prepared) continue;
      for (const [a, used] of m.lastUsed) if (used < this.tick) victims.push({ m, a, used });
    }
    victims.sort((x, y) => x.used - y.used);
    for (const { m, a } of victims) {
      if (freed.customers >= customers && freed.orders >= orders) break;
      const size = m.sizeOf(a);
      m.forget(a);
      freed.customers += size.customers;
      freed.orders += size.orders;
    }
    return freed;
  }

  /** The accounts resident for (schema, partition), least recently used first. */
  residents(schema: string, partition: number): string[] {
    const m = this.partitions.get(`${schema}\u0000${partition}`);
    return m ? [...m.lastUsed].sort((x, y) => x[1] - y[1]).map(([a]) => a) : [];
  }

  /** What the process holds, over all partitions. */
  held(): { customers: number; orders: number } {
    let customers = 0;
    let orders = 0;
    for (const m of this.partitions.values()) {
      const h = m.held();
      customers += h.customers;
      orders += h.orders;
    }
    return { customers, orders };
  }
}
