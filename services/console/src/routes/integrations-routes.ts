// The account's integrations, as the spec's tiles: the custom integration (not connected, awaiting
// setup until its first POST /webhooks/custom-api, connected), zero-party, the pixel keys with their
// origins, and the email and SMS providers. Tokens are shown once, like keys.
import { Router, type Response } from 'express';
import {
  addPixelOrigin,
  connectTile,
  ControlPlaneError,
  createPixelKey,
  describePixelKey,
  disconnectTile,
  listPixelKeys,
  listProviders,
  listTiles,
  recordAudit,
  removePixelOrigin,
  revokePixelKey,
  tileState,
  type TileState,
} from '@holdfast/control-plane';
import type { TileName } from '@holdfast/postgres';
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

const TILE_TEXT: Readonly<Record<TileName, { title: string; about: string }>> = {
  custom_integration: {
    title: 'Custom integration',
    about:
      'Your own backend sends orders and customers, and calls POST /webhooks/custom-api with the tile token.',
  },
  zero_party: {
    title: 'Zero-party data',
    about: 'Survey and quiz answers your customers give you, sent with the zero-party token.',
  },
};

const TILE_PATH: Readonly<Record<string, TileName>> = {
  'custom-integration': 'custom_integration',
  'zero-party': 'zero_party',
};
const pathOf = (t: TileName) => (t === 'custom_integration' ? 'custom-integration' : 'zero-party');

function stateBadge(s: TileState): Html {
  const cls = s === 'connected' ? 'connected' : s === 'awaiting setup' ? 'awaiting' : '';
  return html`<span class="state ${cls}" data-state="${s}">${s}</span>`;
}

