/** A linear scale: maps the domain [d0, d1] onto the range [r0, r1]. */
export function linearScale(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const span = d1 - d0;
  return (v) => (span === 0 ? r0 : r0 + ((v - d0) / span) * (r1 - r0));
}

/**
 * Round tick values covering [min, max]: steps of 1, 2 or 5 times a power of ten, about `count` of
 * them, the first at or below `min` and the last at or above `max`. A flat or empty domain still gets
 * an axis (0 to 1 around the value).
 *
 * @example
 * niceTicks(0, 87); // [0, 20, 40, 60, 80, 100]
 */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (min === max) return min === 0 ? [0, 1] : niceTicks(Math.min(0, min), Math.max(0, max), count);
  const raw = (max - min) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const first = Math.floor(min / step) * step;
  const ticks: number[] = [];
  for (let v = first; v < max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1]! < max) ticks.push(Number((first + ticks.length * step).toPrecision(12)));
  return ticks;
}

/** The domain [lowest tick, highest tick] of values that always includes 0 (bars and areas start at 0). */
export function zeroBasedTicks(values: readonly number[], count = 5): number[] {
  const finite = values.filter(Number.isFinite);
  return niceTicks(Math.min(0, ...finite), Math.max(0, ...finite), count);
}
