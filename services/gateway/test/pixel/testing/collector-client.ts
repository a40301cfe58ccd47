// Test support (not shipped behaviour): fixtures and a client for the collector tests.
import { randomUUID } from 'node:crypto';
import { createAccount, createPixelKey, markAccount } from '@holdfast/control-plane';
import type { TestEnv } from '@holdfast/testing';
import { call, type Answer } from '@holdfast/testing/services';

/** The allowed origin of the fixtures' pixel keys. */
export const SHOP = 'https://shop.example.com';

/** A valid pixel event with granted consent, occurring now; override what a test is about. */
export const pixelEvent = (o: Record<string, unknown> = {}) => ({
  event_id: randomUUID(),
  event_type: 'page_view',
  occurred_at: new Date().toISOString(),
  anonymous_id: 'anon-1',
  session_id: 'sess-1',
  url_path: '/products/tea',
  consent_state: 'granted',
  ...o,
});

/** A fresh account (demo when asked) with one pixel key allowing `origins`. */
export async function pixelKey(t: TestEnv, origins = [SHOP], { demo = false } = {}) {
  const { id: accountId } = await createAccount(t.db, { name: 'Shop' });
  if (demo) await markAccount(t.db, accountId, { isDemo: true });
  const k = await createPixelKey(t.db, accountId, origins);
  return { accountId, keyId: k.id, key: k.key };
}

export interface CollectOptions {
  /** The Origin header (default SHOP; null sends none). */
  readonly origin?: string | null;
  readonly ip?: string;
  readonly type?: string;
  /** Sent as is instead of JSON.stringify(body). */
  readonly raw?: string;
}

/** POST /pixel/collect as a browser on `origin` would send it. */
export function collect(base: string, body: unknown, o: CollectOptions = {}): Promise<Answer> {
  return call(base, 'POST', '/pixel/collect', {
    rawBody: o.raw ?? JSON.stringify(body),
    ip: o.ip ?? '203.0.113.1',
    headers: {
      'content-type': o.type ?? 'application/json',
      ...(o.origin === null ? {} : { origin: o.origin ?? SHOP }),
    },
  });
}

/** A row of read_models.pixel_events, as far as the tests read it. */
export type PixelRow = Record<
  'event_id' | 'event_type' | 'origin' | 'pixel_key_id' | 'anonymous_id',
  string
> & {
  readonly raw_props: unknown;
  readonly [column: string]: unknown;
};

/** The account's stored pixel events, oldest first. */
export async function storedPixelEvents(t: TestEnv, accountId: string): Promise<PixelRow[]> {
  const { rows } = await t.pool.query<PixelRow>(
    `select event_id, event_type, origin, pixel_key_id, anonymous_id, session_id, url_path, consent_state, raw_props
       from read_models.pixel_events where account_id = $1 order by occurred_at, event_id`,
    [accountId],
  );
  return rows;
}
