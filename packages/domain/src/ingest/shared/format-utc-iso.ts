const MS_PER_DAY = 86_400_000;
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/**
 * `new Date(ms).toISOString()`, byte for byte, for years 0000..9999, without allocating a Date.
 * Why: `toISOString` costs ~1.5 µs, which made timestamp parsing the largest cost of classifying an
 * order row. Calendar from days: H. Hinnant's `civil_from_days` (proleptic Gregorian, as ECMAScript).
 * Years outside 0000..9999 (six-digit ISO form) fall back to `toISOString`.
 *
 * @example
 * formatUtcIso(0); // '1970-01-01T00:00:00.000Z'
 */
export function formatUtcIso(ms: number): string {
  const days = Math.floor(ms / MS_PER_DAY);
  let rest = ms - days * MS_PER_DAY;
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  const second = Math.floor(rest / 1000);
  const millis = rest - second * 1000;

  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 0 || year > 9999) return new Date(ms).toISOString();
  const yyyy = year >= 1000 ? String(year) : String(year).padStart(4, '0');
  return `${yyyy}-${TWO_DIGITS[month]!}-${TWO_DIGITS[day]!}T${TWO_DIGITS[hour]!}:${TWO_DIGITS[minute]!}:${TWO_DIGITS[second]!}.${THREE_DIGITS[millis]!}Z`;
}
