import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@holdfast/control-plane';
import { silentLogger } from '@holdfast/platform';
import { anonymousSubject, blindIndex, loadPrivacyKeyring, PgSubjectKeyStore } from '@holdfast/privacy';
import { indexPerson, startPrivacyWorker, type PrivacyWorker } from '@holdfast/privacy-requests';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { runCaptured } from '../testing/capture.js';

let t: TestEnv;
let account: string;
let worker: PrivacyWorker | undefined;

beforeAll(async () => {
  t = await createTestEnv('cli-privacy');
  await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
  ({ id: account } = await createAccount(t.db, { name: 'shop' }));
});
afterAll(async () => {
  worker?.stop();
  await t?.close();
});

const cli = (...argv: string[]) => runCaptured(argv, t.env);

/** The projector's privacy worker, which runs what the CLI queues (once per file). */
function startWorker(): void {
  if (worker) return;
  const keyring = loadPrivacyKeyring(t.env);
  worker = startPrivacyWorker({
    pool: t.pool,
    schema: DEFAULT_READ_MODEL_SCHEMA,
    keys: new PgSubjectKeyStore(t.pool, keyring),
    keyring,
    logger: silentLogger,
    intervalMs: 100,
  });
}

/** A pixel event of `anonymousId` in the read model, with what the gateway seals (props, search, title). */
async function pixelEventOf(anonymousId: string): Promise<void> {
  await t.pool.query(
    `insert into read_models.pixel_events (account_id, event_id, pixel_key_id, origin, event_type, occurred_at,
       anonymous_id, session_id, raw_props, search, page_title, received_at)
     values ($1, $2, 'pk', 'https://shop.example.com', 'search', now(), $3, $3, $4, 'red tea', 'Hello Ann', now())`,
    [account, randomUUID(), anonymousId, JSON.stringify({ note: `${anonymousId}-note` })],
  );
}

describe('holdfast erase, erasures, export-person', () => {
  it('queues through the same function as the API: blind indexes only, idempotent, requested_by cli', async () => {
    const first = await cli(
      'erase',
      '--account',
      account,
      '--email',
      ' Ann@Example.com',
      '--external-id',
      'c-1',
      '--json',
    );
    expect(first.code).toBe(0);
    const e = first.json<{ erasure_id: string; status: string; created: boolean }>();
    expect(e).toMatchObject({ status: 'queued', created: true });
    const again = await cli(
      'erase',
      '--account',
      account,
      '--email',
      'ann@example.com',
      '--external-id',
      'c-1',
      '--json',
    );
    expect(again.json()).toMatchObject({ erasure_id: e.erasure_id, created: false });
    const { rows } = await t.pool.query('select * from privacy.erasure_requests where id = $1', [
      e.erasure_id,
    ]);
    const key = await new PgSubjectKeyStore(t.pool, loadPrivacyKeyring(t.env)).indexKey(account);
    const idx = indexPerson(key, { externalId: 'c-1', email: 'ann@example.com', phone: null });
    expect(rows[0]).toMatchObject({
      requested_by: 'cli',
      external_id_index: idx.externalId,
      email_index: idx.email,
      phone_index: null,
    });
    expect(JSON.stringify(rows[0])).not.toContain('ann@example.com');
  });

  it('refuses a person without an identifier or with a bad email (usage error, exit 2)', async () => {
    const none = await cli('erase', '--account', account);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('at least one of external_id, email or phone is required');
    const bad = await cli('erase', '--account', account, '--email', 'nope');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('email: Value error, not a valid email address');
  });

  it('--wait returns once the worker ran it; list and show read it back', async () => {
    startWorker();
    const r = await cli(
      'erase',
      '--account',
      account,
      '--phone',
      '(415) 555-0100',
      '--suppress',
      '--wait',
      '--json',
    );
    expect(r.code).toBe(0);
    const done = r.json<{ erasure_id: string; status: string; counters: Record<string, number> }>();
    expect(done).toMatchObject({
      status: 'done',
      suppress: true,
      counters: { customers: 0, orders: 0, subjects: 1, keys_destroyed: 0, suppressions: 1 },
    });
    const list = (await cli('erasures', 'list', '--account', account, '--json')).json<
      { erasure_id: string }[]
    >();
    expect(list.map((x) => x.erasure_id)).toContain(done.erasure_id);
    const show = await cli('erasures', 'show', done.erasure_id, '--account', account);
    expect(show.stdout).toMatch(
      new RegExp(`^Erasure ${done.erasure_id}: done \\(suppress\\) customers=0 orders=0`),
    );
  });

  it('--anonymous-id erases a browser: its pixel events are blanked and its key is gone, other browsers keep theirs', async () => {
    startWorker();
    const store = new PgSubjectKeyStore(t.pool, loadPrivacyKeyring(t.env));
    const indexKey = await store.indexKey(account);
    const subject = (id: string) => anonymousSubject(blindIndex(indexKey, 'anonymous_id', id));
    // The keys the gateway made for both browsers when it sealed their events.
    await store.dataKeys(account, [subject('anon-cli-1'), subject('anon-cli-2')], { create: true });
    await pixelEventOf('anon-cli-1');
    await pixelEventOf('anon-cli-2');

    const r = await cli('erase', '--account', account, '--anonymous-id', 'anon-cli-1', '--wait', '--json');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.json()).toMatchObject({
      status: 'done',
      suppress: false,
      created: true,
      counters: { customers: 0, subjects: 1, keys_destroyed: 1, rows_blanked: 1, suppressions: 0 },
    });
    const { rows } = await t.pool.query(
      `select anonymous_id, raw_props, search, page_title from read_models.pixel_events
        where account_id = $1 and anonymous_id like 'anon-cli-%' order by anonymous_id`,
      [account],
    );
    expect(rows).toEqual([
      { anonymous_id: 'anon-cli-1', raw_props: null, search: null, page_title: null },
      {
        anonymous_id: 'anon-cli-2',
        raw_props: { note: 'anon-cli-2-note' },
        search: 'red tea',
        page_title: 'Hello Ann',
      },
    ]);
    // What the log holds of anon-cli-1 was sealed under this key: nothing can open it any more.
    const left = await store.dataKeys(account, [subject('anon-cli-1'), subject('anon-cli-2')], {
      create: false,
    });
    expect([...left.keys()]).toEqual([subject('anon-cli-2')]);
    // Only the index is stored with the request.
    const { rows: stored } = await t.pool.query<{ row: string }>(
      'select e::text as row from privacy.erasure_requests e where anonymous_id_index is not null',
    );
    expect(stored.map((x) => x.row.includes('anon-cli-1'))).toEqual([false]);
  });

  it('--anonymous-id with --suppress suppresses the browser; export-person has no --anonymous-id', async () => {
    startWorker();
    const r = await cli(
      'erase',
      '--account',
      account,
      '--anonymous-id',
      'anon-cli-3',
      '--suppress',
      '--wait',
      '--json',
    );
    expect(r.code).toBe(0);
    const done = r.json<{ erasure_id: string }>();
    expect(done).toMatchObject({ status: 'done', suppress: true, counters: { suppressions: 1 } });
    const { rows } = await t.pool.query<{ kind: string; identifier_index: string }>(
      'select kind, identifier_index from privacy.suppressions where erasure_id = $1',
      [done.erasure_id],
    );
    const indexKey = await new PgSubjectKeyStore(t.pool, loadPrivacyKeyring(t.env)).indexKey(account);
    expect(rows).toEqual([
      { kind: 'anonymous_id', identifier_index: blindIndex(indexKey, 'anonymous_id', 'anon-cli-3') },
    ]);
    const exp = await cli('export-person', '--account', account, '--anonymous-id', 'anon-cli-3');
    expect(exp.code).toBe(2);
    expect(exp.stderr).toContain("unknown option '--anonymous-id'");
  });

  it('export-person waits for the document and writes it (mode 600)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hf-export-'));
    const out = join(dir, 'person.json');
    const r = await cli('export-person', '--account', account, '--external-id', 'nobody', '--out', out);
    expect(r.code).toBe(0);
    const doc = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    expect(doc).toMatchObject({ account_id: account, customer_ids: [], orders: [], profile: [] });
    expect((await stat(out)).mode & 0o777).toBe(0o600);
  });
});

