// Store settings: the storefront domain (every call-to-action is built on it), the store's timezone
// (an AccountSettingsChanged event, as PATCH /ingest/account appends it: queued in the settings
// outbox with its audit entry, appended by the gateway's relay, folded by the projector) and the
// reporting currency (changed with the CLI's own function, setReportingCurrency, which re-converts
// the orders).
import { Router, type Response } from 'express';
import {
  ControlPlaneError,
  pendingTimezoneChanges,
  queueTimezoneChange,
  recordAudit,
  setStorefrontDomain,
} from '@holdfast/control-plane';
import {
  readReportingCurrency,
  type FxTables,
  FxInputError,
  readStoreTimezone,
  setReportingCurrency,
} from '@holdfast/read-models';
import { validateAccountSettings } from '@holdfast/domain';
import type { Kysely } from 'kysely';
import type { ConsoleContext } from '../context.js';
import { html, when } from '../html.js';
import { csrfField, notice } from '../pages/layout.js';
import { can } from '../permissions.js';
import { accountOf, formField, missingTable, requireAction, sendAccountPage } from './account-access.js';

export function settingsRoutes(ctx: ConsoleContext): Router {
  const r = Router({ mergeParams: true });
  const fx = ctx.db as unknown as Kysely<FxTables>;

  async function render(res: Response, extra: { ok?: string; error?: string; status?: number } = {}) {
    const { viewer, account } = accountOf(res);
    const [timezone, currency, pending] = await Promise.all([
      readStoreTimezone(ctx.readModels, account.id).catch((err: unknown) => {
        if (missingTable(err)) return undefined;
        throw err;
      }),
      readReportingCurrency(fx, account.id),
      pendingTimezoneChanges(ctx.db, account.id),
    ]);
    const queued = pending.at(-1);
    const manage = can(account.role, 'settings.manage');
    const body = html` ${notice('error', extra.error)}${notice('ok', extra.ok)}
      <h2>Storefront domain</h2>
      <p>Every link in a campaign message goes to this domain, with Holdfast's tracking parameters.</p>
      ${
        manage
          ? html`<form method="post" action="/accounts/${account.id}/settings/domain" class="stack">
              ${csrfField(viewer)}
              <label for="domain">Storefront domain</label>
              <input
                id="domain"
                name="domain"
                placeholder="shop.example.com"
                value="${account.storefrontDomain ?? ''}"
              />
              <button type="submit">Save domain</button>
            </form>`
          : html`<p><code>${account.storefrontDomain ?? 'not set'}</code></p>`
      }
      <h2>Timezone</h2>
      <p>
        <strong id="store-timezone">${timezone ?? 'not set (UTC is assumed)'}</strong>${
          queued
            ? html` <span class="muted" id="timezone-pending"
                >(changing to ${queued.store_timezone}, asked ${when(queued.requested_at)}: applied within
                seconds)</span
              >`
            : ''
        }
      </p>
      <p class="muted">
        The store's own clock: local days and months are counted in it. Your integration may also set it with
        <code>PATCH /ingest/account</code> and <code>{"store_timezone": "Europe/Paris"}</code>; the latest
        change wins.
      </p>
      ${
        can(account.role, 'settings.timezone.manage')
          ? html`<form method="post" action="/accounts/${account.id}/settings/timezone" class="stack">
              ${csrfField(viewer)}
              <label for="timezone">Timezone (an IANA name, such as Europe/Paris or America/Chicago)</label>
              <input
                id="timezone"
                name="timezone"
                value="${queued?.store_timezone ?? timezone ?? ''}"
                required
              />
              <button type="submit">Save timezone</button>
            </form>`
          : ''
      }
      <h2>Reporting currency</h2>
      <p class="muted">
        Order amounts are converted into it with the day's reference rate. Changing it re-converts every order
        of the account, so revenue and LTV are shown in the new currency at once.
      </p>
      ${
        can(account.role, 'settings.currency.manage')
          ? html`<form method="post" action="/accounts/${account.id}/settings/currency" class="stack">
              ${csrfField(viewer)}
              <label for="currency"
                >Reporting currency (3-letter code: EUR, or one the reference rates quote)</label
              >
              <input
                id="currency"
                name="currency"
                value="${currency}"
                maxlength="3"
                autocapitalize="characters"
                required
              />
              <button type="submit">Save currency</button>
            </form>`
          : html`<p><strong>${currency}</strong></p>`
      }`;
    sendAccountPage(ctx, res, { title: 'Store settings', active: 'settings', body, status: extra.status });
  }

  r.get('/', (_req, res) => render(res));

  r.post('/domain', requireAction('settings.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const raw = formField(req, 'domain').trim();
    try {
      const value = await setStorefrontDomain(ctx.db, account.id, raw === '' ? null : raw);
      await recordAudit(ctx.db, {
        accountId: account.id,
        actorUserId: viewer.userId,
        action: 'settings.storefront_domain',
        detail: { from: account.storefrontDomain, to: value },
      });
      res.redirect(303, `/accounts/${account.id}/settings`);
    } catch (err) {
      if (err instanceof ControlPlaneError) return render(res, { error: err.message, status: 400 });
      throw err;
    }
  });

  r.post('/timezone', requireAction('settings.timezone.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    // The rule PATCH /ingest/account applies (an IANA name), on the same shape of input.
    const valid = validateAccountSettings({ store_timezone: formField(req, 'timezone').trim() });
    if (!valid.ok)
      return render(res, {
        error: valid.detail.map((d) => d.msg.replace(/^Value error, /, '')).join(' '),
        status: 400,
      });
    const from = await readStoreTimezone(ctx.readModels, account.id).catch((err: unknown) => {
      if (missingTable(err)) return undefined;
      throw err;
    });
    await queueTimezoneChange(
      ctx.db,
      {
        accountId: account.id,
        storeTimezone: valid.settings.store_timezone,
        actorUserId: viewer.userId,
        from: from ?? null,
      },
      ctx.now(),
    );
    res.redirect(303, `/accounts/${account.id}/settings`);
  });

  r.post('/currency', requireAction('settings.currency.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const raw = formField(req, 'currency');
    try {
      const from = await readReportingCurrency(fx, account.id);
      const orders = await setReportingCurrency(ctx.pool, account.id, raw);
      const to = await readReportingCurrency(fx, account.id);
      await recordAudit(ctx.db, {
        accountId: account.id,
        actorUserId: viewer.userId,
        action: 'settings.reporting_currency',
        detail: { from, to, orders_reconverted: orders },
      });
      res.redirect(303, `/accounts/${account.id}/settings`);
    } catch (err) {
      // The CLI's own refusals (not three letters, no rates quote it): nothing was changed.
      if (err instanceof FxInputError) return render(res, { error: err.message, status: 400 });
      throw err;
    }
  });

  return r;
}
