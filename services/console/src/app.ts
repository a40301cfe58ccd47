// The console's Express app: security headers, static assets, the session, CSRF and same-origin
// checks on every change, the sign-in routes, and the account pages behind `accountAccess`.
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createDb, type Pool } from '@holdfast/postgres';
import {
  deleteConsoleSession,
  findConsoleSession,
  listAccounts,
  listMemberships,
  touchConsoleSession,
} from '@holdfast/control-plane';
import type { Logger } from '@holdfast/platform';
import type { ReadModelTables } from '@holdfast/read-models';
import type { Kysely } from 'kysely';
import type { ConsoleConfig } from './config.js';
import type { ConsoleContext, SessionViewer } from './context.js';
import { html } from './html.js';
import { page } from './pages/layout.js';
import { accountAccess, notFoundPage, viewerOf } from './routes/account-access.js';
import { activityRoutes } from './routes/activity-routes.js';
import { authRoutes } from './routes/auth-routes.js';
import { campaignsRoutes } from './routes/campaigns-routes.js';
import { dashboardsRoutes } from './routes/dashboards-routes.js';
import { integrationsRoutes } from './routes/integrations-routes.js';
import { keysRoutes } from './routes/keys-routes.js';
import { peopleRoutes } from './routes/people-routes.js';
import { recoveryRoutes } from './routes/recovery-routes.js';
import { settingsRoutes } from './routes/settings-routes.js';
import { webhooksRoutes } from './routes/webhooks-routes.js';
import { ReadApiClient } from './read-api-client.js';
import { securityHeaders } from './security-headers.js';
import { csrfMatches, readCookie, sameOrigin, sessionCookieName, clearSessionCookie } from './session.js';
import { DEFAULT_SIGN_IN_LIMITS, type SignInLimits } from './sign-in-policy.js';

const STATIC_DIR = fileURLToPath(new URL('../static/', import.meta.url));

export interface ConsoleDeps {
  readonly pool: Pool;
  readonly logger: Logger;
  readonly now?: () => Date;
  readonly limits?: SignInLimits;
}

/** Posts that need no session (their own secret, or none yet); all others need the CSRF token. */
const ANONYMOUS_POSTS = [/^\/sign-in$/, /^\/invite\/[^/]+$/];