describe('holdfast privacy rewrap (KEK rotation)', () => {
  it('given keys under the old KEK and a ring new-first, then every key is wrapped under the new one, the same key, and opens with the new KEK alone', async () => {
    const kek = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
    const [oldKek, newKek] = [kek('rot-old'), kek('rot-new')];
    const acc = randomUUID();
    const under = (ring: string) =>
      new PgSubjectKeyStore(t.pool, loadPrivacyKeyring({ HOLDFAST_PRIVACY_KEYS: ring }));
    const before = under(oldKek);
    const index = await before.indexKey(acc);
    const data = await before.dataKeys(acc, ['x:a', 'e:b'], { create: true });

    const r = await runCaptured(['privacy', 'rewrap', '--batch', '1', '--json'], {
      ...t.env,
      HOLDFAST_PRIVACY_KEYS: `${newKek},${oldKek},${t.env.HOLDFAST_PRIVACY_KEYS}`,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = r.json<{ current_kek: string; rewrapped: number; keys_under_other_keks: number }>();
    expect(out).toMatchObject({ current_kek: 'rot-new', keys_under_other_keks: 0 });
    expect(out.rewrapped).toBeGreaterThanOrEqual(3);

    const after = under(newKek);
    expect(await after.indexKey(acc)).toEqual(index);
    expect(await after.dataKeys(acc, ['x:a', 'e:b'], { create: false })).toEqual(data);
    await expect(under(oldKek).dataKeys(acc, ['x:a'], { create: false })).rejects.toThrow(
      /no master key "rot-new"/,
    );
    const again = await runCaptured(['privacy', 'rewrap'], { ...t.env, HOLDFAST_PRIVACY_KEYS: newKek });
    expect(again.stdout).toMatch(
      /^Rewrapped 0 keys under KEK "rot-new"; 0 under other KEKs: the older KEKs can leave the ring/,
    );
  });
});
