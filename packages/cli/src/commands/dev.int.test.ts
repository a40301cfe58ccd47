import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '@holdfast/control-plane';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import type { DevFixture } from '../fixture.js';
import { runCaptured } from '../testing/capture.js';

let t: TestEnv;
beforeAll(async () => (t = await createTestEnv('cli-dev')));
afterAll(() => t.close());

const KEYS = [
  'BASE_URL',
  'ACCOUNT_ID_A',
  'INGEST_KEY_A',
  'TILE_TOKEN_A',
  'ZERO_PARTY_TOKEN_A',
  'PIXEL_KEY_A',
  'PIXEL_ORIGIN_A',
  'REVOKED_KEY',
  'OUTBOUND_SK_KEY',
  'ACCOUNT_ID_B',
  'INGEST_KEY_B',
  'ACCOUNT_ID_C',
  'INGEST_KEY_C',
  'RATE_KEY',
];

const keyRow = (key: string) =>
  t.db
    .selectFrom('control.api_keys')
    .selectAll()
    .where('key_hash', '=', hashToken(key))
    .executeTakeFirstOrThrow();

describe('holdfast dev fixture', () => {
  it('prints exactly one JSON object of strings and nothing else on stdout', async () => {
    const r = await runCaptured(['dev', 'fixture', '--json'], {
      ...t.env,
      HOLDFAST_BASE_URL: 'http://127.0.0.1:18080',
    });
    expect(r.code).toBe(0);
    const f = r.json<DevFixture>();
    expect(Object.keys(f)).toEqual(KEYS);
    for (const v of Object.values(f)) expect(typeof v).toBe('string');
    expect(f.BASE_URL).toBe('http://127.0.0.1:18080');
    expect(f.PIXEL_ORIGIN_A).toBe('http://127.0.0.1:5173');
    expect(r.stdout.trim().startsWith('{') && r.stdout.trim().endsWith('}')).toBe(true);
  });

  it('builds the accounts the black-box suites rely on', async () => {
    const r = await runCaptured(
      [
        'dev',
        'fixture',
        '--json',
        '--base-url',
        'http://127.0.0.1:9999/',
        '--pixel-origin',
        'https://shop.test',
      ],
      t.env,
    );
    const f = r.json<DevFixture>();
    expect(f.BASE_URL).toBe('http://127.0.0.1:9999');
    expect(new Set([f.ACCOUNT_ID_A, f.ACCOUNT_ID_B, f.ACCOUNT_ID_C]).size).toBe(3);

    const a = await t.db
      .selectFrom('control.accounts')
      .selectAll()
      .where('id', '=', f.ACCOUNT_ID_A)
      .executeTakeFirstOrThrow();
    expect(a).toMatchObject({ storefront_domain: 'shop-a.example.com', is_demo: false, is_sandbox: false });
    expect(await keyRow(f.INGEST_KEY_A)).toMatchObject({
      account_id: f.ACCOUNT_ID_A,
      kind: 'ingest_live',
      revoked_at: null,
    });
    expect(await keyRow(f.REVOKED_KEY)).toMatchObject({
      account_id: f.ACCOUNT_ID_A,
      revoked_at: expect.any(Date),
    });
    expect(await keyRow(f.OUTBOUND_SK_KEY)).toMatchObject({ account_id: f.ACCOUNT_ID_A, kind: 'outbound' });
    expect(f.OUTBOUND_SK_KEY).toMatch(/^sk_live_/);
    expect(await keyRow(f.INGEST_KEY_B)).toMatchObject({ account_id: f.ACCOUNT_ID_B });
    expect(await keyRow(f.INGEST_KEY_C)).toMatchObject({ account_id: f.ACCOUNT_ID_C });
    const rate = await keyRow(f.RATE_KEY);
    expect([f.ACCOUNT_ID_A, f.ACCOUNT_ID_B, f.ACCOUNT_ID_C]).not.toContain(rate.account_id);

    const tiles = await t.db
      .selectFrom('control.tiles')
      .selectAll()
      .where('account_id', 'in', [f.ACCOUNT_ID_A, f.ACCOUNT_ID_C])
      .execute();
    expect(tiles.map((x) => [x.account_id, x.tile, x.first_call_at]).sort()).toEqual(
      [
        [f.ACCOUNT_ID_A, 'custom_integration', null],
        [f.ACCOUNT_ID_A, 'zero_party', null],
      ].sort(),
    );
    expect(
      tiles.find((x) => x.tile === 'custom_integration')!.token_hash.equals(hashToken(f.TILE_TOKEN_A)),
    ).toBe(true);
    expect(
      tiles.find((x) => x.tile === 'zero_party')!.token_hash.equals(hashToken(f.ZERO_PARTY_TOKEN_A)),
    ).toBe(true);

    const pixel = await t.db
      .selectFrom('control.pixel_keys')
      .selectAll()
      .where('key_hash', '=', hashToken(f.PIXEL_KEY_A))
      .executeTakeFirstOrThrow();
    expect(pixel.account_id).toBe(f.ACCOUNT_ID_A);
    const origins = await t.db
      .selectFrom('control.pixel_origins')
      .select('origin')
      .where('pixel_key_id', '=', pixel.id)
      .execute();
    expect(origins).toEqual([{ origin: 'https://shop.test' }]);
    expect(f.PIXEL_ORIGIN_A).toBe('https://shop.test');
  });

  it('prints KEY=value lines without --json', async () => {
    const r = await runCaptured(['dev', 'fixture'], t.env);
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('=')[0]),
    ).toEqual(KEYS);
  });
});
