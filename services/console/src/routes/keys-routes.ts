// Ingest keys (and read keys): mint with the key shown once, rotate with a grace window, revoke.
// The same control-plane functions as `holdfast keys`, so the 10-key limit, the sandbox rule and the
// rotation rules are the CLI's exactly; every change is in the audit log.
import { Router, type Response } from 'express';
import {
  ControlPlaneError,
  describeApiKey,
  listApiKeys,
  MAX_LIVE_INGEST_KEYS,
  mintApiKey,
  recordAudit,
  revokeApiKey,
  rotateApiKey,
} from '@holdfast/control-plane';
import type { ApiKeyKind } from '@holdfast/postgres';
import type { ConsoleContext } from '../context.js';
import { html, when, type Html } from '../html.js';
import { csrfField, notice } from '../pages/layout.js';
import { can } from '../permissions.js';
import {
  accountOf,
  formField,
  isUuid,
  notFoundPage,
  requireAction,
  sendAccountPage,
} from './account-access.js';

/** The grace windows a rotation offers (seconds). */
export const GRACE_CHOICES: ReadonlyArray<readonly [seconds: number, label: string]> = [
  [0, 'none: the old key stops now'],
  [3600, '1 hour'],
  [86_400, '24 hours'],
  [604_800, '7 days'],
];

const KIND_LABEL: Readonly<Record<ApiKeyKind, string>> = {
  ingest_live: 'ingest (live)',
  ingest_test: 'ingest (sandbox)',
  read_live: 'read',
  outbound: 'outbound',
};

/** The words shown when the 10-key limit is hit: what it is, why, and what to do. */
export function keyLimitExplanation(kind: 'ingest' | 'read'): string {
  return (
    `This account already has ${MAX_LIVE_INGEST_KEYS} working ${kind} keys, the most an account may hold. ` +
    'A key rotated with a grace window still works until the window ends, so it counts too. ' +
    'Revoke a key you no longer use (or wait for a rotation\u2019s grace window to end), then mint again.'
  );
}