export function integrationsRoutes(ctx: ConsoleContext): Router {
  const r = Router({ mergeParams: true });

  async function render(res: Response, extra: { shown?: Html; error?: string; status?: number } = {}) {
    const { viewer, account } = accountOf(res);
    const [tiles, pixelKeys, providers] = await Promise.all([
      listTiles(ctx.db, account.id),
      listPixelKeys(ctx.db, account.id),
      listProviders(ctx.db, account.id),
    ]);
    const manageTiles = can(account.role, 'tiles.manage');
    const managePixel = can(account.role, 'pixel.manage');
    const tileCard = (t: TileName) => {
      const row = tiles.find((x) => x.tile === t);
      const state = tileState(t, row);
      return html`<section class="tile" aria-labelledby="tile-${pathOf(t)}" id="${pathOf(t)}">
        <h2 id="tile-${pathOf(t)}">${TILE_TEXT[t].title}</h2>
        <p>${stateBadge(state)}</p>
        <p class="muted">${TILE_TEXT[t].about}</p>
        ${row && state !== 'not connected' ? html`<p>Token <code>${row.token_prefix}…</code>, connected ${when(row.connected_at as unknown as Date)}${row.first_call_at ? html`; first call ${when(row.first_call_at)}` : ''}.</p>` : ''}
        ${
          manageTiles
            ? html`<form
                  method="post"
                  action="/accounts/${account.id}/tiles/${pathOf(t)}/connect"
                  class="inline"
                >
                  ${csrfField(viewer)}<button
                    type="submit"
                    ${state === 'not connected' ? '' : html` class="secondary"`}
                  >
                    ${state === 'not connected' ? 'Connect' : 'New token'}
                  </button>
                </form>
                ${state !== 'not connected' ? html`<form method="post" action="/accounts/${account.id}/tiles/${pathOf(t)}/disconnect" class="inline" data-confirm="Disconnect? Its token stops working.">${csrfField(viewer)}<button type="submit" class="danger">Disconnect</button></form>` : ''}`
            : ''
        }
      </section>`;
    };
    const body = html` ${notice('error', extra.error)} ${extra.shown ?? ''}
      <div class="tiles">${tileCard('custom_integration')}${tileCard('zero_party')}</div>
      <h2>Pixel keys</h2>
      <p class="muted">
        The browser pixel sends events with a public key; each key accepts only its listed origins.
      </p>
      ${
        pixelKeys.length
          ? html`<table>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Status</th>
                  <th scope="col">Origins</th>
                  ${managePixel ? html`<th scope="col">Actions</th>` : ''}
                </tr>
              </thead>
              <tbody>
                ${pixelKeys.map(
                  (k) =>
                    html`<tr>
                      <td><code>${k.prefix}…</code></td>
                      <td>${k.revoked_at ? 'revoked' : 'live'}</td>
                      <td>
                        ${
                          k.origins.length
                            ? html`<ul>
                                ${k.origins.map((o) => html`<li><code>${o}</code>${managePixel && !k.revoked_at ? html` <form method="post" action="/accounts/${account.id}/pixel-keys/${k.id}/origins/remove" class="inline">${csrfField(viewer)}<input type="hidden" name="origin" value="${o}" /><button type="submit" class="link">remove</button></form>` : ''}</li>`)}
                              </ul>`
                            : html`<span class="muted">none: every origin is refused</span>`
                        }
                      </td>
                      ${
                        managePixel
                          ? html`<td>
                              ${
                                k.revoked_at
                                  ? ''
                                  : html`<form
                                        method="post"
                                        action="/accounts/${account.id}/pixel-keys/${k.id}/origins"
                                        class="inline"
                                      >
                                        ${csrfField(viewer)}<label for="origin-${k.id}">Origin</label>
                                        <input
                                          id="origin-${k.id}"
                                          name="origin"
                                          placeholder="https://shop.example.com"
                                          required
                                        />
                                        <button type="submit" class="secondary">Add</button>
                                      </form>
                                      <form
                                        method="post"
                                        action="/accounts/${account.id}/pixel-keys/${k.id}/revoke"
                                        class="inline"
                                        data-confirm="Revoke this pixel key?"
                                      >
                                        ${csrfField(viewer)}<button type="submit" class="danger">
                                          Revoke
                                        </button>
                                      </form>`
                              }
                            </td>`
                          : ''
                      }
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>No pixel key yet.</p>`
      }
      ${
        managePixel
          ? html`<form method="post" action="/accounts/${account.id}/pixel-keys" class="stack">
              ${csrfField(viewer)}
              <label for="new-origin">First origin of a new pixel key</label>
              <input id="new-origin" name="origin" placeholder="https://shop.example.com" />
              <button type="submit">Create a pixel key</button>
            </form>`
          : ''
      }
      <h2>Providers</h2>
      ${
        providers.length
          ? html`<table>
              <thead>
                <tr>
                  <th scope="col">Provider</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Endpoint</th>
                </tr>
              </thead>
              <tbody>
                ${providers.map(
                  (p) =>
                    html`<tr>
                      <td>${p.provider}</td>
                      <td>${p.channel}</td>
                      <td><code>${p.endpoint_url}</code></td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>
              No email or SMS provider connected. Campaign sends need one (connected by Holdfast's team with
              <code>holdfast providers connect</code>).
            </p>`
      }`;
    sendAccountPage(ctx, res, { title: 'Integrations', active: 'overview', body, status: extra.status });
  }

  r.get('/', (_req, res) => render(res));

  r.post('/tiles/:tile/connect', requireAction('tiles.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const tile = TILE_PATH[req.params.tile as string];
    if (!tile) return void res.status(404).type('html').send(notFoundPage(viewer).value);
    const { token } = await connectTile(ctx.db, account.id, tile);
    await recordAudit(ctx.db, {
      accountId: account.id,
      actorUserId: viewer.userId,
      action: 'tile.connect',
      target: tile,
    });
    await render(res, {
      shown: html`<div class="notice ok" role="status">
        <p><strong>${TILE_TEXT[tile].title} token.</strong> Copy it now: it is shown this once.</p>
        <code class="secret" id="new-key">${token}</code
        ><button type="button" class="secondary" data-copy="new-key">Copy</button>
      </div>`,
    });
  });

  r.post('/tiles/:tile/disconnect', requireAction('tiles.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const tile = TILE_PATH[req.params.tile as string];
    if (!tile) return void res.status(404).type('html').send(notFoundPage(viewer).value);
    await disconnectTile(ctx.db, account.id, tile);
    await recordAudit(ctx.db, {
      accountId: account.id,
      actorUserId: viewer.userId,
      action: 'tile.disconnect',
      target: tile,
    });
    res.redirect(303, `/accounts/${account.id}`);
  });

  r.post('/pixel-keys', requireAction('pixel.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const origin = formField(req, 'origin').trim();
    try {
      const { id, key } = await createPixelKey(ctx.db, account.id, origin ? [origin] : []);
      await recordAudit(ctx.db, {
        accountId: account.id,
        actorUserId: viewer.userId,
        action: 'pixel_key.create',
        target: id,
      });
      await render(res, {
        shown: html`<div class="notice ok" role="status">
          <p>
            <strong>New pixel key.</strong> It is public (it goes in your storefront's page), and shown in
            full this once.
          </p>
          <code class="secret" id="new-key">${key}</code>
        </div>`,
      });
    } catch (err) {
      if (err instanceof ControlPlaneError) return render(res, { error: err.message, status: 400 });
      throw err;
    }
  });

  /** The pixel key of this account named in the URL, or 404. */
  async function ownPixelKey(res: Response, id: string) {
    const { viewer, account } = accountOf(res);
    const k = isUuid(id) ? await describePixelKey(ctx.db, id).catch(() => undefined) : undefined;
    if (!k || k.account_id !== account.id) {
      res.status(404).type('html').send(notFoundPage(viewer).value);
      return undefined;
    }
    return k;
  }

  r.post('/pixel-keys/:id/origins', requireAction('pixel.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const k = await ownPixelKey(res, req.params.id as string);
    if (!k) return;
    try {
      const o = await addPixelOrigin(ctx.db, k.id, formField(req, 'origin'));
      await recordAudit(ctx.db, {
        accountId: account.id,
        actorUserId: viewer.userId,
        action: 'pixel_key.add_origin',
        target: k.id,
        detail: { origin: o },
      });
      res.redirect(303, `/accounts/${account.id}`);
    } catch (err) {
      if (err instanceof ControlPlaneError) return render(res, { error: err.message, status: 400 });
      throw err;
    }
  });

  r.post('/pixel-keys/:id/origins/remove', requireAction('pixel.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const k = await ownPixelKey(res, req.params.id as string);
    if (!k) return;
    try {
      await removePixelOrigin(ctx.db, k.id, formField(req, 'origin'));
    } catch (err) {
      if (err instanceof ControlPlaneError) return render(res, { error: err.message, status: 400 });
      throw err;
    }
    await recordAudit(ctx.db, {
      accountId: account.id,
      actorUserId: viewer.userId,
      action: 'pixel_key.remove_origin',
      target: k.id,
      detail: { origin: formField(req, 'origin') },
    });
    res.redirect(303, `/accounts/${account.id}`);
  });

  r.post('/pixel-keys/:id/revoke', requireAction('pixel.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const k = await ownPixelKey(res, req.params.id as string);
    if (!k) return;
    await revokePixelKey(ctx.db, k.id, ctx.now());
    await recordAudit(ctx.db, {
      accountId: account.id,
      actorUserId: viewer.userId,
      action: 'pixel_key.revoke',
      target: k.id,
    });
    res.redirect(303, `/accounts/${account.id}`);
  });

  return r;
}
