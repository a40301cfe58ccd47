import { type ProjectedEvent } from '../../projection.js';
import { type CustomerState } from './customer-state.js';
import type { OrderWrite } from './write-orders.js';
import type { CustomerEventRow, ZeroPartyRow } from './write-webhook-rows.js';
/** The records of holdfast.commerce: everything that resolves customer identity shares one log. */
export type CommerceEventName = 'OrderUpserted' | 'CustomerUpserted' | 'CustomerEventReceived' | 'ZeroPartySubmitted';
/** Stored state a chunk needs before it can fold: loaded once per chunk, in the chunk's transaction. */
export interface ChunkState {
    readonly customers: readonly CustomerState[];
    /** `account\0dedup_key` of stored customer events and zero-party submissions. */
    readonly storedEventKeys: ReadonlySet<string>;
    readonly storedSubmissionKeys: ReadonlySet<string>;
}
/**
 * Folds a chunk of commerce records, in log order, into the writes that express it: the customers
 * created or changed, the order rows, and the webhook rows. Customers are merged in memory one record
 * at a time, starting from the rows loaded for the chunk, so identity resolution and the merge rules
 * see exactly what one-by-one application would, however the log is cut into chunks.
 */
export declare class CommerceChunk {
    readonly orders: OrderWrite[];
    readonly customerEvents: CustomerEventRow[];
    readonly zeroParty: ZeroPartyRow[];
    private readonly dirty;
    private readonly index;
    private readonly eventKeys;
    private readonly submissionKeys;
    constructor(state: ChunkState);
    add(e: ProjectedEvent<CommerceEventName>): void;
    /** The customers created or changed, in first-change order. */
    changedCustomers(): CustomerState[];
    private order;
    private customer;
    private customerEvent;
    private submission;
    private resolveOrCreate;
    /** Applies a record to a customer: the identity index now, the row at the end of the chunk. */
    private merge;
}
//# sourceMappingURL=commerce-chunk.d.ts.map