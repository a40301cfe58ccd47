/**
 * Where to go after signing in: only a path of this console (`/accounts/...`), never another site.
 * Anything else — an absolute URL, `//host`, a backslash trick, a scheme, control characters — is
 * the home page. Pure: the open-redirect defence in one place.
 *
 * @example
 * safeNext('/accounts/1b2c/keys'); // '/accounts/1b2c/keys'
 * safeNext('//evil.example/'); // '/'
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length > 512) return '/';
  if (!/^\/[A-Za-z0-9\-._~/]*(?:\?[A-Za-z0-9\-._~=&%]*)?$/.test(next)) return '/';
  if (next.startsWith('//') || next.includes('/..') || next.includes('/./')) return '/';
  return next;
}
