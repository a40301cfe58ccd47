/**
 * A dry run's row-level error: the row's index, its id under the endpoint's own key (`order_id`,
 * `external_id`), and every code that dropped it.
 */
export type RowError<Id extends object, Code extends string> = Readonly<Id> & {
  readonly index: number;
  readonly codes: readonly Code[];
};

/** A dry run's row-level warning: as {@link RowError}, with one code and the fields it concerns. */
export type RowWarning<Id extends object, Code extends string> = Readonly<Id> & {
  readonly index: number;
  readonly code: Code;
  readonly fields?: readonly string[];
};