export function createConsole(config: ConsoleConfig, deps: ConsoleDeps): express.Express {
  const db = createDb(deps.pool);
  const now = deps.now ?? (() => new Date());
  const ctx: ConsoleContext = {
    config,
    db,
    pool: deps.pool,
    readModels: (createDb(deps.pool) as unknown as Kysely<ReadModelTables>).withSchema(
      config.readModelSchema,
    ),
    logger: deps.logger,
    limits: deps.limits ?? DEFAULT_SIGN_IN_LIMITS,
    now,
    readApi: config.readApiUrl ? new ReadApiClient(db, config.readApiUrl, now) : null,
  };
  const cookies = { secure: config.secureCookies };
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.use(securityHeaders({ https: config.publicUrl.startsWith('https://') }));
  // An access line per request: the route's pattern, never its values (an invitation's token).
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path;
      deps.logger.info('console_request', {
        method: req.method,
        route: route === undefined ? null : String(route),
        status: res.statusCode,
        ms: Number((process.hrtime.bigint() - started) / 1_000_000n),
      });
    });
    next();
  });
  app.use('/static', express.static(STATIC_DIR, { index: false, fallthrough: false }));
  app.get('/favicon.ico', (_req, res) => void res.status(204).end());
  app.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 }));

  // The session behind the cookie, if any and still live (idle sessions end here).
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    const secret = readCookie(req, sessionCookieName(cookies));
    if (!secret) return next();
    const now = ctx.now();
    const s = await findConsoleSession(db, secret, now);
    if (!s || now.getTime() - s.last_seen_at.getTime() > config.idleTimeoutMs) {
      if (s) await deleteConsoleSession(db, secret);
      clearSessionCookie(res, cookies);
      return next();
    }
    if (now.getTime() - s.last_seen_at.getTime() > 60_000) await touchConsoleSession(db, secret, now);
    const viewer: SessionViewer = {
      secret,
      userId: s.user_id,
      email: s.email,
      isOperator: s.is_operator,
      complete: s.second_factor_at !== null,
    };
    res.locals.viewer = viewer;
    next();
  });

  // Every change: from this console's own pages (same origin), and with the session's CSRF token.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    const refuse = () =>
      void res
        .status(403)
        .type('html')
        .send(
          page({
            title: 'Refused',
            body: html`<p>
              This form expired or did not come from the console. Go back, reload the page and try again.
            </p>`,
          }).value,
        );
    if (!sameOrigin(req)) return refuse();
    if (ANONYMOUS_POSTS.some((p) => p.test(req.path))) return next();
    const viewer = res.locals.viewer as SessionViewer | undefined;
    if (!viewer) return void res.redirect(303, '/sign-in');
    const token = (req.body as Record<string, unknown> | undefined)?._csrf;
    if (!csrfMatches(viewer.secret, token)) return refuse();
    next();
  });

  app.use(authRoutes(ctx));

  // Everything below needs a full session (password and second factor).
  app.use((req: Request, res: Response, next: NextFunction) => {
    const viewer = res.locals.viewer as SessionViewer | undefined;
    if (viewer?.complete) return next();
    const target = req.method === 'GET' ? `?next=${encodeURIComponent(req.originalUrl)}` : '';
    res.redirect(303, viewer ? `/sign-in/code${target}` : `/sign-in${target}`);
  });

  app.get('/', async (_req, res) => {
    const session = res.locals.viewer as SessionViewer;
    const viewer = viewerOf(session);
    const accounts = session.isOperator
      ? (await listAccounts(db, 500)).map((a) => ({
          account_id: a.id,
          account_name: a.name,
          role: 'operator',
        }))
      : await listMemberships(db, session.userId);
    if (accounts.length === 1 && !session.isOperator)
      return void res.redirect(303, `/accounts/${accounts[0]!.account_id}`);
    res.type('html').send(
      page({
        title: 'Your accounts',
        viewer,
        body: accounts.length
          ? html`<table>
              <thead>
                <tr>
                  <th scope="col">Account</th>
                  <th scope="col">Your role</th>
                </tr>
              </thead>
              <tbody>
                ${accounts.map(
                  (a) =>
                    html`<tr>
                      <td><a href="/accounts/${a.account_id}">${a.account_name}</a></td>
                      <td>${a.role}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>You belong to no account yet. Ask an account's owner to invite you.</p>`,
      }).value,
    );
  });

  const account = express.Router({ mergeParams: true });
  account.use(accountAccess(ctx));
  account.use('/dashboards', dashboardsRoutes(ctx));
  account.use('/keys', keysRoutes(ctx));
  account.use('/settings', settingsRoutes(ctx));
  account.use('/campaigns', campaignsRoutes(ctx));
  account.use('/webhooks', webhooksRoutes(ctx));
  account.use(activityRoutes(ctx));
  account.use(peopleRoutes(ctx));
  account.use(integrationsRoutes(ctx));
  app.use('/accounts/:accountId', account);
  app.use(recoveryRoutes(ctx));

  app.use((_req, res) => {
    const session = res.locals.viewer as SessionViewer | undefined;
    res
      .status(404)
      .type('html')
      .send(notFoundPage(session ? viewerOf(session) : undefined).value);
  });
  // An unexpected failure: a plain page, and a log line with the error's kind (no request data).
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: number }).status;
    if (status && status >= 400 && status < 500)
      return void res.status(status).type('text').send('Bad request');
    deps.logger.error('console_error', { error: err instanceof Error ? err.message : String(err) });
    res
      .status(500)
      .type('html')
      .send(
        page({
          title: 'Something went wrong',
          body: html`<p>The console could not answer. Try again in a moment.</p>`,
        }).value,
      );
  });
  return app;
}
