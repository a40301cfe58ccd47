import type { Request, Response } from 'express';

/**
 * The gateway's routes whose path carries a value (an unsubscribe token names a customer; an account
 * or task id is an id, kept out all the same), as the templates that are logged instead.
 */
const PARAMETERISED = ['/unsubscribe/:token', '/providers/sms/:account_id/inbound', '/ingest/sync/:task_id'];

/** Every fixed segment of the gateway's routes: the only segments of a raw path ever logged as sent. */
const KNOWN_SEGMENTS = new Set([
  'ingest',
  'health',
  'orders',
  'customers',
  'account',
  'sync',
  'batches',
  'webhooks',
  'custom-api',
  'zero-party',
  'unsubscribe',
  'providers',
  'sms',
  'inbound',
  'pixel',
  'collect',
  'v1',
  'service-pixel.js',
  'openapi.json',
  'readyz',
  'healthz',
  'metrics',
]);

const segments = (path: string) => path.split('/').slice(1);

/**
 * A request path as it may be logged: the route template when the path is one of the gateway's
 * parameterised routes (`/unsubscribe/<token>` → `/unsubscribe/:token`), else the path with every
 * segment that is not a fixed segment of some gateway route replaced by `:redacted`. The query and
 * fragment are dropped. A path may carry a token, an email or a customer's id in any segment a client
 * chose, so only words the gateway itself defines survive.
 *
 * @example
 * redactPath('/unsubscribe/v1.abc.def?x=1'); // '/unsubscribe/:token'
 * redactPath('/ingest/customers/jane@example.com'); // '/ingest/customers/:redacted'
 */
export function redactPath(path: string): string {
  const bare = path.split(/[?#]/, 1)[0] ?? '';
  if (!bare.startsWith('/')) return bare === '' ? '' : ':redacted';
  const sent = segments(bare);
  const template = PARAMETERISED.find((t) => {
    const parts = segments(t);
    return parts.length === sent.length && parts.every((p, i) => p.startsWith(':') || p === sent[i]);
  });
  if (template) return template;
  return '/' + sent.map((s) => (s === '' || KNOWN_SEGMENTS.has(s) ? s : ':redacted')).join('/');
}

/**
 * What a log line names a request by: the matched route template (mount point noted by `noteMount`
 * plus the route's path), the mount point and `/*` when no route of it matched, else the redacted raw
 * path (`redactPath`). Never the raw path or query.
 */
export function loggedRoute(req: Pick<Request, 'route' | 'path'>, res: Pick<Response, 'locals'>): string {
  // The mount point is noted on the way in (noteMount): req.baseUrl is reset when an error leaves a router.
  const mount = (res.locals.mount as string | undefined) ?? '';
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return `${mount}${path}`;
  return mount ? `${mount}/*` : redactPath(req.path);
}
