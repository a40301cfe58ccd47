/** What a presented token is, judged by its prefix alone (no lookup). */
export type KeyKind =
  'ingest_live' | 'ingest_test' | 'outbound' | 'read_live' | 'pixel' | 'webhook_secret' | 'unknown';

const PREFIXES: readonly (readonly [string, KeyKind])[] = [
  ['tk_live_', 'ingest_live'],
  ['tk_test_', 'ingest_test'],
  ['sk_live_', 'outbound'],
  ['rk_live_', 'read_live'],
  ['pk_', 'pixel'],
  ['whsec_', 'webhook_secret'],
];

/**
 * Classifies a token by prefix: tk_live_ (ingest, live), tk_test_ (ingest, sandbox workspace),
 * sk_live_ (outbound webhook subscriptions: never authorises ingest), rk_live_ (read key: the /v1/
 * read routes, never a write), pk_ (pixel), whsec_ (webhook
 * signing secret). A bare prefix with nothing after it, or any other token, is 'unknown'.
 *
 * @example
 * keyKind('tk_live_abc'); // 'ingest_live'
 * keyKind('sk_live_abc'); // 'outbound'
 */
export function keyKind(token: string): KeyKind {
  for (const [prefix, kind] of PREFIXES)
    if (token.length > prefix.length && token.startsWith(prefix)) return kind;
  return 'unknown';
}
