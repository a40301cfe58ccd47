// The tiles' states live in @holdfast/control-plane, where the console reads them too.
export { TILES, tileState, type TileState } from '@holdfast/control-plane';
