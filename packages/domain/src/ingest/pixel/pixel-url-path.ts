// An address in a path, `@` or its percent-encoding (`/account/ann%40example.com`).
const EMAIL_IN_PATH = /[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/gi;
// A phone in international form (+ and 7 digits or more, separators allowed). Bare digit runs stay:
// product, order and collection ids in paths are digits, and scrubbing them would break analytics.
const PHONE_IN_PATH = /(?:\+|%2B)\d(?:[\d.()-]|%20){5,}\d/gi;

/**
 * The `url_path` of a pixel event as it is stored in clear (log and read model): the query string
 * and the fragment cut off (they carry tokens, emails, search terms, utm values: what a site puts
 * there is not a path), then any email address → `[email]` and any international phone number →
 * `[phone]`. Digit runs stay (ids). The path stays in clear because analytics group by it; what could
 * name a person is removed before it is ever written (docs/privacy.md, "Pixel events").
 *
 * @example
 * pixelUrlPath('/account/ann@example.com/orders?token=abc#top'); // '/account/[email]/orders'
 */
export function pixelUrlPath(raw: string | null | undefined): string | null {
  if (raw == null) return null;
  const cut = raw.search(/[?#]/);
  const path = cut < 0 ? raw : raw.slice(0, cut);
  return path.replace(EMAIL_IN_PATH, '[email]').replace(PHONE_IN_PATH, '[phone]');
}
