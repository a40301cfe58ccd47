import type { PixelDrop } from '@holdfast/domain';

/**
 * The answer of `POST /pixel/collect?dry_run=true` (not a spec mode: the spec's collector answers
 * 204 and defines no dry run): what the real call would store and drop, each dropped event with its
 * code (`too_old`, `too_new`, `no_consent`, `suppressed_browser`), shaped like the orders dry run.
 * A request holds at most 50 events, so the list is never truncated.
 *
 * @example
 * pixelDryRunResponse(3, 2, [{ index: 1, event_id: 'e-2', code: 'suppressed_browser' }]);
 * // { dry_run: true, received: 3, would_accept: 2, would_drop: 1, errors: [{ index: 1, event_id: 'e-2', codes: ['suppressed_browser'] }], next: '…' }
 */
export function pixelDryRunResponse(received: number, wouldAccept: number, drops: readonly PixelDrop[]) {
  return {
    dry_run: true as const,
    received,
    would_accept: wouldAccept,
    would_drop: drops.length,
    errors: drops.map((d) => ({ index: d.index, event_id: d.event_id, codes: [d.code] })),
    next: 'Nothing was stored: POST again without dry_run (the snippet never sends it).',
  };
}
