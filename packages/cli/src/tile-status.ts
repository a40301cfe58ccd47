// The tiles' states live in @holdfast/db, where the console reads them too.
export { TILES, tileState, type TileState } from '@holdfast/db';
