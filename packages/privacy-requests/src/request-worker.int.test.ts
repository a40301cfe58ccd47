import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '@holdfast/platform';
import { loadPrivacyKeyring, PgSubjectKeyStore } from '@holdfast/privacy';
import { DEFAULT_READ_MODEL_SCHEMA, ensureReadModelSchema } from '@holdfast/read-models';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { findErasure, queueErasure } from './erasure-requests.js';
import { findExport, queueExport } from './export-requests.js';
import { startPrivacyWorker, type PrivacyWorker } from './request-worker.js';
import { EXPORT_TTL_MS } from './request-status.js';

// The worker's failure rules and the export expiry, on the real database.
let t: TestEnv;
let keys: PgSubjectKeyStore;
const workers: PrivacyWorker[] = [];
const account = randomUUID();
const person = (email: string) => ({
  identifiers: { externalId: null, email, phone: null },
  suppress: false,
});

beforeAll(async () => {
  t = await createTestEnv('privacy-worker');
  await ensureReadModelSchema(t.pool, DEFAULT_READ_MODEL_SCHEMA);
  keys = new PgSubjectKeyStore(t.pool, loadPrivacyKeyring(t.env));
});
afterAll(async () => {
  for (const w of workers) w.stop();
  await t?.close();
});

/** A worker whose key destruction fails with `error` (a stand-in for a failing key store). */
function workerFailingWith(error: Error): PrivacyWorker {
  const w = startPrivacyWorker({
    pool: t.pool,
    schema: DEFAULT_READ_MODEL_SCHEMA,
    keys: { indexKey: (a) => keys.indexKey(a), destroy: () => Promise.reject(error) },
    keyring: loadPrivacyKeyring(t.env),
    logger: silentLogger,
    intervalMs: 3_600_000,
  });
  workers.push(w);
  return w;
}

describe('the privacy worker', () => {
  it('retries a retriable failure up to 3 attempts, then fails with the reason', async () => {
    const w = workerFailingWith(Object.assign(new Error('connection reset by peer'), { code: 'ECONNRESET' }));
    await w.runOnce(); // the pass started with the worker
    const { erasure } = await queueErasure(t.pool, keys, {
      accountId: account,
      request: person('retry@example.com'),
      requestedBy: 'cli',
      now: new Date(),
    });
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      await w.runOnce();
      const e = (await findErasure(t.pool, account, erasure.id))!;
      seen.push(e.status);
    }
    expect(seen).toEqual(['queued', 'queued', 'failed']);
    const failed = (await findErasure(t.pool, account, erasure.id))!;
    expect(failed.reason).toBe('connection reset by peer');
    const { rows } = await t.pool.query<{ attempts: number }>(
      'select attempts from privacy.erasure_requests where id = $1',
      [erasure.id],
    );
    expect(rows[0]!.attempts).toBe(3);
  });

  it('fails a permanent failure at once', async () => {
    const w = workerFailingWith(new TypeError('x is not a function'));
    await w.runOnce();
    const { erasure } = await queueErasure(t.pool, keys, {
      accountId: account,
      request: person('bug@example.com'),
      requestedBy: 'cli',
      now: new Date(),
    });
    await w.runOnce();
    expect(await findErasure(t.pool, account, erasure.id)).toMatchObject({
      status: 'failed',
      reason: 'x is not a function',
    });
  });

  it('deletes an export and its document once expired (7 days after the request)', async () => {
    const w = startPrivacyWorker({
      pool: t.pool,
      schema: DEFAULT_READ_MODEL_SCHEMA,
      keys,
      keyring: loadPrivacyKeyring(t.env),
      logger: silentLogger,
      intervalMs: 3_600_000,
    });
    workers.push(w);
    await w.runOnce();
    const now = Date.now();
    const fresh = await queueExport(t.pool, keys, {
      accountId: account,
      request: person('fresh@example.com'),
      requestedBy: 'cli',
      now: new Date(now),
    });
    const old = await queueExport(t.pool, keys, {
      accountId: account,
      request: person('old@example.com'),
      requestedBy: 'cli',
      now: new Date(now - EXPORT_TTL_MS - 1000),
    });
    await w.runOnce();
    expect(await findExport(t.pool, account, fresh.export.id, new Date())).toMatchObject({ status: 'done' });
    const { rows } = await t.pool.query('select id from privacy.person_exports where id = $1', [
      old.export.id,
    ]);
    expect(rows).toEqual([]);
  });
});

describe('the worker on a database without the control-plane migrations', () => {
  it('given no schema privacy, then it says so once (not every pass), and starts working once it is migrated', async () => {
    const bare = await createTestEnv('privacy-worker-bare');
    try {
      // As before `holdfast migrate` ran: the schema is not there (moved aside, put back below).
      await bare.pool.query('alter schema privacy rename to privacy_not_yet');
      const lines: { level: string; event: string; context?: Record<string, unknown> }[] = [];
      const at = (level: string) => (event: string, context?: Record<string, unknown>) =>
        void lines.push({ level, event, context });
      const logger: Logger = {
        debug: at('debug'),
        info: at('info'),
        warn: at('warn'),
        error: at('error'),
        child: () => logger,
      };
      const w = startPrivacyWorker({
        pool: bare.pool,
        schema: DEFAULT_READ_MODEL_SCHEMA,
        keys: new PgSubjectKeyStore(bare.pool, loadPrivacyKeyring(bare.env)),
        keyring: loadPrivacyKeyring(bare.env),
        logger,
        intervalMs: 3_600_000,
      });
      workers.push(w);
      for (let i = 0; i < 3; i++) expect(await w.runOnce()).toBe(0);
      expect(lines.map((l) => `${l.level} ${l.event}`)).toEqual(['warn privacy_worker_awaiting_migrations']);
      expect(lines[0]!.context).toMatchObject({ hint: expect.stringContaining('holdfast migrate') });

      await bare.pool.query('alter schema privacy_not_yet rename to privacy');
      await w.runOnce();
      expect(lines.map((l) => `${l.level} ${l.event}`)).toEqual([
        'warn privacy_worker_awaiting_migrations',
        'info privacy_worker_migrations_present',
      ]);
    } finally {
      await bare.close();
    }
  });
});
