import type { ChunkLookahead, ProjectedEvent } from '../../projection.js';
import { AccountIds, CommerceChunk, type CommerceEventName } from './commerce-chunk.js';
import { openCommerceCached, type CommerceKeys } from './open-commerce.js';
import type { IdentitySource } from './identity-memory.js';

const NONE: ReadonlySet<string> = new Set();

/**
 * Folds the next chunk into the identity memory while the current chunk's COPY runs (the runner's
 * lookahead), when it can be folded from memory alone: every account resident, no dedup keys to look
 * up. The commerce projection's `apply` takes the fold if it is given exactly those events at the
 * position the current chunk commits (PartitionMemory.preparedFits), and folds afresh otherwise.
 */
export class CommerceLookahead implements ChunkLookahead<CommerceEventName> {
  constructor(
    private readonly identities: IdentitySource,
    private readonly keys: CommerceKeys,
  ) {}

  prepare(events: readonly ProjectedEvent<CommerceEventName>[], schema: string, partition: number): void {
    const mem = this.identities.pending(schema, partition);
    if (!mem || mem.prepared || !events.length) return;
    const accounts = new AccountIds();
    for (const e of events) {
      if (e.type !== 'OrderUpserted' && e.type !== 'CustomerUpserted') return;
      if (!mem.isResident(accounts.of(e.value.metadata))) return;
    }
    // Personal data from cached keys only; a key not cached (or the cache not made yet): apply opens.
    const cache = this.keys.cache;
    const opened = cache && openCommerceCached(cache, events);
    if (!opened) return;
    const chunk = new CommerceChunk({
      identities: mem.index,
      storedEventKeys: NONE,
      storedSubmissionKeys: NONE,
    });
    try {
      for (const e of opened) chunk.add(e);
    } catch {
      // A record the fold refuses (poison) left the memory half changed: apply will start afresh.
      this.identities.drop(schema, partition);
      return;
    }
    mem.prepared = { first: events[0]!.offset, last: events.at(-1)!.offset, count: events.length, chunk };
  }

  committed(schema: string, partition: number, position: string): void {
    this.identities.committed(schema, partition, position);
  }
}
