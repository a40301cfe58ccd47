/**
 * The column list of a hand-written kysely table type, checked against it: the keys of `c`, which must be
 * exactly the columns of `Row` (a missing or an extra one fails to compile). Integration tests hold such
 * lists to the migrated tables.
 */
export const rowColumns =
  <Row>() =>
  <const C extends Record<keyof Row, true>>(c: C & Record<Exclude<keyof C, keyof Row>, never>) =>
    Object.keys(c) as (keyof Row)[];
