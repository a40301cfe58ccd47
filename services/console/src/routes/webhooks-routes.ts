// Webhook subscriptions: create one (choosing its event types; the signing secret shown once),
// rotate its secret with a grace window, remove it; each one's deliveries with their attempts, and a
// redelivery of a failed one. The same @holdfast/control-plane and @holdfast/webhook-deliveries
// functions as /v1/webhooks and the CLI (createWebhookSubscription, rotateWebhookSecret,
// disableWebhookSubscription, redeliver), the secrets sealed to the dispatcher's public key
// (HOLDFAST_WEBHOOK_SEAL_KEY): the console can mint a secret, never open one.
import { Router, type Request, type Response } from 'express';
import {
  ControlPlaneError,
  createWebhookSubscription,
  disableWebhookSubscription,
  listWebhookSubscriptions,
  recordAudit,
  rotateWebhookSecret,
} from '@holdfast/control-plane';
import { listDeliveries, redeliver } from '@holdfast/webhook-deliveries';
import { DEFAULT_WEBHOOK_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from '@holdfast/domain';
import type { ConsoleContext } from '../context.js';
import { html, when, type Html } from '../html.js';
import { csrfField, notice } from '../pages/layout.js';
import { can } from '../permissions.js';
import { parseWebhookForm } from '../webhook-form.js';
import { GRACE_CHOICES } from './keys-routes.js';
import {
  accountOf,
  formField,
  isUuid,
  missingTable,
  notFoundPage,
  requireAction,
  sendAccountPage,
} from './account-access.js';

/** What each event type means, beside its box on the create form. */
const EVENT_TEXT: Readonly<Record<(typeof WEBHOOK_EVENT_TYPES)[number], string>> = {
  'campaign.sent': 'a campaign message went out',
  'customer.churned': 'a customer moved into Lapsed',
  'recovery.attributed': 'an order was attributed to a campaign',
  'lift.proven': 'a month\u2019s lift became significant',
  'sync.completed': 'a recompute finished',
};

/** Said instead of the forms when the console has no key to seal secrets to. */
const NOT_SEALABLE =
  'Subscriptions cannot be created nor their secrets rotated from this console: HOLDFAST_WEBHOOK_SEAL_KEY is not set (holdfast secrets webhook-seal-key).';

/** Every value of a repeated form field (checkboxes). */
function formList(req: Request, name: string): string[] {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export function webhooksRoutes(ctx: ConsoleContext): Router {
  const r = Router({ mergeParams: true });
  const sealer = ctx.config.webhookSealKey;

  function shownOnce(secret: string, what: string): Html {
    return html`<div class="notice ok" role="status">
      <p>
        <strong>${what}</strong> Copy the signing secret into your receiver now: it is shown this once and
        cannot be shown again.
      </p>
      <code class="secret" id="new-secret">${secret}</code>
      <button type="button" class="secondary" data-copy="new-secret">Copy</button>
    </div>`;
  }

  async function render(
    res: Response,
    extra: {
      shown?: Html;
      error?: string | Html;
      status?: number;
      url?: string;
      types?: readonly string[];
    } = {},
  ) {
    const { viewer, account } = accountOf(res);
    const subs = await listWebhookSubscriptions(ctx.db, account.id);
    const manage = can(account.role, 'webhooks.manage');
    const checked = new Set(extra.types ?? DEFAULT_WEBHOOK_EVENT_TYPES);
    const body = html`${extra.shown ?? ''}${notice('error', extra.error)}
      <p>Holdfast signs every event it sends to these URLs (Standard Webhooks) and retries failures.</p>
      ${
        subs.length
          ? html`<table>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">State</th>
                  <th scope="col">Created</th>
                  <th scope="col">Deliveries</th>
                  ${manage ? html`<th scope="col">Action</th>` : ''}
                </tr>
              </thead>
              <tbody>
                ${subs.map(
                  (s) =>
                    html`<tr>
                      <td><code>${s.url}</code></td>
                      <td>${s.event_types.join(', ')}</td>
                      <td>${s.disabled_at ? 'removed' : 'active'}</td>
                      <td>${when(s.created_at)}</td>
                      <td><a href="/accounts/${account.id}/webhooks/${s.id}">Deliveries</a></td>
                      ${
                        manage
                          ? html`<td>
                              ${
                                !s.disabled_at && sealer
                                  ? html`<form
                                      method="post"
                                      action="/accounts/${account.id}/webhooks/${s.id}/rotate"
                                      class="inline"
                                    >
                                      ${csrfField(viewer)}
                                      <label for="grace-${s.id}">Old secret signs</label>
                                      <select id="grace-${s.id}" name="grace">
                                        ${GRACE_CHOICES.map(([sec, l]) => html`<option value="${sec}" ${sec === 86_400 ? html` selected` : ''}>${l.replace('the old key', 'the old secret')}</option>`)}
                                      </select>
                                      <button type="submit" class="secondary">Rotate secret</button>
                                    </form>`
                                  : ''
                              }
                              ${
                                s.disabled_at
                                  ? ''
                                  : html`<form
                                      method="post"
                                      action="/accounts/${account.id}/webhooks/${s.id}/remove"
                                      class="inline"
                                      data-confirm="Remove the subscription to ${s.url}? No more events are sent to it."
                                    >
                                      ${csrfField(viewer)}
                                      <button type="submit" class="danger">Remove</button>
                                    </form>`
                              }
                            </td>`
                          : ''
                      }
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>No subscription yet.</p>`
      }
      ${
        manage
          ? sealer
            ? html`<h2>New subscription</h2>
                <form method="post" action="/accounts/${account.id}/webhooks" class="stack">
                  ${csrfField(viewer)}
                  <label for="webhook-url">URL</label>
                  <input
                    id="webhook-url"
                    name="url"
                    type="url"
                    required
                    maxlength="2048"
                    placeholder="https://shop.example/holdfast-events"
                    value="${extra.url ?? ''}"
                  />
                  <fieldset>
                    <legend>Events to send</legend>
                    ${WEBHOOK_EVENT_TYPES.map(
                      (t) =>
                        html`<div>
                          <input
                            type="checkbox"
                            id="event-${t}"
                            name="event_types"
                            value="${t}"
                            ${checked.has(t) ? html` checked` : ''}
                          />
                          <label for="event-${t}">${t}</label> <span class="muted">${EVENT_TEXT[t]}</span>
                        </div>`,
                    )}
                  </fieldset>
                  <button type="submit">Create subscription</button>
                </form>`
            : html`<p class="muted">${NOT_SEALABLE}</p>`
          : ''
      }`;
    sendAccountPage(ctx, res, { title: 'Webhooks', active: 'webhooks', body, status: extra.status });
  }

  r.get('/', (_req, res) => render(res));

  r.post('/', requireAction('webhooks.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const url = formField(req, 'url');
    const types = formList(req, 'event_types');
    if (!sealer) return render(res, { error: NOT_SEALABLE, status: 503 });
    const form = parseWebhookForm({ url, eventTypes: types }, ctx.config.outbound);
    if (!form.ok)
      return render(res, {
        error: html`${form.problems.map((p) => html`<p>${p}</p>`)}`,
        status: 400,
        url,
        types,
      });
    const created = await createWebhookSubscription(ctx.db, account.id, form.url, sealer, form.eventTypes);
    await recordAudit(ctx.db, {
      accountId: account.id,
      actorUserId: viewer.userId,
      action: 'webhook.create',
      target: created.id,
      // The URL is the merchant's own endpoint, not a person's data; the secret never.
      detail: { url: form.url, event_types: created.event_types },
    });
    await render(res, {
      shown: shownOnce(created.secret, `Subscription created for ${form.url}.`),
    });
  });

  r.post('/:subId/rotate', requireAction('webhooks.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const sub = await ownSubscription(res, req.params.subId as string);
    if (!sub) return;
    if (!sealer) return render(res, { error: NOT_SEALABLE, status: 503 });
    const grace = Number(formField(req, 'grace'));
    if (!GRACE_CHOICES.some(([s]) => s === grace))
      return render(res, { error: 'Choose how long the old secret keeps signing.', status: 400 });
    try {
      const rotated = await rotateWebhookSecret(ctx.db, sub.id, grace, sealer, ctx.now(), account.id);
      await recordAudit(ctx.db, {
        accountId: account.id,
        actorUserId: viewer.userId,
        action: 'webhook.rotate_secret',
        target: sub.id,
        detail: { grace_seconds: grace, previous_expires_at: rotated.previousExpiresAt.toISOString() },
      });
      await render(res, {
        shown: shownOnce(
          rotated.secret,
          `New signing secret for ${sub.url}; the previous one also signs until ${rotated.previousExpiresAt.toISOString()}.`,
        ),
      });
    } catch (err) {
      if (err instanceof ControlPlaneError && err.code === 'not_found')
        return render(res, {
          error: 'This subscription was removed: its secret cannot be rotated.',
          status: 409,
        });
      throw err;
    }
  });

  r.post('/:subId/remove', requireAction('webhooks.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const sub = await ownSubscription(res, req.params.subId as string);
    if (!sub) return;
    try {
      await disableWebhookSubscription(ctx.db, sub.id, ctx.now(), account.id);
    } catch (err) {
      if (!(err instanceof ControlPlaneError && err.code === 'not_found')) throw err;
      return render(res, { error: 'This subscription was already removed.', status: 409 });
    }
    await recordAudit(ctx.db, {
      accountId: account.id,
      actorUserId: viewer.userId,
      action: 'webhook.remove',
      target: sub.id,
      detail: { url: sub.url },
    });
    await render(res);
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
