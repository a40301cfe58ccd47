import { loadKeyList, SecretsKeyring } from '@holdfast/secrets';

/**
 * The key-encryption keys (KEK ring) subject and index keys are sealed under: `id:base64` entries of
 * 32 bytes, current first. Not the secrets master key (HOLDFAST_SECRETS_KEYS): held by the processes
 * that encrypt or decrypt personal data only (gateway, projector, CLI).
 */
export const PRIVACY_KEYS = Object.freeze({
  variable: 'HOLDFAST_PRIVACY_KEYS',
  devFile: 'privacy-key',
});

/** The KEK ring from HOLDFAST_PRIVACY_KEYS (production: required; elsewhere the development key). */
export function loadPrivacyKeyring(env: Readonly<Record<string, string | undefined>>): SecretsKeyring {
  return new SecretsKeyring(
    loadKeyList(env, PRIVACY_KEYS.variable, PRIVACY_KEYS.devFile),
    PRIVACY_KEYS.variable,
  );
}

let ambient: SecretsKeyring | undefined;

/**
 * The KEK ring of this process's environment, loaded once on first use: the default for code
 * embedded in-process (tests, the CLI). Service entry points load theirs with their configuration.
 */
export function defaultPrivacyKeyring(): SecretsKeyring {
  ambient ??= loadPrivacyKeyring(process.env);
  return ambient;
}
