import type { TileName } from '@holdfast/postgres';

/** How a tile reads in the console. */
export type TileState = 'not connected' | 'awaiting setup' | 'connected';

/** The tiles, with the names the CLI takes on the command line. */
export const TILES: Readonly<Record<string, TileName>> = {
  'custom-integration': 'custom_integration',
  'zero-party': 'zero_party',
};

/**
 * A tile's state. The custom integration reads "awaiting setup" until its first POST /webhooks/custom-api
 * (spec, general rule 12): ingest calls alone do not change it.
 */
export function tileState(
  tile: TileName,
  row: { readonly disconnected_at: unknown; readonly first_call_at: unknown } | undefined,
): TileState {
  if (!row || row.disconnected_at) return 'not connected';
  if (tile === 'custom_integration' && !row.first_call_at) return 'awaiting setup';
  return 'connected';
}
