import {
  addPixelOrigin,
  ControlPlaneError,
  createPixelKey,
  describeAccount,
  describePixelKey,
  listPixelKeys,
  MAX_PIXEL_ORIGINS,
  normalizeOrigin,
  removePixelOrigin,
  revokePixelKey,
  type PixelKeyListing,
} from '@holdfast/control-plane';
import type { Kysely } from 'kysely';
import type { Database } from '@holdfast/postgres';
import { accountOption, iso, table, uuid, when } from '../format.js';
import type { RegisterCommand } from './index.js';

function pixelJson(p: PixelKeyListing) {
  return {
    id: p.id,
    account_id: p.account_id,
    prefix: p.prefix,
    status: p.revoked_at ? 'revoked' : 'live',
    created_at: iso(p.created_at),
    revoked_at: iso(p.revoked_at),
    origins: p.origins,
  };
}

async function livePixelKey(db: Kysely<Database>, id: string): Promise<PixelKeyListing> {
  const k = await describePixelKey(db, id);
  if (k.revoked_at) throw new ControlPlaneError('not_found', `pixel key ${id} is revoked`);
  return k;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** `holdfast pixel ...`: pixel keys (pk_) and their origin allow-lists. */
export const registerPixel: RegisterCommand = (program, context) => {
  const pixel = program.command('pixel').description('pixel keys (pk_) and their allowed origins');

  pixel
    .command('create-key')
    .description('create a pixel key and print it (its origins are scheme://host only, at most 50)')
    .addOption(accountOption())
    .option(
      '--origin <origin>',
      'allowed browser origin, e.g. https://shop.example.com (repeatable)',
      collect,
      [],
    )
    .action(async (o: { account: string; origin: string[] }) => {
      const ctx = context();
      // Check every origin before creating anything, so a bad one leaves no half-made key behind.
      const origins = [...new Set(o.origin.map(normalizeOrigin))];
      if (origins.length > MAX_PIXEL_ORIGINS)
        throw new ControlPlaneError('limit', `a pixel key takes at most ${MAX_PIXEL_ORIGINS} origins`);
      const db = await ctx.db();
      const { id, key } = await createPixelKey(db, o.account, origins);
      ctx.out(
        { id, account_id: o.account, key, origins },
        `Created pixel key ${id} for ${o.account}\nKey (for the browser snippet): ${key}\n` +
          `Origins: ${origins.join(', ') || 'none yet: holdfast pixel add-origin ' + id + ' <origin>'}`,
      );
    });

  pixel
    .command('add-origin')
    .description('allow one more origin (scheme://host, no path) on a pixel key')
    .argument('<pixel-key-id>', 'pixel key id', uuid)
    .argument('<origin>', 'origin, e.g. https://shop.example.com')
    .action(async (id: string, origin: string) => {
      const ctx = context();
      const db = await ctx.db();
      await livePixelKey(db, id);
      const added = await addPixelOrigin(db, id, origin);
      const k = await describePixelKey(db, id);
      ctx.out({ id, origin: added, origins: k.origins }, `Pixel key ${id} now allows ${added}`);
    });

  pixel
    .command('remove-origin')
    .description('stop allowing an origin on a pixel key')
    .argument('<pixel-key-id>', 'pixel key id', uuid)
    .argument('<origin>', 'origin to remove')
    .action(async (id: string, origin: string) => {
      const ctx = context();
      const db = await ctx.db();
      const before = await describePixelKey(db, id);
      const o = normalizeOrigin(origin);
      if (!before.origins.includes(o))
        throw new ControlPlaneError('not_found', `pixel key ${id} does not allow ${o}`);
      await removePixelOrigin(db, id, o);
      const k = await describePixelKey(db, id);
      ctx.out({ id, origin: o, origins: k.origins }, `Pixel key ${id} no longer allows ${o}`);
    });

  pixel
    .command('list')
    .description('list the pixel keys of an account with their origins')
    .addOption(accountOption())
    .action(async (o: { account: string }) => {
      const ctx = context();
      const db = await ctx.db();
      await describeAccount(db, o.account);
      const rows = await listPixelKeys(db, o.account);
      ctx.out(rows.map(pixelJson), () =>
        rows.length
          ? table(
              ['ID', 'PREFIX', 'STATUS', 'CREATED', 'ORIGINS'],
              rows.map((p) => {
                const j = pixelJson(p);
                return [p.id, `${p.prefix}…`, j.status, when(p.created_at), p.origins.join(' ') || '-'];
              }),
            )
          : `No pixel keys yet: holdfast pixel create-key --account ${o.account} --origin <origin>`,
      );
    });

  pixel
    .command('revoke')
    .description('revoke a pixel key at once (its events get 403)')
    .argument('<pixel-key-id>', 'pixel key id', uuid)
    .action(async (id: string) => {
      const ctx = context();
      const db = await ctx.db();
      await livePixelKey(db, id);
      await revokePixelKey(db, id);
      const k = await describePixelKey(db, id);
      ctx.out(pixelJson(k), `Revoked pixel key ${id}`);
    });
};
