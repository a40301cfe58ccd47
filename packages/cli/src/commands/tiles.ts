import { Argument } from 'commander';
import {
  connectTile,
  ControlPlaneError,
  describeAccount,
  disconnectTile,
  listTiles,
} from '@holdfast/control-plane';
import type { TileName } from '@holdfast/postgres';
import { accountOption, iso, table, when } from '../format.js';
import { TILES, tileState } from '../tile-status.js';
import type { RegisterCommand } from './index.js';

function tileArgument(): Argument {
  return new Argument('<tile>', 'custom-integration or zero-party').choices(Object.keys(TILES));
}

const USE: Readonly<Record<TileName, string>> = {
  custom_integration: 'legacy token for /ingest/* and POST /webhooks/custom-api (query account_id + token)',
  zero_party: 'for POST /webhooks/zero-party?account_id=<id>&token=<token>',
};

/** `holdfast tiles ...`: connect and disconnect the custom-integration and zero-party tiles. */
export const registerTiles: RegisterCommand = (program, context) => {
  const tiles = program.command('tiles').description('integration tiles: custom integration and zero-party');

  tiles
    .command('connect')
    .description('connect a tile and print its token, once')
    .addArgument(tileArgument())
    .addOption(accountOption())
    .option(
      '--reissue',
      'replace the token of a tile that is already connected (the old token stops working)',
    )
    .action(async (name: string, o: { account: string; reissue?: boolean }) => {
      const ctx = context();
      const tile = TILES[name]!;
      const db = await ctx.db();
      await describeAccount(db, o.account);
      const before = (await listTiles(db, o.account)).find((t) => t.tile === tile);
      if (tileState(tile, before) !== 'not connected' && !o.reissue)
        throw new ControlPlaneError(
          'conflict',
          `the ${name} tile of ${o.account} is already connected; pass --reissue to replace its token`,
        );
      const { token } = await connectTile(db, o.account, tile);
      const after = (await listTiles(db, o.account)).find((t) => t.tile === tile);
      const status = tileState(tile, after);
      ctx.out(
        { account_id: o.account, tile: name, status, token },
        `Connected ${name} for ${o.account} (${status})\n` + `Token (shown once, ${USE[tile]}):\n${token}`,
      );
    });

  tiles
    .command('disconnect')
    .description('disconnect a tile: its token stops working and its webhook answers 404')
    .addArgument(tileArgument())
    .addOption(accountOption())
    .action(async (name: string, o: { account: string }) => {
      const ctx = context();
      const tile = TILES[name]!;
      const db = await ctx.db();
      await describeAccount(db, o.account);
      const row = (await listTiles(db, o.account)).find((t) => t.tile === tile);
      if (tileState(tile, row) === 'not connected')
        throw new ControlPlaneError('not_found', `the ${name} tile of ${o.account} is not connected`);
      await disconnectTile(db, o.account, tile);
      ctx.out(
        { account_id: o.account, tile: name, status: 'not connected' },
        `Disconnected ${name} for ${o.account}`,
      );
    });

  tiles
    .command('status')
    .description('show each tile: not connected, awaiting setup (no custom-api call yet) or connected')
    .addOption(accountOption())
    .action(async (o: { account: string }) => {
      const ctx = context();
      const db = await ctx.db();
      await describeAccount(db, o.account);
      const rows = await listTiles(db, o.account);
      const out = Object.entries(TILES).map(([name, tile]) => {
        const row = rows.find((t) => t.tile === tile);
        const status = tileState(tile, row);
        return {
          tile: name,
          status,
          token_prefix: status === 'not connected' ? null : (row?.token_prefix ?? null),
          connected_at: status === 'not connected' ? null : iso(row?.connected_at),
          first_call_at: iso(row?.first_call_at),
        };
      });
      ctx.out(out, () =>
        table(
          ['TILE', 'STATUS', 'TOKEN', 'CONNECTED', 'FIRST CALL'],
          out.map((t) => [
            t.tile,
            t.status,
            t.token_prefix ? `${t.token_prefix}…` : '-',
            when(t.connected_at),
            when(t.first_call_at),
          ]),
        ),
      );
    });
};
