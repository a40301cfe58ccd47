import { type ProjectionTx } from '../../projection.js';
/** One OrderUpserted, ready to merge into read_models.orders. */
export interface OrderWrite {
    readonly accountId: string;
    readonly orderId: string;
    /** The resolved customer; kept only by the first write. */
    readonly customerId: string | null;
    readonly externalCustomerId: string | null;
    readonly orderDate: string;
    readonly orderAmount: number;
    readonly productName: string;
    readonly email: string | null;
    readonly phone: string | null;
    readonly customerName: string | null;
    readonly source: string | null;
    readonly orderChannel: string | null;
    readonly currency: string;
    readonly shippingCity: string | null;
    readonly shippingState: string | null;
    readonly shippingZip: string | null;
    readonly refundedAmount: number | null;
    readonly discountTotal: number | null;
    readonly discountPct: number | null;
    readonly discountCodes: readonly string[] | null;
    readonly cancelledAt: string | null;
    readonly receivedAt: string;
}
/**
 * Merges orders set-based. Orders not stored yet are inserted (a plain multi-row insert: the common
 * case of a backfill, and much cheaper than a speculative upsert); stored ones are updated with the
 * merge rules. An order_id repeated within the chunk goes in rounds, the k-th occurrence in round k,
 * so "the last row of an order_id wins" and the forward-only rules hold exactly as if the records were
 * applied one by one.
 */
export declare function writeOrders(tx: ProjectionTx, orders: readonly OrderWrite[]): Promise<void>;
//# sourceMappingURL=write-orders.d.ts.map