/**
 * The test harness: an isolated slice of the real stack per test file, and the support every test
 * shares (one seeded generator, one `until`, webhook receivers). Starting a service under test is
 * `@holdfast/testing/services`; event builders `@holdfast/testing/events`; the hostile-input corpus
 * and fuzz run `@holdfast/testing/hostile`.
 */
export { createTestEnv, type TestEnv } from './test-env.js';
export { ignoreKafkajsNegativeTimeoutWarning } from './kafkajs-timeout-warning.js';
export { dropRunResources } from './cleanup.js';
export { spawnTs, REPO_ROOT } from './run-ts.js';
export { TcpProxy } from './tcp-proxy.js';
export { registerUnseenSchema, withUnseenSchema } from './unseen-schema.js';
export { countTopicRecords, readDeadLetters, type ReadDeadLetter } from './dead-letter-reader.js';
export {
  selfSignedCertificate,
  startSmtpReceiver,
  type ReceivedMail,
  type SmtpReceiver,
} from './smtp-receiver.js';
export {
  startTarpitReceiver,
  startTricklingSmtpRelay,
  type TarpitReceiver,
  type TricklingRelay,
} from './misbehaving-peers.js';
export { until } from './until.js';
export { mulberry32 } from './random.js';
export {
  spawnExampleReceiver,
  startScriptedReceiver,
  type ExampleReceiver,
  type ReceivedRequest,
  type ScriptedReceiver,
} from './webhook-receivers.js';
export { appendCampaignSent, campaignSent } from './campaign-events.js';
