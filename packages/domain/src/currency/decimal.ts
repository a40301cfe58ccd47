// Exact decimal arithmetic on BigInt, for money: the same digits PostgreSQL's numeric gives, so a
// converted amount computed here equals the one the read model's generated column stores.

/** A decimal number: `units × 10^-scale`. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/**
 * Parses a decimal text (`'12.5'`, `'-0.004'`, `'1e-7'`, what `String(number)` gives) exactly.
 * Throws on anything else.
 *
 * @example
 * parseDecimal('1.1684'); // { units: 11684n, scale: 4 }
 */
export function parseDecimal(text: string): Decimal {
  const m = DECIMAL.exec(text.trim());
  if (!m || (!m[2] && !m[3])) throw new Error(`not a decimal number: "${text}"`);
  const digits = `${m[2] ?? ''}${m[3] ?? ''}` || '0';
  let scale = (m[3] ?? '').length - Number(m[4] ?? 0);
  let units = BigInt(digits);
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units: m[1] === '-' ? -units : units, scale };
}

/** `a / b` rounded half away from zero (b > 0 or b < 0, never 0). */
function divRound(a: bigint, b: bigint): bigint {
  const negative = a < 0n !== b < 0n;
  const [x, y] = [a < 0n ? -a : a, b < 0n ? -b : b];
  const q = (x * 2n + y) / (y * 2n);
  return negative ? -q : q;
}

/**
 * `d` rounded half away from zero to `places` decimal places (PostgreSQL's `round(numeric, int)`).
 *
 * @example
 * formatDecimal(roundDecimal(parseDecimal('2.345'), 2)); // '2.35'
 */
export function roundDecimal(d: Decimal, places: number): Decimal {
  if (d.scale <= places) return { units: d.units * 10n ** BigInt(places - d.scale), scale: places };
  return { units: divRound(d.units, 10n ** BigInt(d.scale - places)), scale: places };
}

/** `a × b`, exact. */
export function multiplyDecimal(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

/** `a / b` rounded half away from zero to `places` decimal places. Throws when b is 0. */
export function divideDecimal(a: Decimal, b: Decimal, places: number): Decimal {
  if (b.units === 0n) throw new Error('division by zero');
  // a/b = (a.units / b.units) × 10^(b.scale − a.scale); scaled by 10^places.
  const shift = places + b.scale - a.scale;
  const num = shift >= 0 ? a.units * 10n ** BigInt(shift) : a.units;
  const den = shift >= 0 ? b.units : b.units * 10n ** BigInt(-shift);
  return { units: divRound(num, den), scale: places };
}

/**
 * The decimal as text with exactly its scale's digits after the point.
 *
 * @example
 * formatDecimal({ units: -5n, scale: 3 }); // '-0.005'
 */
export function formatDecimal(d: Decimal): string {
  const negative = d.units < 0n;
  const digits = (negative ? -d.units : d.units).toString().padStart(d.scale + 1, '0');
  const whole = digits.slice(0, digits.length - d.scale);
  const frac = d.scale ? `.${digits.slice(digits.length - d.scale)}` : '';
  return `${negative ? '-' : ''}${whole}${frac}`;
}
