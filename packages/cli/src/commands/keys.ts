import { Option } from 'commander';
import {
  describeAccount,
  describeApiKey,
  listApiKeys,
  mintApiKey,
  revokeApiKey,
  rotateApiKey,
  type ApiKeyListing,
} from '@holdfast/control-plane';
import type { ApiKeyKind } from '@holdfast/postgres';
import { accountOption, iso, parseDuration, table, uuid, when } from '../format.js';
import type { RegisterCommand } from './index.js';

const KINDS: Readonly<Record<string, ApiKeyKind>> = {
  live: 'ingest_live',
  test: 'ingest_test',
  outbound: 'outbound',
  read: 'read_live',
};
const KIND_NAMES: Readonly<Record<ApiKeyKind, string>> = {
  ingest_live: 'live',
  ingest_test: 'test',
  outbound: 'outbound',
  read_live: 'read',
};

function keyJson(k: ApiKeyListing) {
  return {
    id: k.id,
    kind: KIND_NAMES[k.kind],
    prefix: k.prefix,
    status: k.status,
    created_at: iso(k.created_at),
    last_used_at: iso(k.last_used_at),
    expires_at: iso(k.expires_at),
    revoked_at: iso(k.revoked_at),
  };
}

const ONCE = 'shown once: store it now, it cannot be displayed again';

/** `holdfast keys ...`: mint, list, rotate, revoke ingest (tk_live_/tk_test_), read (rk_live_) and outbound (sk_live_) keys. */
export const registerKeys: RegisterCommand = (program, context) => {
  const keys = program
    .command('keys')
    .description('ingest keys (tk_live_, tk_test_), read keys (rk_live_) and outbound keys (sk_live_)');

  keys
    .command('mint')
    .description('mint a key, printed once (at most 10 live ingest keys and 10 live read keys per account)')
    .addOption(accountOption())
    .addOption(
      new Option(
        '--kind <kind>',
        'live (tk_live_), test (tk_test_, sandbox accounts), outbound (sk_live_) or read (rk_live_: the /v1/ read routes only)',
      )
        .choices(Object.keys(KINDS))
        .default('live'),
    )
    .action(async (o: { account: string; kind: string }) => {
      const ctx = context();
      const minted = await mintApiKey(await ctx.db(), o.account, KINDS[o.kind]!);
      ctx.out(
        { id: minted.id, account_id: o.account, kind: o.kind, prefix: minted.prefix, key: minted.key },
        `Minted ${o.kind} key ${minted.id} for account ${o.account}\nKey (${ONCE}):\n${minted.key}`,
      );
    });

  keys
    .command('list')
    .description(
      'list the keys of an account: prefix, created, last used, status (live, revoked, expiring, expired)',
    )
    .addOption(accountOption())
    .action(async (o: { account: string }) => {
      const ctx = context();
      const db = await ctx.db();
      await describeAccount(db, o.account);
      const rows = await listApiKeys(db, o.account);
      ctx.out(rows.map(keyJson), () =>
        rows.length
          ? table(
              ['ID', 'KIND', 'PREFIX', 'CREATED', 'LAST USED', 'STATUS'],
              rows.map((k) => [
                k.id,
                KIND_NAMES[k.kind],
                `${k.prefix}…`,
                when(k.created_at),
                when(k.last_used_at),
                k.status === 'expiring' ? `expiring ${when(k.expires_at)}` : k.status,
              ]),
            )
          : `No keys yet: holdfast keys mint --account ${o.account}`,
      );
    });

  keys
    .command('rotate')
    .description('mint a replacement key; the old one keeps working for the grace window')
    .argument('<key-id>', 'id of the key to rotate', uuid)
    .addOption(
      new Option('--grace <duration>', 'how long the old key keeps working (90s, 15m, 24h, 7d)')
        .argParser(parseDuration)
        .default(86_400, '24h'),
    )
    .action(async (keyId: string, o: { grace: number }) => {
      const ctx = context();
      const graceSeconds = o.grace;
      const db = await ctx.db();
      // Every check (working key, not rotated yet, room under the live-key limit) is made in the
      // rotation's own transaction: a check here would race another operator.
      const r = await rotateApiKey(db, keyId, graceSeconds);
      const old = await describeApiKey(db, r.id);
      ctx.out(
        {
          old_key_id: keyId,
          old_key_expires_at: iso(r.oldKeyExpiresAt),
          id: r.id,
          kind: KIND_NAMES[old.kind],
          prefix: r.prefix,
          key: r.key,
        },
        `Rotated ${keyId}: it keeps working until ${when(r.oldKeyExpiresAt)}\n` +
          `New key ${r.id} (${ONCE}):\n${r.key}`,
      );
    });

  keys
    .command('revoke')
    .description('revoke a key at once (running gateways refuse it within a second)')
    .argument('<key-id>', 'id of the key to revoke', uuid)
    .action(async (keyId: string) => {
      const ctx = context();
      const db = await ctx.db();
      await revokeApiKey(db, keyId);
      const k = await describeApiKey(db, keyId);
      ctx.out({ id: keyId, status: k.status, revoked_at: iso(k.revoked_at) }, `Revoked key ${keyId}`);
    });
};
