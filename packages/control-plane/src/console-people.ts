// The console's people (docs/console.md): users, their roles in accounts, one-time invitations,
// server-side sessions, sign-in failures and the audit log. The CLI (`holdfast users invite`) and the
// console service both call these; neither writes this SQL itself.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import { ControlPlaneError, describeAccount } from './control-plane.js';
import type { AccountRole, Database, UsersTable } from '@holdfast/postgres';
import type { SecretsKeyring } from '@holdfast/secrets';

export const ACCOUNT_ROLES: readonly AccountRole[] = ['owner', 'admin', 'analyst', 'viewer'];

/** How long an invitation link works (7 days). */
export const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

/** A fresh secret for a cookie or a link: 32 random bytes, base64url (256 bits). */
export function mintSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored of a secret: its SHA-256 (a leaked table opens nothing). */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** A lower-cased, trimmed address, or `invalid`. Deliberately loose: the invitation proves it. */
export function normalizeEmail(input: string): string {
  const e = input.trim().toLowerCase();
  if (e.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(e))
    throw new ControlPlaneError('invalid', 'not an email address like someone@example.com');
  return e;
}

export type UserRow = Selectable<UsersTable>;

export interface Invitation {
  readonly userId: string;
  /** The one-time token, in clear, once: the link is `<console>/invite/<token>`. */
  readonly token: string;
  readonly expiresAt: Date;
  /** Whether the user already had a password (the link then only confirms the new role). */
  readonly existingUser: boolean;
}

/**
 * Invites a person: the user (created when the address is new), their role in the account (or the
 * operator flag), and a one-time link valid for 7 days. A second invitation of the same person to the
 * same account changes the role and issues a new link; the earlier links still work until used.
 */
export async function inviteUser(
  db: Kysely<Database>,
  invite: {
    readonly email: string;
    readonly accountId?: string | null;
    readonly role?: AccountRole;
    readonly operator?: boolean;
  },
  now = new Date(),
): Promise<Invitation> {
  const email = normalizeEmail(invite.email);
  if (!invite.operator && !invite.accountId)
    throw new ControlPlaneError('invalid', 'an invitation names an account, or makes an operator');
  if (invite.accountId) await describeAccount(db, invite.accountId);
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('control.users')
      .values({ id: randomUUID(), email, is_operator: invite.operator === true })
      .onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
      .returning('id')
      .executeTakeFirst();
    const user = await trx
      .selectFrom('control.users')
      .select(['id', 'password_hash'])
      .where(sql<string>`lower(email)`, '=', email)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (invite.operator && !inserted)
      await trx.updateTable('control.users').set({ is_operator: true }).where('id', '=', user.id).execute();
    if (invite.accountId)
      await trx
        .insertInto('control.memberships')
        .values({ user_id: user.id, account_id: invite.accountId, role: invite.role ?? 'viewer' })
        .onConflict((oc) =>
          oc.columns(['user_id', 'account_id']).doUpdateSet({ role: invite.role ?? 'viewer' }),
        )
        .execute();
    const token = mintSecret();
    const expiresAt = new Date(now.getTime() + INVITE_TTL_MS);
    await trx
      .insertInto('control.invites')
      .values({
        token_hash: secretDigest(token),
        user_id: user.id,
        account_id: invite.accountId ?? null,
        created_at: now,
        expires_at: expiresAt,
      })
      .execute();
    return { userId: user.id, token, expiresAt, existingUser: user.password_hash !== null };
  });
}

