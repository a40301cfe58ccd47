import type { Projection } from '../../projection.js';
import { type CommerceEventName } from './commerce-chunk.js';
/**
 * Orders, customers, inbound customer events and zero-party submissions: one projection because they
 * share one topic (holdfast.commerce) and one piece of state (customer identity), so a replay resolves
 * identities in exactly the order live did. Per chunk: a few set-based loads, one fold in memory,
 * then one statement per table (orders: one per round of re-posts).
 */
export declare const commerceProjection: Projection<CommerceEventName>;
//# sourceMappingURL=commerce.projection.d.ts.map