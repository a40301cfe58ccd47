/**
 * The read models: what the projector writes and everything else reads. Owns their DDL (one
 * function per table, per schema, so a rebuild can create them in a fresh schema), the table names,
 * the default schema name and the privileges of the roles that read them.
 *
 * - `ensureReadModelSchema(pool, schema)`: idempotent DDL of every read-model table.
 * - `READ_MODEL_TABLES`: every table's name; `DEFAULT_READ_MODEL_SCHEMA`: `read_models`;
 *   `READ_SCHEMA_SETTING` (`HOLDFAST_READ_SCHEMA`) and `readModelSchemaOf(env)`: the schema setting.
 */
export * from './ensure-read-model-schema.js';
export * from './analyst-role.js';
export { viewsDdl } from './views.js';
export type * from './operations.js';
export * from './rows.js';
export type * from './read-model-tables.js';
export * from './account-activity.js';
export {
  FxInputError,
  importReferenceRates,
  setReportingCurrency,
  unconvertedOrders,
} from './fx/fx-commands.js';
export {
  DEFAULT_REPORTING_CURRENCY,
  FX_LOCK_SQL,
  FxSnapshot,
  FxSnapshots,
  loadFxSnapshot,
} from './fx/fx-snapshot.js';
export {
  FX_TABLE_COLUMNS,
  readReportingCurrency,
  type FxAccountCurrenciesTable,
  type FxImportsTable,
  type FxRatesTable,
  type FxTables,
  type FxVersionTable,
} from './fx/fx-tables.js';