export function keysRoutes(ctx: ConsoleContext): Router {
  const r = Router({ mergeParams: true });

  async function render(res: Response, extra: { shown?: Html; error?: string; status?: number } = {}) {
    const { viewer, account } = accountOf(res);
    const keys = (await listApiKeys(ctx.db, account.id, ctx.now())).filter((k) => k.kind !== 'outbound');
    const manage = can(account.role, 'keys.manage');
    const live = keys.filter(
      (k) => k.kind !== 'read_live' && (k.status === 'live' || k.status === 'expiring'),
    );
    const ingestKind: ApiKeyKind = account.isSandbox ? 'ingest_test' : 'ingest_live';
    const body = html` ${notice('error', extra.error)} ${extra.shown ?? ''}
      <p>
        Ingest keys authenticate your integration against the ingest
        API${ctx.config.gatewayUrl ? html` (<code>${ctx.config.gatewayUrl}</code>)` : ''}. A key is shown
        once, when it is minted; Holdfast keeps only its hash. ${live.length} of ${MAX_LIVE_INGEST_KEYS}
        working ingest keys in use.
      </p>
      ${
        manage
          ? html`<form method="post" action="/accounts/${account.id}/keys/mint" class="inline">
                ${csrfField(viewer)}
                <input type="hidden" name="kind" value="${ingestKind}" />
                <button type="submit">Mint an ingest key</button>
              </form>
              <form method="post" action="/accounts/${account.id}/keys/mint" class="inline">
                ${csrfField(viewer)}
                <input type="hidden" name="kind" value="read_live" />
                <button type="submit" class="secondary">Mint a read key</button>
              </form>`
          : html`<p class="muted">Your role (${account.role}) can see keys but not change them.</p>`
      }
      <table>
        <caption class="muted">
          Keys of ${account.name}
        </caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Kind</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            ${manage ? html`<th scope="col">Actions</th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${keys.map(
            (k) =>
              html`<tr>
                <td><code>${k.prefix}…</code></td>
                <td>${KIND_LABEL[k.kind]}</td>
                <td>
                  ${k.status}${k.status === 'expiring' && k.expires_at ? html` until ${when(k.expires_at)}` : ''}
                </td>
                <td>${when(k.created_at)}</td>
                <td>${when(k.last_used_at)}</td>
                ${
                  manage
                    ? html`<td>
                        ${
                          k.status === 'live'
                            ? html`<form
                                method="post"
                                action="/accounts/${account.id}/keys/${k.id}/rotate"
                                class="inline"
                              >
                                ${csrfField(viewer)}
                                <label for="grace-${k.id}">Grace</label>
                                <select id="grace-${k.id}" name="grace">
                                  ${GRACE_CHOICES.map(([s, l]) => html`<option value="${s}" ${s === 86_400 ? html` selected` : ''}>${l}</option>`)}
                                </select>
                                <button type="submit" class="secondary">Rotate</button>
                              </form>`
                            : ''
                        }
                        ${
                          k.status === 'live' || k.status === 'expiring'
                            ? html`<form
                                method="post"
                                action="/accounts/${account.id}/keys/${k.id}/revoke"
                                class="inline"
                                data-confirm="Revoke ${k.prefix}…? Calls with it are refused within a second."
                              >
                                ${csrfField(viewer)} <button type="submit" class="danger">Revoke</button>
                              </form>`
                            : ''
                        }
                      </td>`
                    : ''
                }
              </tr>`,
          )}
        </tbody>
      </table>`;
    sendAccountPage(ctx, res, { title: 'Ingest keys', active: 'keys', body, status: extra.status });
  }

  function shownOnce(key: string, what: string): Html {
    return html`<div class="notice ok" role="status">
      <p><strong>${what}</strong> Copy it now: it is shown this once and cannot be shown again.</p>
      <code class="secret" id="new-key">${key}</code>
      <button type="button" class="secondary" data-copy="new-key">Copy</button>
    </div>`;
  }

  /** The key of this account named in the URL, or a 404 (another account's key id is not found). */
  async function ownKey(res: Response, keyId: string) {
    const { viewer, account } = accountOf(res);
    const key = isUuid(keyId) ? await describeApiKey(ctx.db, keyId).catch(() => undefined) : undefined;
    if (!key || key.account_id !== account.id || key.kind === 'outbound') {
      res.status(404).type('html').send(notFoundPage(viewer).value);
      return undefined;
    }
    return key;
  }

  r.get('/', (_req, res) => render(res));

  r.post('/mint', requireAction('keys.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const kind = formField(req, 'kind');
    if (kind !== 'ingest_live' && kind !== 'ingest_test' && kind !== 'read_live')
      return render(res, { error: 'Choose an ingest key or a read key.', status: 400 });
    try {
      const minted = await mintApiKey(ctx.db, account.id, kind, ctx.now());
      await recordAudit(ctx.db, {
        accountId: account.id,
        actorUserId: viewer.userId,
        action: 'key.mint',
        target: minted.id,
        detail: { kind, prefix: minted.prefix },
      });
      await render(res, { shown: shownOnce(minted.key, `New ${KIND_LABEL[kind]} key ${minted.prefix}….`) });
    } catch (err) {
      if (err instanceof ControlPlaneError && err.code === 'limit')
        return render(res, {
          error: keyLimitExplanation(kind === 'read_live' ? 'read' : 'ingest'),
          status: 409,
        });
      if (err instanceof ControlPlaneError) return render(res, { error: err.message, status: 400 });
      throw err;
    }
  });

  r.post('/:keyId/rotate', requireAction('keys.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const key = await ownKey(res, req.params.keyId as string);
    if (!key) return;
    const grace = Number(formField(req, 'grace'));
    if (!GRACE_CHOICES.some(([s]) => s === grace))
      return render(res, { error: 'Choose a grace window.', status: 400 });
    try {
      const rotated = await rotateApiKey(ctx.db, key.id, grace, ctx.now());
      await recordAudit(ctx.db, {
        accountId: account.id,
        actorUserId: viewer.userId,
        action: 'key.rotate',
        target: key.id,
        detail: { successor: rotated.id, grace_seconds: grace, prefix: rotated.prefix },
      });
      await render(res, {
        shown: shownOnce(
          rotated.key,
          `Rotated ${key.prefix}…: its successor is ${rotated.prefix}…; the old key works until ${when(rotated.oldKeyExpiresAt)}.`,
        ),
      });
    } catch (err) {
      if (err instanceof ControlPlaneError && err.code === 'limit')
        return render(res, {
          error: `${keyLimitExplanation(key.kind === 'read_live' ? 'read' : 'ingest')} A rotation keeps the old key during its grace window, so both count: rotate with no grace, or revoke another key first.`,
          status: 409,
        });
      if (err instanceof ControlPlaneError) return render(res, { error: err.message, status: 409 });
      throw err;
    }
  });

  r.post('/:keyId/revoke', requireAction('keys.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const key = await ownKey(res, req.params.keyId as string);
    if (!key) return;
    try {
      await revokeApiKey(ctx.db, key.id, ctx.now());
    } catch (err) {
      if (err instanceof ControlPlaneError)
        return render(res, { error: 'That key is already revoked.', status: 409 });
      throw err;
    }
    await recordAudit(ctx.db, {
      accountId: account.id,
      actorUserId: viewer.userId,
      action: 'key.revoke',
      target: key.id,
      detail: { prefix: key.prefix },
    });
    res.redirect(303, `/accounts/${account.id}/keys`);
  });

  return r;
}
