// A signed-in person's recovery codes: how many are left, and a new set (the old ones stop working),
// shown once. Each code signs in once in place of a TOTP code (POST /sign-in/recovery).
import { Router, type Response } from 'express';
import { countRecoveryCodes, recordAudit, replaceRecoveryCodes } from '@holdfast/control-plane';
import type { ConsoleContext, SessionViewer } from '../context.js';
import { html, type Html } from '../html.js';
import { csrfField, page } from '../pages/layout.js';
import { newRecoveryCodes } from '../recovery-codes.js';
import { viewerOf } from './account-access.js';

export function recoveryRoutes(ctx: ConsoleContext): Router {
  const r = Router();

  async function render(res: Response, shown?: readonly string[]) {
    const session = res.locals.viewer as SessionViewer;
    const viewer = viewerOf(session);
    const left = await countRecoveryCodes(ctx.db, session.userId);
    const codes: Html = shown
      ? html`<div class="notice ok" role="status">
          <p>
            <strong>Your new recovery codes.</strong> Keep them somewhere safe, apart from your phone: they
            are shown this once. Each signs in once in place of a code from your app; the previous ones no
            longer work.
          </p>
          <ol id="recovery-codes">
            ${shown.map((c) => html`<li><code>${c}</code></li>`)}
          </ol>
        </div>`
      : html``;
    const body = html`${codes}
      <p>
        If you lose your authenticator app, a recovery code signs you in once instead of its 6-digit code. You
        have <strong id="recovery-left">${left}</strong> unused.
      </p>
      <form method="post" action="/recovery-codes" class="stack">
        ${csrfField(viewer)}<button type="submit">
          ${left ? 'Replace them with new codes' : 'Make recovery codes'}
        </button>
      </form>
      <p><a href="/">Your accounts</a></p>`;
    res.type('html').send(page({ title: 'Recovery codes', viewer, body }).value);
  }

  r.get('/recovery-codes', (_req, res) => render(res));

  r.post('/recovery-codes', async (_req, res) => {
    const session = res.locals.viewer as SessionViewer;
    const codes = newRecoveryCodes();
    await replaceRecoveryCodes(ctx.db, session.userId, codes, ctx.now());
    await recordAudit(
      ctx.db,
      {
        accountId: null,
        actorUserId: session.userId,
        action: 'user.recovery_codes',
        detail: { codes: codes.length },
      },
      ctx.now(),
    );
    await render(res, codes);
  });

  return r;
}
