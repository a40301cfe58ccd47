/**
 * Secret keys and sealing, no database: key lists, the secrets keyring, sealing to a public key,
 * unsubscribe tokens.
 */
export { loadKeyList, type NamedKey, parseKeyList } from './key-list.js';
export {
  ConsoleKeyring,
  defaultInboundKeyring,
  defaultSecretsKeyring,
  InboundKeyring,
  loadConsoleKeyring,
  loadInboundKeyring,
  loadSecretsKeyring,
  type MasterKey,
  parseSecretsKeys,
  type SealedSecret,
  SecretsKeyring,
  SecretUnreadableError,
} from './secrets-keyring.js';
export {
  parseWebhookSealKey,
  SEALED_TO_PREFIX,
  sealPrivateKey,
  sealPublicKeySetting,
  type SecretSealer,
  unwrapSealedTo,
  WebhookSealKey,
} from './webhook-seal.js';
export {
  defaultUnsubscribeKeys,
  legacyUnsubscribeKeys,
  loadUnsubscribeKeys,
  parseUnsubscribeKeys,
  signUnsubscribeToken,
  UnsubscribeKeys,
  type UnsubscribeSubject,
  verifyUnsubscribeToken,
} from './unsubscribe-token.js';