/** An unused, unexpired invitation and its user; undefined otherwise (one answer for every reason). */
export async function findInvite(db: Kysely<Database>, token: string, now = new Date()) {
  return db
    .selectFrom('control.invites as i')
    .innerJoin('control.users as u', 'u.id', 'i.user_id')
    .select(['i.user_id', 'i.account_id', 'u.email', 'u.password_hash'])
    .where('i.token_hash', '=', secretDigest(token))
    .where('i.used_at', 'is', null)
    .where('i.expires_at', '>', now)
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Uses an invitation once: sets the password and the TOTP secret of a user who has none (a user who
 * already signs in keeps theirs). Undefined when the link is used, expired or unknown; a concurrent
 * second use finds it used (the row is claimed by one UPDATE).
 */
export async function acceptInvite(
  db: Kysely<Database>,
  token: string,
  credentials: { readonly passwordHash: string; readonly totpSecret: string; readonly totpStep: number },
  keyring: SecretsKeyring,
  now = new Date(),
): Promise<{ userId: string } | undefined> {
  return db.transaction().execute(async (trx) => {
    const claimed = await trx
      .updateTable('control.invites')
      .set({ used_at: now })
      .where('token_hash', '=', secretDigest(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('user_id')
      .executeTakeFirst();
    if (!claimed) return undefined;
    await trx
      .updateTable('control.users')
      .set({
        password_hash: credentials.passwordHash,
        ...sealedTotp(claimed.user_id, credentials.totpSecret, keyring),
        totp_last_step: String(credentials.totpStep),
        failed_sign_ins: 0,
        locked_until: null,
      })
      .where('id', '=', claimed.user_id)
      .where('password_hash', 'is', null)
      .execute();
    return { userId: claimed.user_id };
  });
}

/** A user by address (case-insensitive); undefined when unknown or disabled. */
export async function findUserByEmail(db: Kysely<Database>, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('control.users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', email.trim().toLowerCase())
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
}

export async function findUser(db: Kysely<Database>, userId: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('control.users')
    .selectAll()
    .where('id', '=', userId)
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
}

/**
 * Takes a TOTP time step once: true when `step` is later than every step taken before (one UPDATE,
 * so two concurrent sign-ins with the same code cannot both pass).
 */
export async function takeTotpStep(db: Kysely<Database>, userId: string, step: number): Promise<boolean> {
  const r = await db
    .updateTable('control.users')
    .set({ totp_last_step: String(step) })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', String(step))]))
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** Counts a failed sign-in against the user; locks them until `lockUntil` when given. */
export async function recordUserFailure(
  db: Kysely<Database>,
  userId: string,
  lockUntil: Date | null,
): Promise<number> {
  const r = await db
    .updateTable('control.users')
    .set((eb) => ({
      failed_sign_ins: eb('failed_sign_ins', '+', 1),
      ...(lockUntil ? { locked_until: lockUntil } : {}),
    }))
    .where('id', '=', userId)
    .returning('failed_sign_ins')
    .executeTakeFirst();
  return r?.failed_sign_ins ?? 0;
}

/** A successful sign-in clears the count and any lock. */
export async function clearUserFailures(db: Kysely<Database>, userId: string): Promise<void> {
  await db
    .updateTable('control.users')
    .set({ failed_sign_ins: 0, locked_until: null })
    .where('id', '=', userId)
    .execute();
}

/** The bucket of an address in control.sign_in_failures: its digest, never the address. */
export const emailBucket = (email: string): string =>
  `email:${createHash('sha256').update(email.trim().toLowerCase()).digest('hex')}`;

export async function recordSignInFailure(
  db: Kysely<Database>,
  buckets: readonly string[],
  now = new Date(),
) {
  if (buckets.length)
    await db
      .insertInto('control.sign_in_failures')
      .values(buckets.map((bucket) => ({ bucket, at: now })))
      .execute();
}

/** Failures per bucket since `since` (buckets with none are absent). */
export async function countSignInFailures(
  db: Kysely<Database>,
  buckets: readonly string[],
  since: Date,
): Promise<Map<string, number>> {
  if (!buckets.length) return new Map();
  const rows = await db
    .selectFrom('control.sign_in_failures')
    .select(['bucket', (eb) => eb.fn.countAll<string>().as('n')])
    .where('bucket', 'in', buckets)
    .where('at', '>', since)
    .groupBy('bucket')
    .execute();
  return new Map(rows.map((r) => [r.bucket, Number(r.n)]));
}

/** Drops failures older than `before` (the console's janitor). */
export async function purgeSignInFailures(db: Kysely<Database>, before: Date): Promise<void> {
  await db.deleteFrom('control.sign_in_failures').where('at', '<', before).execute();
}

// ---- memberships ----

export interface MembershipListing {
  readonly account_id: string;
  readonly account_name: string;
  readonly role: AccountRole;
}

/** The accounts a user belongs to, by name. */
export async function listMemberships(db: Kysely<Database>, userId: string): Promise<MembershipListing[]> {
  return db
    .selectFrom('control.memberships as m')
    .innerJoin('control.accounts as a', 'a.id', 'm.account_id')
    .select(['m.account_id', 'a.name as account_name', 'm.role'])
    .where('m.user_id', '=', userId)
    .orderBy('a.name')
    .execute();
}

/** The user's role in the account; undefined when not a member. */
export async function membershipRole(
  db: Kysely<Database>,
  userId: string,
  accountId: string,
): Promise<AccountRole | undefined> {
  const r = await db
    .selectFrom('control.memberships')
    .select('role')
    .where('user_id', '=', userId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return r?.role;
}

/** The people of an account (address, role, whether they finished their invitation). */
export async function listMembers(db: Kysely<Database>, accountId: string) {
  return db
    .selectFrom('control.memberships as m')
    .innerJoin('control.users as u', 'u.id', 'm.user_id')
    .select([
      'u.id',
      'u.email',
      'm.role',
      'm.created_at',
      sql<boolean>`u.password_hash is not null`.as('active'),
    ])
    .where('m.account_id', '=', accountId)
    .orderBy('u.email')
    .execute();
}

/** Removes a member from an account; `not_found` when they were none. */
export async function removeMember(db: Kysely<Database>, accountId: string, userId: string): Promise<void> {
  const r = await db
    .deleteFrom('control.memberships')
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!r.numDeletedRows) throw new ControlPlaneError('not_found', 'no such member');
}

// ---- sessions ----

/** Starts a session for `userId`; the cookie carries `secret`, the table its digest. */
export async function createConsoleSession(
  db: Kysely<Database>,
  s: {
    readonly secret: string;
    readonly userId: string;
    readonly expiresAt: Date;
    readonly secondFactor: boolean;
  },
  now = new Date(),
): Promise<void> {
  await db
    .insertInto('control.console_sessions')
    .values({
      id_hash: secretDigest(s.secret),
      user_id: s.userId,
      created_at: now,
      last_seen_at: now,
      expires_at: s.expiresAt,
      second_factor_at: s.secondFactor ? now : null,
    })
    .execute();
}

/** The live session behind a cookie's value (with its user), or undefined. */
export async function findConsoleSession(db: Kysely<Database>, secret: string, now = new Date()) {
  return db
    .selectFrom('control.console_sessions as s')
    .innerJoin('control.users as u', 'u.id', 's.user_id')
    .select(['s.user_id', 's.created_at', 's.last_seen_at', 's.second_factor_at', 'u.email', 'u.is_operator'])
    .where('s.id_hash', '=', secretDigest(secret))
    .where('s.expires_at', '>', now)
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
}

/** Marks a session seen (idle timeout counts from here). */
export async function touchConsoleSession(db: Kysely<Database>, secret: string, now = new Date()) {
  await db
    .updateTable('control.console_sessions')
    .set({ last_seen_at: now })
    .where('id_hash', '=', secretDigest(secret))
    .execute();
}

export async function deleteConsoleSession(db: Kysely<Database>, secret: string): Promise<void> {
  await db.deleteFrom('control.console_sessions').where('id_hash', '=', secretDigest(secret)).execute();
}

/** Ends every session of a user (a password change, a removal). */
export async function deleteUserSessions(db: Kysely<Database>, userId: string): Promise<void> {
  await db.deleteFrom('control.console_sessions').where('user_id', '=', userId).execute();
}

export async function purgeConsoleSessions(db: Kysely<Database>, now = new Date()): Promise<void> {
  await db.deleteFrom('control.console_sessions').where('expires_at', '<', now).execute();
}

// ---- audit ----

export interface AuditEntry {
  readonly accountId: string | null;
  readonly actorUserId: string | null;
  /** What was done, e.g. `key.mint`, `campaign.enable`. */
  readonly action: string;
  /** What it was done to (a key id, a campaign type), never a secret. */
  readonly target?: string | null;
  readonly detail?: Record<string, unknown>;
}

export async function recordAudit(db: Kysely<Database>, e: AuditEntry, now = new Date()): Promise<void> {
  await db
    .insertInto('control.audit_log')
    .values({
      at: now,
      account_id: e.accountId,
      actor_user_id: e.actorUserId,
      action: e.action,
      target: e.target ?? null,
      detail: JSON.stringify(e.detail ?? {}),
    })
    .execute();
}

/** An account's audit log, newest first, with who did it. */
export async function listAudit(db: Kysely<Database>, accountId: string, limit = 100) {
  return db
    .selectFrom('control.audit_log as l')
    .leftJoin('control.users as u', 'u.id', 'l.actor_user_id')
    .select(['l.id', 'l.at', 'l.action', 'l.target', 'l.detail', 'u.email as actor'])
    .where('l.account_id', '=', accountId)
    .orderBy('l.id', 'desc')
    .limit(limit)
    .execute();
}

/** What a sealed TOTP secret is bound to: its user (a ciphertext copied to another row does not open). */
const totpContext = (userId: string): string => `console-totp/${userId}`;

/** The columns of a TOTP secret sealed for `userId` (the clear column emptied). */
function sealedTotp(userId: string, secret: string, keyring: SecretsKeyring) {
  const s = keyring.seal(secret, totpContext(userId));
  return {
    totp_secret: null,
    totp_key_id: s.keyId,
    totp_wrapped_key: s.wrappedKey,
    totp_ciphertext: s.ciphertext,
  };
}

/**
 * The user's TOTP secret, opened with the console's keyring; null when none is enrolled. A row still
 * in clear (enrolled before the secrets were sealed, and the console has not started since) is read
 * as it is. Throws SecretUnreadableError when its key is not in the keyring or the ciphertext was
 * tampered with or moved from another row.
 */
export function openTotpSecret(
  user: Pick<UserRow, 'id' | 'totp_secret' | 'totp_key_id' | 'totp_wrapped_key' | 'totp_ciphertext'>,
  keyring: SecretsKeyring,
): string | null {
  if (user.totp_key_id && user.totp_wrapped_key && user.totp_ciphertext)
    return keyring.open(
      { keyId: user.totp_key_id, wrappedKey: user.totp_wrapped_key, ciphertext: user.totp_ciphertext },
      totpContext(user.id),
    );
  return user.totp_secret;
}

/**
 * Seals every TOTP secret still in clear (enrolled before the secrets were sealed) and clears the
 * column; one row per transaction, row-locked, so two consoles starting at once seal each row once.
 * Idempotent: the console runs it at every start. Returns how many were sealed.
 */
export async function sealConsoleTotpSecrets(db: Kysely<Database>, keyring: SecretsKeyring): Promise<number> {
  const clear = await db
    .selectFrom('control.users')
    .select('id')
    .where('totp_secret', 'is not', null)
    .execute();
  let sealed = 0;
  for (const { id } of clear)
    sealed += await db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('control.users')
        .select('totp_secret')
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!row?.totp_secret) return 0;
      await trx
        .updateTable('control.users')
        .set(sealedTotp(id, row.totp_secret, keyring))
        .where('id', '=', id)
        .execute();
      return 1;
    });
  return sealed;
}

/**
 * Re-wraps the data key of every TOTP secret not under the keyring's current key (after a new key was
 * put first in HOLDFAST_CONSOLE_KEYS; the ciphertext is unchanged). Each update is guarded on the old
 * key id, so concurrent runs do no harm. The console runs it at every start; afterwards the old key
 * can be removed. Returns how many were re-wrapped.
 */
export async function rewrapConsoleTotpSecrets(
  db: Kysely<Database>,
  keyring: SecretsKeyring,
): Promise<number> {
  const rows = await db
    .selectFrom('control.users')
    .select(['id', 'totp_key_id', 'totp_wrapped_key', 'totp_ciphertext'])
    .where('totp_key_id', 'is not', null)
    .where('totp_key_id', '<>', keyring.currentKeyId)
    .execute();
  let n = 0;
  for (const r of rows) {
    const next = keyring.rewrap({
      keyId: r.totp_key_id!,
      wrappedKey: r.totp_wrapped_key!,
      ciphertext: r.totp_ciphertext!,
    });
    const u = await db
      .updateTable('control.users')
      .set({ totp_key_id: next.keyId, totp_wrapped_key: next.wrappedKey })
      .where('id', '=', r.id)
      .where('totp_key_id', '=', r.totp_key_id)
      .executeTakeFirst();
    n += Number(u.numUpdatedRows);
  }
  return n;
}

/**
 * Replaces the user's recovery codes with `codes` (the caller shows them once): only their digests
 * are stored, and the old ones stop working in the same transaction.
 */
export async function replaceRecoveryCodes(
  db: Kysely<Database>,
  userId: string,
  codes: readonly string[],
  now = new Date(),
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('control.recovery_codes').where('user_id', '=', userId).execute();
    if (codes.length)
      await trx
        .insertInto('control.recovery_codes')
        .values(codes.map((c) => ({ user_id: userId, code_hash: secretDigest(c), created_at: now })))
        .execute();
  });
}

/**
 * Takes one recovery code once: true when it is one of the user's, unused (one UPDATE, so two
 * concurrent sign-ins with the same code cannot both pass). `code` as the caller normalized it.
 */
export async function takeRecoveryCode(
  db: Kysely<Database>,
  userId: string,
  code: string,
  now = new Date(),
): Promise<boolean> {
  const r = await db
    .updateTable('control.recovery_codes')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('code_hash', '=', secretDigest(code))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** How many of the user's recovery codes are left unused. */
export async function countRecoveryCodes(db: Kysely<Database>, userId: string): Promise<number> {
  const { n } = await db
    .selectFrom('control.recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(n);
}
