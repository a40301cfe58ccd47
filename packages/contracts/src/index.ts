/**
 * Event contracts: the Avro schemas in `schemas/events` (the wire truth), the TypeScript types generated
 * from them, the topic map, and the registry-backed codec.
 */
export * from './generated/events.js';
export { EventCodec, SchemaRegistryUnavailableError, UndecodableRecordError, subjectOf } from './codec.js';
export { loadEventSchemas, loadTopicMap, SCHEMAS_DIR } from './codegen/load-schemas.js';
export * from './http/index.js';
