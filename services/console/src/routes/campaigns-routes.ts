// Campaign types: which the account sends (all off by default), the frequency cap across them, and
// the sandbox flag (sends simulated and recorded, never sent). The CLI's functions, audited.
import { Router, type Response } from 'express';
import { ControlPlaneError, markAccount, recordAudit } from '@holdfast/control-plane';
import { readCampaignSettings, setCampaignTypeEnabled, setFrequencyCap } from '@holdfast/campaign-store';
import { CAMPAIGN_TYPES, DEFAULT_FREQUENCY_CAP, isCampaignType } from '@holdfast/domain';
import type { ConsoleContext } from '../context.js';
import { html, when } from '../html.js';
import { csrfField, notice } from '../pages/layout.js';
import { can } from '../permissions.js';
import { accountOf, formField, missingTable, requireAction, sendAccountPage } from './account-access.js';

const TYPE_TEXT: Readonly<Record<string, string>> = {
  win_back: 'Win-back: customers drifting away get an offer to return.',
  replenishment: 'Replenishment: a reminder when a consumable is due to run out.',
  vip: 'VIP: recognition for the most valuable customers.',
};

/** A frequency cap the page accepts: 1–20 messages per 1–90 days. */
export function parseFrequencyCap(messages: string, days: string): { messages: number; days: number } | null {
  const m = Number(messages);
  const d = Number(days);
  if (!Number.isInteger(m) || !Number.isInteger(d) || m < 1 || m > 20 || d < 1 || d > 90) return null;
  return { messages: m, days: d };
}

export function campaignsRoutes(ctx: ConsoleContext): Router {
  const r = Router({ mergeParams: true });

  async function render(res: Response, extra: { error?: string; status?: number } = {}) {
    const { viewer, account } = accountOf(res);
    let stored;
    try {
      stored = await readCampaignSettings(ctx.pool, account.id);
    } catch (err) {
      if (!missingTable(err)) throw err;
      return sendAccountPage(ctx, res, {
        title: 'Campaigns',
        active: 'campaigns',
        body: html`<p>
          The campaign tables do not exist yet: the recompute service creates them when it first starts.
        </p>`,
      });
    }
    const cap = stored.frequencyCap ?? DEFAULT_FREQUENCY_CAP;
    const manage = can(account.role, 'campaigns.manage');
    const body = html` ${notice('error', extra.error)}
      <p>
        ${account.isSandbox ? html`<strong>Sandbox account:</strong> sends are simulated and recorded, never sent.` : 'Live account: enabled campaigns send real messages.'}
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Campaign</th>
            <th scope="col">State</th>
            <th scope="col">Changed</th>
            ${manage ? html`<th scope="col">Action</th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${CAMPAIGN_TYPES.map((type) => {
            const row = stored.types.find((t) => t.campaignType === type);
            const on = row?.enabled === true;
            return html`<tr>
              <td><strong>${type}</strong><br /><span class="muted">${TYPE_TEXT[type] ?? ''}</span></td>
              <td>${on ? 'enabled' : 'off'}</td>
              <td>${when(row?.changedAt)}</td>
              ${
                manage
                  ? html`<td>
                      <form
                        method="post"
                        action="/accounts/${account.id}/campaigns/${type}/${on ? 'disable' : 'enable'}"
                        class="inline"
                      >
                        ${csrfField(viewer)}<button type="submit" ${on ? html` class="secondary"` : ''}>
                          ${on ? 'Disable' : 'Enable'} ${type}
                        </button>
                      </form>
                    </td>`
                  : ''
              }
            </tr>`;
          })}
        </tbody>
      </table>
      <h2>Frequency cap</h2>
      <p>
        At most <strong>${cap.messages}</strong> message(s) per customer per
        <strong>${cap.days}</strong> day(s), all campaign types together.
      </p>
      ${
        manage
          ? html`<form method="post" action="/accounts/${account.id}/campaigns/cap" class="stack">
                ${csrfField(viewer)} <label for="cap-messages">Messages</label
                ><input
                  id="cap-messages"
                  name="messages"
                  type="number"
                  min="1"
                  max="20"
                  value="${cap.messages}"
                  required
                />
                <label for="cap-days">Per days</label
                ><input
                  id="cap-days"
                  name="days"
                  type="number"
                  min="1"
                  max="90"
                  value="${cap.days}"
                  required
                />
                <button type="submit">Save cap</button>
              </form>
              <h2>Sandbox</h2>
              <form method="post" action="/accounts/${account.id}/campaigns/sandbox" class="inline">
                ${csrfField(viewer)}
                <input type="hidden" name="sandbox" value="${account.isSandbox ? 'off' : 'on'}" />
                <button type="submit" class="secondary">
                  ${account.isSandbox ? 'Leave sandbox' : 'Make this a sandbox account'}
                </button>
              </form>
              <p class="muted">
                A sandbox takes tk_test_ keys only, a live account tk_live_ only: revoke the other kind first.
              </p>`
          : ''
      }`;
    sendAccountPage(ctx, res, { title: 'Campaigns', active: 'campaigns', body, status: extra.status });
  }

  r.get('/', (_req, res) => render(res));

  r.post('/cap', requireAction('campaigns.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const cap = parseFrequencyCap(formField(req, 'messages'), formField(req, 'days'));
    if (!cap) return render(res, { error: 'A cap is 1 to 20 messages per 1 to 90 days.', status: 400 });
    await setFrequencyCap(ctx.pool, account.id, cap);
    await recordAudit(ctx.db, {
      accountId: account.id,
      actorUserId: viewer.userId,
      action: 'campaign.frequency_cap',
      detail: cap,
    });
    res.redirect(303, `/accounts/${account.id}/campaigns`);
  });

  r.post('/sandbox', requireAction('campaigns.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const on = formField(req, 'sandbox') === 'on';
    try {
      await markAccount(ctx.db, account.id, { isSandbox: on }, ctx.now());
    } catch (err) {
      if (err instanceof ControlPlaneError) {
        return render(res, { error: err.message, status: 409 });
      }
      throw err;
    }
    await recordAudit(ctx.db, {
      accountId: account.id,
      actorUserId: viewer.userId,
      action: on ? 'account.sandbox_on' : 'account.sandbox_off',
    });
    res.redirect(303, `/accounts/${account.id}/campaigns`);
  });

  r.post('/:type/:change', requireAction('campaigns.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const type = req.params.type as string;
    const change = req.params.change as string;
    if (!isCampaignType(type) || (change !== 'enable' && change !== 'disable'))
      return render(res, { error: 'No such campaign type.', status: 404 });
    await setCampaignTypeEnabled(ctx.pool, account.id, type, change === 'enable');
    await recordAudit(ctx.db, {
      accountId: account.id,
      actorUserId: viewer.userId,
      action: `campaign.${change}`,
      target: type,
    });
    res.redirect(303, `/accounts/${account.id}/campaigns`);
  });

  return r;
}
