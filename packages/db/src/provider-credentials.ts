import type { Kysely } from 'kysely';
import { describeAccount } from './control-plane.js';
import type { Database, ProviderKind } from './schema.js';
import { defaultSecretsKeyring, type SecretsKeyring } from './secrets-keyring.js';

/**
 * How an SMTP provider is reached. `tls`: `starttls` (the default: the connection must upgrade with
 * STARTTLS before anything is sent, RFC 3207), `implicit` (TLS from the first byte, port 465), or
 * `none` (plain text: only honoured in test mode, see docs/campaigns.md). `ca`: a PEM certificate to
 * trust besides the system's (a private relay's CA); certificates are always verified.
 */
export interface SmtpSettings {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly from: string;
  readonly tls: 'starttls' | 'implicit' | 'none';
  readonly ca: string | null;
}

/** How an SMS provider with Twilio's Messages API shape is reached (its `baseUrl` is configurable). */
export interface TwilioSettings {
  readonly baseUrl: string;
  readonly accountSid: string;
  /** The sending number (E.164) or messaging service id. */
  readonly from: string;
}

/** A connected provider with its secret opened: what a send needs. Never logged. */
export type ProviderConnection =
  | {
      readonly provider: string;
      readonly channel: 'email';
      readonly kind: 'smtp';
      readonly settings: SmtpSettings;
      readonly secret: string;
    }
  | {
      readonly provider: string;
      readonly channel: 'sms';
      readonly kind: 'twilio';
      readonly settings: TwilioSettings;
      readonly secret: string;
    }
  | {
      readonly provider: string;
      readonly channel: 'email' | 'sms';
      readonly kind: 'json';
      readonly endpointUrl: string;
    };

/** The authenticated data of a provider's sealed secret: it opens on that row only. */
const secretContext = (accountId: string, provider: string): string => `provider/${accountId}/${provider}`;

async function upsertProvider(
  db: Kysely<Database>,
  row: {
    accountId: string;
    provider: string;
    channel: 'email' | 'sms';
    kind: ProviderKind;
    endpointUrl: string;
    settings: SmtpSettings | TwilioSettings;
    secret: string;
  },
  keyring: SecretsKeyring,
): Promise<void> {
  await describeAccount(db, row.accountId);
  const sealed = keyring.seal(row.secret, secretContext(row.accountId, row.provider));
  const settings = JSON.stringify(row.settings);
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('control.providers')
      .values({
        account_id: row.accountId,
        provider: row.provider,
        channel: row.channel,
        endpoint_url: row.endpointUrl,
        kind: row.kind,
        settings,
      })
      .onConflict((oc) =>
        oc.columns(['account_id', 'provider']).doUpdateSet({
          channel: row.channel,
          endpoint_url: row.endpointUrl,
          kind: row.kind,
          settings,
        }),
      )
      .execute();
    const secret = {
      key_id: sealed.keyId,
      wrapped_key: sealed.wrappedKey,
      ciphertext: sealed.ciphertext,
      updated_at: new Date().toISOString(),
    };
    await trx
      .insertInto('control.provider_secrets')
      .values({ account_id: row.accountId, provider: row.provider, ...secret })
      .onConflict((oc) => oc.columns(['account_id', 'provider']).doUpdateSet(secret))
      .execute();
  });
}

/**
 * The one shape of "connect a provider with a secret": the kind's settings are stored as given, the
 * secret sealed only. The two setters below differ in their channel, kind and endpoint only.
 */
function providerSetter<S extends SmtpSettings | TwilioSettings>(
  channel: 'email' | 'sms',
  kind: ProviderKind,
  endpointOf: (settings: S) => string,
) {
  return async (
    db: Kysely<Database>,
    accountId: string,
    s: S & { readonly provider: string },
    secret: string,
    keyring: SecretsKeyring = defaultSecretsKeyring(),
  ): Promise<void> => {
    // The rest of `s` is exactly `S`; TypeScript cannot see through `Omit` of a type parameter.
    const { provider, ...rest } = s;
    const settings = rest as unknown as S;
    await upsertProvider(
      db,
      { accountId, provider, channel, kind, endpointUrl: endpointOf(s), settings, secret },
      keyring,
    );
  };
}

/**
 * Connects (or re-configures) the account's SMTP provider; the password (`secret`) is stored sealed
 * only.
 *
 * @example
 * await setEmailProvider(db, accountId, { provider: 'smtp', host: 'smtp.example.com', port: 587,
 *   user: 'apikey', from: 'Shop <news@shop.example.com>', tls: 'starttls', ca: null }, password);
 */
export const setEmailProvider = providerSetter<SmtpSettings>(
  'email',
  'smtp',
  (s) => `smtp://${s.host}:${s.port}`,
);

/**
 * Connects (or re-configures) the account's SMS provider (Twilio's API shape); the auth token
 * (`secret`) is stored sealed only.
 */
export const setSmsProvider = providerSetter<TwilioSettings>('sms', 'twilio', (s) => s.baseUrl);

/**
 * The account's connected providers with their secrets opened (for sending; the caller keeps them in
 * memory only). A provider of kind smtp or twilio whose secret is missing is left out.
 */
export async function loadProviderConnections(
  db: Kysely<Database>,
  accountId: string,
  keyring: SecretsKeyring = defaultSecretsKeyring(),
): Promise<ProviderConnection[]> {
  const rows = await db
    .selectFrom('control.providers as p')
    .leftJoin('control.provider_secrets as s', (j) =>
      j.onRef('s.account_id', '=', 'p.account_id').onRef('s.provider', '=', 'p.provider'),
    )
    .select([
      'p.provider',
      'p.channel',
      'p.kind',
      'p.endpoint_url',
      'p.settings',
      's.key_id',
      's.wrapped_key',
      's.ciphertext',
    ])
    .where('p.account_id', '=', accountId)
    .orderBy('p.provider')
    .execute();
  const out: ProviderConnection[] = [];
  for (const r of rows) {
    if (r.kind === 'json') {
      out.push({ provider: r.provider, channel: r.channel, kind: 'json', endpointUrl: r.endpoint_url });
      continue;
    }
    if (!r.key_id || !r.wrapped_key || !r.ciphertext) continue;
    const secret = keyring.open(
      { keyId: r.key_id, wrappedKey: r.wrapped_key, ciphertext: r.ciphertext },
      secretContext(accountId, r.provider),
    );
    if (r.kind === 'smtp' && r.channel === 'email')
      out.push({
        provider: r.provider,
        channel: 'email',
        kind: 'smtp',
        settings: r.settings as SmtpSettings,
        secret,
      });
    else if (r.kind === 'twilio' && r.channel === 'sms')
      out.push({
        provider: r.provider,
        channel: 'sms',
        kind: 'twilio',
        settings: r.settings as TwilioSettings,
        secret,
      });
  }
  return out;
}
