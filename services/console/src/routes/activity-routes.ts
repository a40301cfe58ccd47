// What reached Holdfast: ingest batches (status, counts, codes, request ids), sync tasks, and dead
// letters (records the projector could not apply: what and why, never the raw record).
import { Router } from 'express';
import { listSyncTasks } from '@holdfast/control-plane';
import { batchRecordsKeptSince } from '@holdfast/domain';
import { accountDeadLetters, recentIngestBatches } from '@holdfast/read-models';
import type { ConsoleContext } from '../context.js';
import { html, when } from '../html.js';
import { accountOf, missingTable, requireAction, sendAccountPage } from './account-access.js';

async function orNone<T>(read: () => Promise<T[]>): Promise<T[]> {
  try {
    return await read();
  } catch (err) {
    if (missingTable(err)) return [];
    throw err;
  }
}

const codes = (c: readonly string[] | null | undefined) => (c && c.length ? c.join(', ') : '—');

export function activityRoutes(ctx: ConsoleContext): Router {
  const r = Router({ mergeParams: true });

  r.get('/activity', async (_req, res) => {
    const { account } = accountOf(res);
    const batches = await orNone(() =>
      recentIngestBatches(ctx.readModels, account.id, 100, batchRecordsKeptSince(ctx.now())),
    );
    const body = html`<p>
        The 100 latest ingest calls of the last 90 days, newest first (what
        <code>GET /ingest/batches</code> lists).
      </p>
      ${
        batches.length
          ? html`<table>
              <thead>
                <tr>
                  <th scope="col">Received</th>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Status</th>
                  <th scope="col">Received / accepted / dropped</th>
                  <th scope="col">Codes</th>
                  <th scope="col">Request id</th>
                </tr>
              </thead>
              <tbody>
                ${batches.map(
                  (b) =>
                    html`<tr>
                      <td>${when(b.received_at)}</td>
                      <td><code>${b.endpoint}</code>${b.dry_run ? ' (dry run)' : ''}</td>
                      <td>${b.status} (HTTP ${b.http_status})</td>
                      <td>${b.received} / ${b.accepted} / ${b.dropped}</td>
                      <td>
                        ${codes(b.error_codes)}${b.warning_codes && b.warning_codes.length ? html`<br /><span class="muted">warnings: ${codes(b.warning_codes)}</span>` : ''}
                      </td>
                      <td><code>${b.request_id ?? '—'}</code></td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>No ingest call yet.</p>`
      }`;
    sendAccountPage(ctx, res, { title: 'Ingest activity', active: 'activity', body });
  });

  r.get('/sync', async (_req, res) => {
    const { account } = accountOf(res);
    const tasks = await listSyncTasks(ctx.db, account.id, 50);
    const body = html`<p>
        Recomputes of scores, audiences and campaigns: asked for by <code>POST /ingest/sync</code>, run
        nightly, or started by Holdfast's team.
      </p>
      ${
        tasks.length
          ? html`<table>
              <thead>
                <tr>
                  <th scope="col">Queued</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Status</th>
                  <th scope="col">Orders / customers added</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                ${tasks.map(
                  (t) =>
                    html`<tr>
                      <td>${when(t.queued_at)}</td>
                      <td>${t.trigger}</td>
                      <td>${t.status}</td>
                      <td>${t.orders_added ?? '—'} / ${t.customers_added ?? '—'}</td>
                      <td>${t.duration_ms === null ? '—' : `${t.duration_ms} ms`}</td>
                      <td>${t.reason ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>No sync task yet.</p>`
      }`;
    sendAccountPage(ctx, res, { title: 'Sync tasks', active: 'sync', body });
  });

  r.get('/dead-letters', requireAction('dead_letters.view'), async (_req, res) => {
    const { account } = accountOf(res);
    const letters = await orNone(() => accountDeadLetters(ctx.readModels, account.id, 100));
    const body = html`<p>
        Records Holdfast received but could not apply. Holdfast's team replays them once the cause is fixed
        (<code>holdfast dlq replay</code>).
      </p>
      ${
        letters.length
          ? html`<table>
              <thead>
                <tr>
                  <th scope="col">Record time</th>
                  <th scope="col">Projection</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Status</th>
                  <th scope="col">Request id</th>
                </tr>
              </thead>
              <tbody>
                ${letters.map(
                  (l) =>
                    html`<tr>
                      <td>${when(l.record_timestamp)}</td>
                      <td>${l.projection}</td>
                      <td>${l.reason}</td>
                      <td>${l.status}${l.redriven_at ? html` ${when(l.redriven_at)}` : ''}</td>
                      <td><code>${l.request_id ?? '—'}</code></td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>No dead letter: every record was applied.</p>`
      }`;
    sendAccountPage(ctx, res, { title: 'Dead letters', active: 'dead-letters', body });
  });

  return r;
}
