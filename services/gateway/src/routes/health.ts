import type { RequestHandler } from 'express';
import { principalOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../context.js';

/** What the health hint is computed from. */
export interface HealthFacts {
  /** The custom integration tile: not connected, connected and awaiting its first webhook call, or active. */
  readonly customIntegration: 'none' | 'awaiting_setup' | 'active';
  readonly ordersIngested: number;
  readonly storeTimezone: string | null;
}

/**
 * The `hint` of GET /ingest/health: the next steps for this account, most useful first.
 *
 * @example
 * healthHint({ customIntegration: 'active', ordersIngested: 12, storeTimezone: 'Europe/Paris' });
 * // 'All set. Analytics recompute nightly at 02:00 UTC; POST /ingest/sync after large loads.'
 */
export function healthHint(f: HealthFacts): string {
  const parts: string[] = [];
  if (f.customIntegration === 'awaiting_setup')
    parts.push(
      'The custom integration tile shows "awaiting setup" until the first POST /webhooks/custom-api call; ingest calls alone do not change it.',
    );
  if (f.ordersIngested === 0)
    parts.push(
      'No orders yet: POST /ingest/orders (try ?dry_run=true first). Orders appear here once projected, within seconds.',
    );
  if (f.storeTimezone === null) parts.push('Set store_timezone with PATCH /ingest/account.');
  if (!parts.length) parts.push('All set.');
  parts.push('Analytics recompute nightly at 02:00 UTC; POST /ingest/sync after large loads.');
  return parts.join(' ');
}

/**
 * GET /ingest/health: `{ok, account_id, connected_integrations, orders_ingested, store_timezone, hint}`.
 * connected_integrations lists the account's connected tiles (custom_integration, zero_party) and
 * email/SMS providers by name.
 */
export function healthRoute(ctx: GatewayContext): RequestHandler {
  return async (_req, res) => {
    const { accountId } = principalOf(res);
    const [tiles, providers, ordersIngested, storeTimezone] = await Promise.all([
      ctx.db
        .selectFrom('control.tiles')
        .select(['tile', 'first_call_at'])
        .where('account_id', '=', accountId)
        .where('disconnected_at', 'is', null)
        .execute(),
      ctx.db.selectFrom('control.providers').select('provider').where('account_id', '=', accountId).execute(),
      ctx.readModels.ordersCount(accountId),
      ctx.readModels.storeTimezone(accountId),
    ]);
    const custom = tiles.find((t) => t.tile === 'custom_integration');
    const facts: HealthFacts = {
      customIntegration: !custom ? 'none' : custom.first_call_at === null ? 'awaiting_setup' : 'active',
      ordersIngested,
      storeTimezone,
    };
    res.json({
      ok: true,
      account_id: accountId,
      connected_integrations: [...tiles.map((t) => t.tile), ...providers.map((p) => p.provider).sort()],
      orders_ingested: ordersIngested,
      store_timezone: storeTimezone,
      hint: healthHint(facts),
    });
  };
}
