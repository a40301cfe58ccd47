// Webhook subscriptions: the list, each one's deliveries with their attempts, and a redelivery of a
// failed one (the dispatcher's own tables and the CLI's `holdfast webhooks redeliver`). Creating a
// subscription and rotating its secret are the read API's (webhook management), not this page's.
import { Router, type Response } from 'express';
import {
  ControlPlaneError,
  listDeliveries,
  listWebhookSubscriptions,
  recordAudit,
  redeliver,
} from '@holdfast/db';
import type { ConsoleContext } from '../context.js';
import { html, when } from '../html.js';
import { csrfField, notice } from '../pages/layout.js';
import { can } from '../permissions.js';
import {
  accountOf,
  formField,
  isUuid,
  missingTable,
  notFoundPage,
  requireAction,
  sendAccountPage,
} from './account-access.js';

export function webhooksRoutes(ctx: ConsoleContext): Router {
  const r = Router({ mergeParams: true });

  r.get('/', async (_req, res) => {
    const { account } = accountOf(res);
    const subs = await listWebhookSubscriptions(ctx.db, account.id);
    const body = html` <p>
        Holdfast signs every event it sends to these URLs (Standard Webhooks) and retries failures.
      </p>
      ${
        subs.length
          ? html`<table>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">State</th>
                  <th scope="col">Created</th>
                  <th scope="col">Deliveries</th>
                </tr>
              </thead>
              <tbody>
                ${subs.map(
                  (s) =>
                    html`<tr>
                      <td><code>${s.url}</code></td>
                      <td>${s.disabled_at ? 'disabled' : 'active'}</td>
                      <td>${when(s.created_at)}</td>
                      <td><a href="/accounts/${account.id}/webhooks/${s.id}">Deliveries</a></td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>No subscription yet.</p>`
      }`;
    sendAccountPage(ctx, res, { title: 'Webhooks', active: 'webhooks', body });
  });

  /** The subscription of this account named in the URL, or 404. */
  async function ownSubscription(res: Response, id: string) {
    const { viewer, account } = accountOf(res);
    const sub = isUuid(id)
      ? (await listWebhookSubscriptions(ctx.db, account.id)).find((s) => s.id === id)
      : undefined;
    if (!sub) res.status(404).type('html').send(notFoundPage(viewer).value);
    return sub;
  }

  async function renderDeliveries(
    res: Response,
    subId: string,
    extra: { ok?: string; error?: string; status?: number } = {},
  ) {
    const { viewer, account } = accountOf(res);
    const sub = await ownSubscription(res, subId);
    if (!sub) return;
    let deliveries: Awaited<ReturnType<typeof listDeliveries>>;
    try {
      deliveries = await listDeliveries(ctx.db, sub.id, { limit: 50 });
    } catch (err) {
      if (!missingTable(err)) throw err;
      deliveries = [];
    }
    const manage = can(account.role, 'webhooks.manage');
    const body = html`${notice('ok', extra.ok)}${notice('error', extra.error)}
      <p>
        Subscription <code>${sub.url}</code>, ${sub.disabled_at ? 'disabled' : 'active'}. The 50 latest
        deliveries, newest first.
      </p>
      ${
        deliveries.length
          ? html`<table>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Created</th>
                  ${manage ? html`<th scope="col">Action</th>` : ''}
                </tr>
              </thead>
              <tbody>
                ${deliveries.map(
                  (d) =>
                    html`<tr>
                      <td>${d.event}<br /><code class="muted">${d.delivery_id}</code></td>
                      <td>${d.status}${d.last_status_code ? html` (HTTP ${d.last_status_code})` : ''}</td>
                      <td>
                        ${
                          d.attempt_log.length
                            ? html`<ol>
                                ${d.attempt_log.map((a) => html`<li>${when(a.attempted_at)}: ${a.succeeded ? 'ok' : 'failed'}${a.status_code ? html`, HTTP ${a.status_code}` : ''}${a.error ? html`, ${a.error}` : ''} (${a.duration_ms} ms)</li>`)}
                              </ol>`
                            : d.attempts
                        }
                      </td>
                      <td>${when(d.created_at)}</td>
                      ${manage ? html`<td>${d.status === 'failed' ? html`<form method="post" action="/accounts/${account.id}/webhooks/${sub.id}/redeliver" class="inline">${csrfField(viewer)}<input type="hidden" name="delivery" value="${d.delivery_id}" /><button type="submit" class="secondary">Redeliver</button></form>` : ''}</td>` : ''}
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>No delivery yet.</p>`
      }
      <p><a href="/accounts/${account.id}/webhooks">All subscriptions</a></p>`;
    sendAccountPage(ctx, res, {
      title: 'Webhook deliveries',
      active: 'webhooks',
      body,
      status: extra.status,
    });
  }

  r.get('/:subId', (req, res) => renderDeliveries(res, req.params.subId));

  r.post('/:subId/redeliver', requireAction('webhooks.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const sub = await ownSubscription(res, req.params.subId as string);
    if (!sub) return;
    const deliveryId = formField(req, 'delivery');
    try {
      const ids = await redeliver(
        ctx.db,
        { subscriptionId: sub.id, deliveryId: deliveryId || undefined },
        ctx.now(),
      );
      await recordAudit(ctx.db, {
        accountId: account.id,
        actorUserId: viewer.userId,
        action: 'webhook.redeliver',
        target: sub.id,
        detail: { deliveries: ids },
      });
      await renderDeliveries(res, sub.id, { ok: `Scheduled ${ids.length} delivery(ies) again.` });
    } catch (err) {
      if (err instanceof ControlPlaneError)
        return renderDeliveries(res, sub.id, { error: err.message, status: 404 });
      throw err;
    }
  });

  return r;
}
