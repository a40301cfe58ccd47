import type { Kysely } from 'kysely';
import { describeAccount } from './control-plane.js';
import type { Database, ProviderKind } from '@holdfast/postgres';
import {
  defaultInboundKeyring,
  defaultSecretsKeyring,
  SecretUnreadableError,
  type InboundKeyring,
  type SecretsKeyring,
} from '@holdfast/secrets';

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
/** The same for the inbound copy: a ciphertext of one table does not open as the other's. */
const inboundContext = (accountId: string, provider: string): string =>
  `provider-inbound/${accountId}/${provider}`;

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
  inbound: (() => InboundKeyring) | null,
): Promise<void> {
  await describeAccount(db, row.accountId);
  const sealed = keyring.seal(row.secret, secretContext(row.accountId, row.provider));
  // An SMS provider's token signs its inbound webhook: sealed a second time for the gateway.
  const inboundSealed =
    row.channel === 'sms' && row.kind === 'twilio' && inbound
      ? inbound().seal(row.secret, inboundContext(row.accountId, row.provider))
      : null;
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
    if (!inboundSealed) {
      await trx
        .deleteFrom('control.provider_inbound_secrets')
        .where('account_id', '=', row.accountId)
        .where('provider', '=', row.provider)
        .execute();
      return;
    }
    const copy = {
      key_id: inboundSealed.keyId,
      wrapped_key: inboundSealed.wrappedKey,
      ciphertext: inboundSealed.ciphertext,
      updated_at: new Date().toISOString(),
    };
    await trx
      .insertInto('control.provider_inbound_secrets')
      .values({ account_id: row.accountId, provider: row.provider, ...copy })
      .onConflict((oc) => oc.columns(['account_id', 'provider']).doUpdateSet(copy))
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
    /** Seals an SMS provider's token for the gateway (default: HOLDFAST_INBOUND_KEYS of the process). */
    inbound?: InboundKeyring,
  ): Promise<void> => {
    // The rest of `s` is exactly `S`; TypeScript cannot see through `Omit` of a type parameter.
    const { provider, ...rest } = s;
    const settings = rest as unknown as S;
    await upsertProvider(
      db,
      { accountId, provider, channel, kind, endpointUrl: endpointOf(s), settings, secret },
      keyring,
      () => inbound ?? defaultInboundKeyring(),
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
 * (`secret`) is stored sealed only: under the master keys for sending, and once more under the
 * inbound keys (control.provider_inbound_secrets) for the gateway's STOP webhook.
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

/** What the gateway finds for an inbound SMS webhook: the provider's token, or why there is none. */
export type SmsInboundToken =
  | { readonly status: 'found'; readonly provider: string; readonly token: string }
  /** No SMS provider of kind twilio for this account (or no such account). */
  | { readonly status: 'none' }
  /** Connected before the inbound copy existed: `holdfast secrets rewrap` seals it. */
  | { readonly status: 'not_sealed'; readonly provider: string };

/**
 * The auth token of the account's SMS provider (kind twilio, the first by name), opened with the
 * inbound keys only: all the public gateway ever opens. One query whether or not the account exists.
 *
 * @example
 * const t = await loadSmsInboundToken(db, accountId, config.inboundKeys);
 * if (t.status === 'found') verifyTwilioSignature(t.token, url, form, signature);
 */
export async function loadSmsInboundToken(
  db: Kysely<Database>,
  accountId: string,
  inbound: InboundKeyring,
): Promise<SmsInboundToken> {
  const r = await db
    .selectFrom('control.providers as p')
    .leftJoin('control.provider_inbound_secrets as s', (j) =>
      j.onRef('s.account_id', '=', 'p.account_id').onRef('s.provider', '=', 'p.provider'),
    )
    .select(['p.provider', 's.key_id', 's.wrapped_key', 's.ciphertext'])
    .where('p.account_id', '=', accountId)
    .where('p.channel', '=', 'sms')
    .where('p.kind', '=', 'twilio')
    .orderBy('p.provider')
    .limit(1)
    .executeTakeFirst();
  if (!r) return { status: 'none' };
  if (!r.key_id || !r.wrapped_key || !r.ciphertext) return { status: 'not_sealed', provider: r.provider };
  const token = inbound.open(
    { keyId: r.key_id, wrappedKey: r.wrapped_key, ciphertext: r.ciphertext },
    inboundContext(accountId, r.provider),
  );
  return { status: 'found', provider: r.provider, token };
}

/**
 * Fills control.provider_inbound_secrets for SMS providers connected before it existed (their token
 * opened with the master keys, sealed under the inbound keys), then re-wraps every inbound data key
 * not under the current inbound key. Run by `holdfast secrets rewrap`, which holds both keyrings.
 * Idempotent; a row written meanwhile by `holdfast providers sms` is kept (insert or nothing).
 *
 * @returns how many tokens were sealed and how many data keys re-wrapped.
 */
export async function sealInboundSecrets(
  db: Kysely<Database>,
  keyring: SecretsKeyring,
  inbound: InboundKeyring,
): Promise<{ sealed: number; rewrapped: number }> {
  const missing = await db
    .selectFrom('control.providers as p')
    .innerJoin('control.provider_secrets as s', (j) =>
      j.onRef('s.account_id', '=', 'p.account_id').onRef('s.provider', '=', 'p.provider'),
    )
    .select(['p.account_id', 'p.provider', 's.key_id', 's.wrapped_key', 's.ciphertext'])
    .where('p.channel', '=', 'sms')
    .where('p.kind', '=', 'twilio')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('control.provider_inbound_secrets as i')
            .select('i.provider')
            .whereRef('i.account_id', '=', 'p.account_id')
            .whereRef('i.provider', '=', 'p.provider'),
        ),
      ),
    )
    .execute();
  let sealed = 0;
  for (const r of missing) {
    const token = keyring.open(
      { keyId: r.key_id, wrappedKey: r.wrapped_key, ciphertext: r.ciphertext },
      secretContext(r.account_id, r.provider),
    );
    const copy = inbound.seal(token, inboundContext(r.account_id, r.provider));
    const done = await db
      .insertInto('control.provider_inbound_secrets')
      .values({
        account_id: r.account_id,
        provider: r.provider,
        key_id: copy.keyId,
        wrapped_key: copy.wrappedKey,
        ciphertext: copy.ciphertext,
      })
      .onConflict((oc) => oc.columns(['account_id', 'provider']).doNothing())
      .executeTakeFirst();
    sealed += Number(done.numInsertedOrUpdatedRows ?? 0);
  }
  const stale = await db
    .selectFrom('control.provider_inbound_secrets')
    .select(['account_id', 'provider', 'key_id', 'wrapped_key', 'ciphertext'])
    .where('key_id', '<>', inbound.currentKeyId)
    .execute();
  const unknown = [...new Set(stale.map((r) => r.key_id))].filter((id) => !inbound.has(id));
  if (unknown.length)
    throw new SecretUnreadableError(
      `no inbound key ${unknown.map((id) => `"${id}"`).join(', ')} in HOLDFAST_INBOUND_KEYS`,
    );
  for (const r of stale) {
    const next = inbound.rewrap({ keyId: r.key_id, wrappedKey: r.wrapped_key, ciphertext: r.ciphertext });
    // Guarded on the old key id: a concurrent rewrap of the same row does no harm.
    await db
      .updateTable('control.provider_inbound_secrets')
      .set({ key_id: next.keyId, wrapped_key: next.wrappedKey })
      .where('account_id', '=', r.account_id)
      .where('provider', '=', r.provider)
      .where('key_id', '=', r.key_id)
      .execute();
  }
  return { sealed, rewrapped: stale.length };
}
