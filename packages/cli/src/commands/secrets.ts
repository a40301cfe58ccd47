import {
  countPlaintextWebhookSecrets,
  loadSecretsKeyring,
  SecretUnreadableError,
  type SecretsKeyring,
  rewrapSecrets,
  sealPlaintextWebhookSecrets,
  secretKeyUsage,
} from '@holdfast/db';
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

async function unlessUnreadable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof SecretUnreadableError)
      throw new CliError(
        `${err.message}: put every master key still in use in HOLDFAST_SECRETS_KEYS (the new one first) and run again`,
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
      'seal plain-text secrets left from before, and re-wrap every data key under the current master key',
    )
    .action(async () => {
      const ctx = context();
      const db = await ctx.db();
      const keyring = keyringFor(ctx);
      const sealed = await sealPlaintextWebhookSecrets(db, keyring);
      const rewrapped = await unlessUnreadable(() => rewrapSecrets(db, keyring));
      ctx.out(
        { current_key_id: keyring.currentKeyId, sealed, rewrapped },
        `Sealed ${sealed} plain-text secret(s); re-wrapped ${rewrapped} data key(s) under ${keyring.currentKeyId}.\n` +
          `Older master keys can now be removed from HOLDFAST_SECRETS_KEYS.`,
      );
    });
};
