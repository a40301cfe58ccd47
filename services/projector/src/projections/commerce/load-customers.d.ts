import { type ProjectionTx } from '../../projection.js';
import type { CustomerState } from './customer-state.js';
import type { IdentityKeys } from './identity-index.js';
/** The (account, value) pairs of one key that a chunk carries, deduplicated, as unnest arrays. */
export declare class KeySet {
    readonly accounts: string[];
    readonly values: string[];
    private readonly seen;
    add(accountId: string, value: string | null): void;
    has(accountId: string, value: string): boolean;
}
/** The identity keys one record of the chunk will resolve with. */
export interface IdentityLookup {
    readonly accountId: string;
    readonly keys: IdentityKeys;
}
/**
 * Loads every stored customer that a record of the chunk could resolve to, set-based: first by
 * external id (one index lookup per distinct id, all in one statement), then by email and phone only
 * for the records whose external id is absent or unknown, since a record found by external id never
 * looks further. That second step is small on a backfill, where most orders name known customers.
 */
export declare function loadCustomers(tx: ProjectionTx, lookups: readonly IdentityLookup[]): Promise<CustomerState[]>;
/** The dedup keys of `table` (customer_events, zero_party_submissions) already stored, as `account\0key`. */
export declare function loadStoredDedupKeys(tx: ProjectionTx, table: 'customer_events' | 'zero_party_submissions', keys: KeySet): Promise<Set<string>>;
//# sourceMappingURL=load-customers.d.ts.map