import { createHash, randomBytes } from 'node:crypto';

/** Prefixes of every secret the service issues. The prefix tells what a token is for. */
export const TOKEN_PREFIX = {
  ingest_live: 'tk_live_',
  ingest_test: 'tk_test_',
  outbound: 'sk_live_',
  read_live: 'rk_live_',
  pixel: 'pk_',
  webhook_secret: 'whsec_',
  custom_integration: 'tile_',
  zero_party: 'zp_',
} as const;

export type TokenKind = keyof typeof TOKEN_PREFIX;

/** A new random token: the prefix plus 32 base62 characters (~190 bits). */
export function mintToken(kind: TokenKind): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const bytes = randomBytes(32);
  let body = '';
  for (const b of bytes) body += alphabet[b % 62];
  return TOKEN_PREFIX[kind] + body;
}

/** Tokens are stored as SHA-256 digests: a leaked table reveals no usable key. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** The part of a token safe to show in listings (prefix and four characters). */
export function displayPrefix(token: string): string {
  const kind = Object.values(TOKEN_PREFIX).find((p) => token.startsWith(p)) ?? '';
  return token.slice(0, kind.length + 4);
}
