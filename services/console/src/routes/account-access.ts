// Every /accounts/:accountId/... page goes through here: a signed-in person with a role in that
// account (an operator has one in every account), or 404 — the same answer whether the account
// exists or not, so ids of other accounts reveal nothing. Actions are then checked against the
// permission matrix (403), and every object id in a URL is checked to belong to the account (404).
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ControlPlaneError, describeAccount, membershipRole } from '@holdfast/control-plane';
import type { ConsoleContext, SessionViewer } from '../context.js';
import { html, type Html } from '../html.js';
import { page, type AccountFrame, type Viewer } from '../pages/layout.js';
import { can, type ConsoleAction, type ConsoleRole } from '../permissions.js';
import { csrfToken } from '../session.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

/** What an account page knows about its request. */
export interface AccountRequest {
  readonly viewer: Viewer & { readonly userId: string };
  readonly account: AccountFrame & { readonly storefrontDomain: string | null; readonly isSandbox: boolean };
}

export function accountOf(res: Response): AccountRequest {
  return (res.locals as { accountRequest: AccountRequest }).accountRequest;
}

export function notFoundPage(viewer?: Viewer): Html {
  return page({
    title: 'Not found',
    viewer,
    body: html`<p>There is nothing here, or it is not yours to see.</p>
      <p><a href="/">Your accounts</a></p>`,
  });
}

/** The viewer of a full session, as pages show it. */
export function viewerOf(v: SessionViewer): Viewer & { userId: string } {
  return { email: v.email, isOperator: v.isOperator, csrf: csrfToken(v.secret), userId: v.userId };
}

/** Loads the account and the viewer's role in it; 404 for anything else. */
export function accountAccess(ctx: ConsoleContext): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const session = res.locals.viewer as SessionViewer;
    const viewer = viewerOf(session);
    const id = req.params.accountId;
    if (!isUuid(id)) return void res.status(404).type('html').send(notFoundPage(viewer).value);
    const role: ConsoleRole | undefined = session.isOperator
      ? 'operator'
      : await membershipRole(ctx.db, session.userId, id);
    if (!role) return void res.status(404).type('html').send(notFoundPage(viewer).value);
    let acc;
    try {
      acc = await describeAccount(ctx.db, id);
    } catch (err) {
      if (err instanceof ControlPlaneError && err.code === 'not_found')
        return void res.status(404).type('html').send(notFoundPage(viewer).value);
      throw err;
    }
    const ar: AccountRequest = {
      viewer,
      account: {
        id,
        name: acc.name,
        role,
        storefrontDomain: acc.storefront_domain,
        isSandbox: acc.is_sandbox,
      },
    };
    res.locals.accountRequest = ar;
    next();
  };
}

/** Refuses (403) an action the viewer's role may not take, whatever the page showed. */
export function requireAction(action: ConsoleAction): RequestHandler {
  return (_req, res, next) => {
    const { viewer, account } = accountOf(res);
    if (can(account.role, action)) return next();
    res
      .status(403)
      .type('html')
      .send(
        page({
          title: 'Not allowed',
          viewer,
          account,
          body: html`<p>
            Your role in ${account.name} (${account.role}) cannot do this. An owner or admin of the account
            can.
          </p>`,
        }).value,
      );
  };
}

/** A form field as text ('' when absent). */
export function formField(req: Request, name: string): string {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
}

/** Whether a table the page reads does not exist yet (a service has not started once). */
export function missingTable(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === '42P01' || code === '3F000';
}

/** Sends an account page (its navigation, the viewer, the body). */
export function sendAccountPage(
  ctx: ConsoleContext,
  res: Response,
  o: { readonly title: string; readonly active: string; readonly body: Html; readonly status?: number },
): void {
  const { viewer, account } = accountOf(res);
  res
    .status(o.status ?? 200)
    .type('html')
    .send(page({ title: o.title, viewer, account, active: o.active, body: o.body }).value);
}
