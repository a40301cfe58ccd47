/** The test harness: an isolated slice of the real stack per test file. */
export { createTestEnv, testKafkaClient, type TestEnv } from './test-env.js';
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
