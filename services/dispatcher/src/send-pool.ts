/**
 * Which claimed deliveries start now and which are released unsent (to be claimed again later), so
 * that no subscription has more than `cap` deliveries in flight: a slow receiver then holds at most
 * `cap` of the pool's slots and every other subscription's deliveries keep going out beside it.
 * Released deliveries keep their order; claimed order is kept among those started.
 */
export function admitClaimed<T extends { readonly subscriptionId: string }>(
  claimed: readonly T[],
  inFlight: ReadonlyMap<string, number>,
  cap: number,
): { start: T[]; release: T[] } {
  const taken = new Map<string, number>();
  const start: T[] = [];
  const release: T[] = [];
  for (const d of claimed) {
    const n = (inFlight.get(d.subscriptionId) ?? 0) + (taken.get(d.subscriptionId) ?? 0);
    if (n < cap) {
      start.push(d);
      taken.set(d.subscriptionId, (taken.get(d.subscriptionId) ?? 0) + 1);
    } else release.push(d);
  }
  return { start, release };
}

/** The subscriptions at their in-flight cap: the next claim leaves their deliveries alone. */
export function saturatedSubscriptions(inFlight: ReadonlyMap<string, number>, cap: number): string[] {
  return [...inFlight].filter(([, n]) => n >= cap).map(([id]) => id);
}
