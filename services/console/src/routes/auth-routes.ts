// Signing in and out, and accepting an invitation. Two steps: the password opens a half session that
// only reaches the code form; the second factor replaces it with a full one (a new secret each time).
import { Router, type Request, type Response } from 'express';
import {
  acceptInvite,
  openTotpSecret,
  clearUserFailures,
  countSignInFailures,
  createConsoleSession,
  deleteConsoleSession,
  emailBucket,
  findInvite,
  findUser,
  findUserByEmail,
  mintSecret,
  recordAudit,
  recordSignInFailure,
  recordUserFailure,
  takeRecoveryCode,
  takeTotpStep,
} from '@holdfast/control-plane';
import type { ConsoleContext, SessionViewer } from '../context.js';
import { html } from '../html.js';
import { notice, page } from '../pages/layout.js';
import { hashPassword, verifyPassword } from '../passwords.js';
import { safeNext } from '../safe-next.js';
import { csrfToken, clearSessionCookie, setSessionCookie } from '../session.js';
import { lockAfterFailure, passwordProblem, signInGate } from '../sign-in-policy.js';
import { newTotpSecret, totpStep, totpUri } from '../totp.js';
import { normalizeRecoveryCode } from '../recovery-codes.js';

/** A half session (password right, code owed) lasts 5 minutes. */
const PENDING_TTL_MS = 5 * 60 * 1000;
const GENERIC_FAILURE = 'That email address, password or code is not right.';
const THROTTLED = 'Too many failed attempts. Wait a few minutes, then try again.';

function signInPage(next: string, error?: string, email = '') {
  return page({
    title: 'Sign in',
    body: html`<div class="center">
      ${notice('error', error)}
      <form method="post" action="/sign-in" class="stack">
        <input type="hidden" name="next" value="${next}" />
        <label for="email">Email address</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${email}" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Continue</button>
      </form>
    </div>`,
  });
}

function codePage(viewer: SessionViewer, next: string, error?: string) {
  return page({
    title: 'Second factor',
    body: html`<div class="center">
      ${notice('error', error)}
      <p>Enter the 6-digit code your authenticator app shows for Holdfast.</p>
      <form method="post" action="/sign-in/code" class="stack">
        <input type="hidden" name="_csrf" value="${csrfToken(viewer.secret)}" />
        <input type="hidden" name="next" value="${next}" />
        <label for="code">Code</label>
        <input
          id="code"
          name="code"
          inputmode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9 ]{6,7}"
          required
        />
        <button type="submit">Sign in</button>
      </form>
      <details>
        <summary>Lost your authenticator app? Use a recovery code</summary>
        <form method="post" action="/sign-in/recovery" class="stack">
          <input type="hidden" name="_csrf" value="${csrfToken(viewer.secret)}" />
          <input type="hidden" name="next" value="${next}" />
          <label for="recovery-code">Recovery code</label>
          <input id="recovery-code" name="recovery_code" autocomplete="off" spellcheck="false" required />
          <button type="submit" class="secondary">Sign in with a recovery code</button>
        </form>
      </details>
    </div>`,
  });
}

function field(req: Request, name: string): string {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
}

