// Store settings: the storefront domain (every call-to-action is built on it), the store's timezone
// (set by the integration through PATCH /ingest/account, shown here) and the reporting currency
// (changed with the CLI's own function, setReportingCurrency, which re-converts the orders).
import { Router, type Response } from 'express';
import {
  ControlPlaneError,
  readReportingCurrency,
  recordAudit,
  setStorefrontDomain,
  type FxTables,
} from '@holdfast/db';
import { FxInputError, readStoreTimezone, setReportingCurrency } from '@holdfast/read-models';
import type { Kysely } from 'kysely';
import type { ConsoleContext } from '../context.js';
import { html } from '../html.js';
import { csrfField, notice } from '../pages/layout.js';
import { can } from '../permissions.js';
import { accountOf, formField, missingTable, requireAction, sendAccountPage } from './account-access.js';

export function settingsRoutes(ctx: ConsoleContext): Router {
  const r = Router({ mergeParams: true });
  const fx = ctx.db as unknown as Kysely<FxTables>;

  async function render(res: Response, extra: { ok?: string; error?: string; status?: number } = {}) {
    const { viewer, account } = accountOf(res);
    const [timezone, currency] = await Promise.all([
      readStoreTimezone(ctx.readModels, account.id).catch((err: unknown) => {
        if (missingTable(err)) return undefined;
        throw err;
      }),
      readReportingCurrency(fx, account.id),
    ]);
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
      <p><strong>${timezone ?? 'not set (UTC is assumed)'}</strong></p>
      <p class="muted">
        Your integration sets it with <code>PATCH /ingest/account</code> and
        <code>{"store_timezone": "Europe/Paris"}</code>; it is the store's own clock, so it travels with its
        data.
      </p>
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
