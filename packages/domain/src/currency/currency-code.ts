// The one rule for a reporting currency typed by a person (the CLI's `accounts set-currency`, and the
// console when it changes it): whether the code is also quoted by stored rates is the caller's check,
// since it needs the database.
const CODE = /^[A-Z]{3}$/;

/**
 * The ISO 4217-shaped code of `input` (trimmed, upper-cased), or undefined when it is not three
 * letters. Why not a fixed ISO list: what a reporting currency may be is EUR or what the imported
 * reference rates quote, and those are checked against the database.
 *
 * @example
 * currencyCode(' eur '); // 'EUR'
 * currencyCode('EURO');  // undefined
 */
export function currencyCode(input: string): string | undefined {
  const code = input.trim().toUpperCase();
  return CODE.test(code) ? code : undefined;
}
