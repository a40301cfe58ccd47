import {
  countPlaintextWebhookSecrets,
  sealInboundSecrets,
  rewrapSecrets,
  sealPlaintextWebhookSecrets,
  secretKeyUsage,
} from '@holdfast/control-plane';
import {
  legacyUnsubscribeKeys,
  loadInboundKeyring,
  loadSecretsKeyring,
  type InboundKeyring,
  SecretUnreadableError,
  type SecretsKeyring,
} from '@holdfast/secrets';
import { ConfigError } from '@holdfast/platform';
import { CliError, type CliContext } from '../context.js';
import { table } from '../format.js';
import type { RegisterCommand } from './index.js';

/** The keyring of the CLI's environment; a missing or malformed HOLDFAST_SECRETS_KEYS is a usage error. */
export function keyringFor(ctx: CliContext): SecretsKeyring {
  try {
    return loadSecretsKeyring(ctx.env);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 2);
    throw err;
  }
}

/** The inbound keyring (HOLDFAST_INBOUND_KEYS) of the CLI's environment; missing or malformed: a usage error. */
export function inboundKeyringFor(ctx: CliContext): InboundKeyring {
  try {
    return loadInboundKeyring(ctx.env);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 2);
    throw err;
  }
}

async function unlessUnreadable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof SecretUnreadableError)
      throw new CliError(
        `${err.message}: put every key still in use in ${/HOLDFAST_INBOUND_KEYS/.test(err.message) ? 'HOLDFAST_INBOUND_KEYS' : 'HOLDFAST_SECRETS_KEYS'} (the new one first) and run again`,
        2,
      );
    throw err;
  }
}

/** `holdfast secrets ...`: the master keys that seal secrets at rest (HOLDFAST_SECRETS_KEYS). */
export const registerSecrets: RegisterCommand = (program, context) => {
  const secrets = program
    .command('secrets')
    .description('secrets at rest: which master keys are in use, re-wrap under the current one');

  secrets
    .command('status')
    .description('how many sealed secrets each master key wraps, and plain-text ones left')
    .action(async () => {
      const ctx = context();
      const db = await ctx.db();
      const keyring = keyringFor(ctx);
      const usage = await secretKeyUsage(db);
      const plaintext = await countPlaintextWebhookSecrets(db);
      ctx.out(
        { current_key_id: keyring.currentKeyId, keys: usage, plaintext },
        () =>
          `Current master key: ${keyring.currentKeyId}\n` +
          (usage.length
            ? table(
                ['KEY ID', 'SECRETS'],
                usage.map((u) => [u.key_id, String(u.secrets)]),
              )
            : 'No sealed secrets yet') +
          (plaintext ? `\n${plaintext} plain-text secret(s) left: run holdfast secrets rewrap` : ''),
      );
    });

  secrets
    .command('rewrap')
    .description(
      'seal plain-text secrets left from before, re-wrap every data key under the current master key, ' +
        "and seal SMS providers' auth tokens for the gateway under the current inbound key",
    )
    .action(async () => {
      const ctx = context();
      const db = await ctx.db();
      const keyring = keyringFor(ctx);
      const inboundKeys = inboundKeyringFor(ctx);
      const sealed = await sealPlaintextWebhookSecrets(db, keyring);
      const rewrapped = await unlessUnreadable(() => rewrapSecrets(db, keyring));
      const inbound = await unlessUnreadable(() => sealInboundSecrets(db, keyring, inboundKeys));
      ctx.out(
        {
          current_key_id: keyring.currentKeyId,
          sealed,
          rewrapped,
          inbound: { current_key_id: inboundKeys.currentKeyId, ...inbound },
        },
        `Sealed ${sealed} plain-text secret(s); re-wrapped ${rewrapped} data key(s) under ${keyring.currentKeyId}.\n` +
          `SMS inbound tokens: sealed ${inbound.sealed}, re-wrapped ${inbound.rewrapped} under ${inboundKeys.currentKeyId}.\n` +
          `Older keys can now be removed from HOLDFAST_SECRETS_KEYS and HOLDFAST_INBOUND_KEYS.`,
      );
    });

  secrets
    .command('webhook-seal-key')
    .description(
      'print HOLDFAST_WEBHOOK_SEAL_KEY for the gateway: the public key, derived from the current master key, that the webhook secrets minted over POST /v1/webhooks are sealed to (it opens nothing)',
    )
    .action(() => {
      const ctx = context();
      const setting = keyringFor(ctx).webhookSealKeySetting();
      ctx.out(
        { setting },
        `${setting}\n` +
          '# Set HOLDFAST_WEBHOOK_SEAL_KEY=<the line above> on the gateway. A public key: it seals, it opens nothing.\n' +
          '# After a master key rotation, print it again and update the gateway (secrets sealed to the old one\n' +
          '# open while the old master key is configured; holdfast secrets rewrap moves them under the new one).',
      );
    });

  secrets
    .command('legacy-unsubscribe-keys')
    .description(
      'print the keys unsubscribe links were signed with before HOLDFAST_UNSUBSCRIBE_KEYS (derived from ' +
        'each master key): append them to HOLDFAST_UNSUBSCRIBE_KEYS so those links keep working',
    )
    .action(() => {
      const ctx = context();
      const keyring = keyringFor(ctx);
      const entries = legacyUnsubscribeKeys(keyring, keyring.keyIds).map(
        (k) => `${k.id}:${k.key.toString('base64')}`,
      );
      ctx.out(
        { entries },
        `${entries.join(',')}\n` +
          '# Append after the current key: HOLDFAST_UNSUBSCRIBE_KEYS=<current>,<the line above>.\n' +
          '# Derived keys: they verify old links and reveal nothing of the master keys.',
      );
    });
};
