import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { accountSettingsSchema } from './account-settings.schema.js';
import { collectorRequestSchema } from './collector-request.schema.js';
import { customersRequestSchema } from './customers-request.schema.js';
import { ordersRequestSchema } from './orders-request.schema.js';
import { erasureRequestSchema, exportRequestSchema } from './person-request.schema.js';

/** One schema failure as ajv reports it (compiled with `allErrors` and `verbose`). */
export type SchemaError = ErrorObject;

/** A compiled request-body validator; on failure its `errors` holds every schema error. */
export type BodyValidator = ValidateFunction;

// ajv-formats is CommonJS: under NodeNext the default import is `module.exports`, whose `default` is the plugin.
const addFormats = formatsModule.default;

/**
 * Validators for every request body that has a fixed shape, compiled once at module load.
 * `allErrors` so a 422 lists every problem at once; `verbose` so each error carries the failing value
 * and its schema, which the domain needs to phrase pydantic-style entries.
 *
 * @example
 * if (!httpValidators.ordersRequest(body)) console.log(httpValidators.ordersRequest.errors);
 */
export const httpValidators: {
  readonly ordersRequest: BodyValidator;
  readonly customersRequest: BodyValidator;
  readonly accountSettings: BodyValidator;
  readonly collectorRequest: BodyValidator;
  readonly erasureRequest: BodyValidator;
  readonly exportRequest: BodyValidator;
} = (() => {
  const ajv = new Ajv2020({ allErrors: true, verbose: true, allowUnionTypes: true, strict: true });
  addFormats(ajv, ['uuid', 'date-time']);
  return {
    ordersRequest: ajv.compile(ordersRequestSchema),
    customersRequest: ajv.compile(customersRequestSchema),
    accountSettings: ajv.compile(accountSettingsSchema),
    collectorRequest: ajv.compile(collectorRequestSchema),
    erasureRequest: ajv.compile(erasureRequestSchema),
    exportRequest: ajv.compile(exportRequestSchema),
  };
})();