export function authRoutes(ctx: ConsoleContext): Router {
  const r = Router();
  const cookies = { secure: ctx.config.secureCookies };

  async function startSession(res: Response, userId: string, complete: boolean) {
    const secret = mintSecret();
    const ttl = complete ? ctx.config.sessionTtlMs : PENDING_TTL_MS;
    const now = ctx.now();
    await createConsoleSession(
      ctx.db,
      { secret, userId, expiresAt: new Date(now.getTime() + ttl), secondFactor: complete },
      now,
    );
    setSessionCookie(res, cookies, secret, ttl);
  }

  /** Counts a failure against the address, the client and (when known) the user. */
  async function failed(req: Request, email: string, userId: string | undefined) {
    const now = ctx.now();
    await recordSignInFailure(ctx.db, [`ip:${req.ip ?? 'unknown'}`, emailBucket(email)], now);
    if (userId) {
      const user = await findUser(ctx.db, userId);
      const lock = lockAfterFailure(ctx.limits, (user?.failed_sign_ins ?? 0) + 1, now);
      await recordUserFailure(ctx.db, userId, lock);
      if (lock) ctx.logger.warn('console_user_locked', { userId });
    }
  }

  async function gate(req: Request, email: string, lockedUntil: Date | null) {
    const now = ctx.now();
    const buckets = [`ip:${req.ip ?? 'unknown'}`, emailBucket(email)];
    const counts = await countSignInFailures(ctx.db, buckets, new Date(now.getTime() - ctx.limits.windowMs));
    return signInGate(
      ctx.limits,
      { ipFailures: counts.get(buckets[0]!) ?? 0, emailFailures: counts.get(buckets[1]!) ?? 0, lockedUntil },
      now,
    );
  }

  r.get('/sign-in', (req, res) => {
    const viewer = res.locals.viewer as SessionViewer | undefined;
    if (viewer?.complete) return void res.redirect(303, safeNext(req.query.next));
    res.type('html').send(signInPage(safeNext(req.query.next)).value);
  });

  r.post('/sign-in', async (req, res) => {
    const email = field(req, 'email').trim().toLowerCase().slice(0, 254);
    const password = field(req, 'password').slice(0, 1024);
    const next = safeNext(field(req, 'next'));
    // Whatever session the browser brought ends here: the one made below is new (fixation).
    const old = res.locals.viewer as SessionViewer | undefined;
    if (old) await deleteConsoleSession(ctx.db, old.secret);
    const user = email ? await findUserByEmail(ctx.db, email) : undefined;
    const g = await gate(req, email, user?.locked_until ?? null);
    if (!g.allowed) {
      res.setHeader('Retry-After', String(g.retryAfterS));
      return void res
        .status(429)
        .type('html')
        .send(signInPage(next, THROTTLED, email).value);
    }
    const ok = await verifyPassword(user?.password_hash, password);
    if (!ok || !user || !(user.totp_key_id || user.totp_secret)) {
      await failed(req, email, user?.id);
      return void res
        .status(401)
        .type('html')
        .send(signInPage(next, GENERIC_FAILURE, email).value);
    }
    await startSession(res, user.id, false);
    res.redirect(303, `/sign-in/code?next=${encodeURIComponent(next)}`);
  });

  r.get('/sign-in/code', (req, res) => {
    const viewer = res.locals.viewer as SessionViewer | undefined;
    if (!viewer) return void res.redirect(303, '/sign-in');
    if (viewer.complete) return void res.redirect(303, safeNext(req.query.next));
    res.type('html').send(codePage(viewer, safeNext(req.query.next)).value);
  });

  r.post('/sign-in/code', async (req, res) => {
    const viewer = res.locals.viewer as SessionViewer | undefined;
    const next = safeNext(field(req, 'next'));
    if (!viewer || viewer.complete) return void res.redirect(303, '/sign-in');
    const user = await findUser(ctx.db, viewer.userId);
    const g = await gate(req, viewer.email, user?.locked_until ?? null);
    const totpSecret = user ? openTotpSecret(user, ctx.config.consoleKeys) : null;
    if (!user || !totpSecret || !g.allowed) {
      await deleteConsoleSession(ctx.db, viewer.secret);
      clearSessionCookie(res, cookies);
      if (!g.allowed) res.setHeader('Retry-After', String(g.retryAfterS));
      return void res
        .status(g.allowed ? 401 : 429)
        .type('html')
        .send(signInPage(next, THROTTLED).value);
    }
    const step = totpStep(totpSecret, field(req, 'code'), ctx.now());
    if (step === null || !(await takeTotpStep(ctx.db, user.id, step))) {
      await failed(req, viewer.email, user.id);
      return void res
        .status(401)
        .type('html')
        .send(codePage(viewer, next, GENERIC_FAILURE).value);
    }
    await clearUserFailures(ctx.db, user.id);
    await deleteConsoleSession(ctx.db, viewer.secret);
    await startSession(res, user.id, true);
    await recordAudit(ctx.db, { accountId: null, actorUserId: user.id, action: 'user.sign_in' }, ctx.now());
    res.redirect(303, next);
  });

  // A recovery code in place of the TOTP code: the same gate, failure counting and lockout; each code
  // is taken once.
  r.post('/sign-in/recovery', async (req, res) => {
    const viewer = res.locals.viewer as SessionViewer | undefined;
    const next = safeNext(field(req, 'next'));
    if (!viewer || viewer.complete) return void res.redirect(303, '/sign-in');
    const user = await findUser(ctx.db, viewer.userId);
    const g = await gate(req, viewer.email, user?.locked_until ?? null);
    if (!user || !g.allowed) {
      await deleteConsoleSession(ctx.db, viewer.secret);
      clearSessionCookie(res, cookies);
      if (!g.allowed) res.setHeader('Retry-After', String(g.retryAfterS));
      return void res
        .status(g.allowed ? 401 : 429)
        .type('html')
        .send(signInPage(next, THROTTLED).value);
    }
    const code = normalizeRecoveryCode(field(req, 'recovery_code'));
    if (!code || !(await takeRecoveryCode(ctx.db, user.id, code, ctx.now()))) {
      await failed(req, viewer.email, user.id);
      return void res
        .status(401)
        .type('html')
        .send(codePage(viewer, next, GENERIC_FAILURE).value);
    }
    await clearUserFailures(ctx.db, user.id);
    await deleteConsoleSession(ctx.db, viewer.secret);
    await startSession(res, user.id, true);
    await recordAudit(
      ctx.db,
      { accountId: null, actorUserId: user.id, action: 'user.sign_in', detail: { with: 'recovery_code' } },
      ctx.now(),
    );
    res.redirect(303, next);
  });

  r.post('/sign-out', async (_req, res) => {
    const viewer = res.locals.viewer as SessionViewer | undefined;
    if (viewer) await deleteConsoleSession(ctx.db, viewer.secret);
    clearSessionCookie(res, cookies);
    res.redirect(303, '/sign-in');
  });

  // ---- invitations ----

  function invitePage(token: string, email: string, secret: string, error?: string) {
    const uri = totpUri(secret, email);
    return page({
      title: 'Set up your sign-in',
      body: html`<div class="center">
        ${notice('error', error)}
        <p>
          Welcome, <strong>${email}</strong>. Choose a password, then add Holdfast to your authenticator app.
        </p>
        <form method="post" action="/invite/${token}" class="stack">
          <input type="hidden" name="totp_secret" value="${secret}" />
          <label for="password">Password (at least 12 characters)</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="new-password"
            minlength="12"
            required
          />
          <p>In your authenticator app, add an account with this key (or open the link on your phone):</p>
          <code class="secret" id="totp-secret">${secret}</code>
          <p><a href="${uri}">Open in an authenticator app</a></p>
          <label for="code">The 6-digit code it shows</label>
          <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required />
          <button type="submit">Finish</button>
        </form>
      </div>`,
    });
  }

  const gone = page({
    title: 'Invitation not valid',
    body: html`<p>
        This link was used already, has expired, or never existed. Ask whoever invited you for a new one.
      </p>
      <p><a href="/sign-in">Sign in</a></p>`,
  });

  r.get('/invite/:token', async (req, res) => {
    const inv = await findInvite(ctx.db, req.params.token, ctx.now());
    if (!inv) return void res.status(404).type('html').send(gone.value);
    if (inv.password_hash)
      return void res.type('html').send(
        page({
          title: 'Invitation',
          body: html`<p>
            You already have a sign-in: your new role is in place. <a href="/sign-in">Sign in</a>.
          </p>`,
        }).value,
      );
    res.type('html').send(invitePage(req.params.token, inv.email, newTotpSecret()).value);
  });

  r.post('/invite/:token', async (req, res) => {
    const token = req.params.token;
    const inv = await findInvite(ctx.db, token, ctx.now());
    if (!inv || inv.password_hash) return void res.status(404).type('html').send(gone.value);
    const password = field(req, 'password');
    const secret = field(req, 'totp_secret');
    if (!/^[A-Z2-7]{32}$/.test(secret)) return void res.status(400).type('html').send(gone.value);
    const problem = passwordProblem(password);
    if (problem)
      return void res
        .status(400)
        .type('html')
        .send(invitePage(token, inv.email, secret, problem).value);
    const now = ctx.now();
    const step = totpStep(secret, field(req, 'code'), now);
    if (step === null)
      return void res
        .status(400)
        .type('html')
        .send(
          invitePage(token, inv.email, secret, 'That code is not right: check the app and try the next one.')
            .value,
        );
    const accepted = await acceptInvite(
      ctx.db,
      token,
      { passwordHash: await hashPassword(password), totpSecret: secret, totpStep: step },
      ctx.config.consoleKeys,
      now,
    );
    if (!accepted) return void res.status(404).type('html').send(gone.value);
    await recordAudit(
      ctx.db,
      { accountId: inv.account_id, actorUserId: accepted.userId, action: 'user.invite_accepted' },
      now,
    );
    // Signed in at once: the password and a code were just proven.
    const old = res.locals.viewer as SessionViewer | undefined;
    if (old) await deleteConsoleSession(ctx.db, old.secret);
    await startSession(res, accepted.userId, true);
    res.redirect(303, inv.account_id ? `/accounts/${inv.account_id}` : '/');
  });

  return r;
}
