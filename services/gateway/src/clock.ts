/** Where the gateway reads the time (injected, so tests can move windows and throttles). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
