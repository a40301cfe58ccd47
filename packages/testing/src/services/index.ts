/**
 * The one way to start each service under test, in this process on a test file's slice of the stack.
 * The only module of a package that imports services: the harness sits above them, and no product
 * code imports it (eslint.config.js).
 */
export {
  ManualClock,
  call,
  newAccount,
  orderRow,
  readSide,
  startGateway,
  type AccountFixture,
  type Answer,
  type BatchView,
  type CallOptions,
  type TestGateway,
} from './gateway.js';
export { ensureReadModels, runProjector, runSyncConsumer } from './projector.js';
export { schemaErrors } from './openapi-answers.js';
