/**
 * HTTP request contracts: JSON Schemas (draft 2020-12) of every request body, with a `description`
 * per property taken from the spec (they also feed /v1/openapi.json), their compiled ajv validators,
 * and the input types they guarantee.
 */
export {
  MAX_BATCH_ROWS,
  ORDER_ROW_FIELDS,
  orderRowSchema,
  ordersRequestSchema,
} from './orders-request.schema.js';
export type { OrderRowInput } from './orders-request.schema.js';
export {
  CUSTOMER_ROW_FIELDS,
  SUBSCRIPTION_STATUSES,
  customerRowSchema,
  customersRequestSchema,
} from './customers-request.schema.js';
export type { CustomerRowInput } from './customers-request.schema.js';
export { accountSettingsSchema } from './account-settings.schema.js';
export type { AccountSettingsInput } from './account-settings.schema.js';
export {
  MAX_PIXEL_EVENTS,
  PIXEL_EVENT_TYPES,
  collectorRequestSchema,
  pixelEventSchema,
} from './collector-request.schema.js';
export type { CollectorRequestInput, PixelEventInput } from './collector-request.schema.js';
export { customApiEventSchema, zeroPartySubmissionSchema } from './webhook-bodies.schema.js';
export { erasureRequestSchema, exportRequestSchema } from './person-request.schema.js';
export type { PersonRequestInput } from './person-request.schema.js';
export { httpValidators } from './validators.js';
export type { BodyValidator, SchemaError } from './validators.js';
export { countRows } from './count-rows.js';
export { AMOUNT_SQL_TYPE, COLUMN_LIMITS, amountFits } from './column-limits.js';
