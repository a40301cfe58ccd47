// The dashboards (issue 25 item 3, @holdfast/dashboards): each one is a report of the public read API
// (GET /v1/reports/{name}), fetched by the console as one more client of that API, and drawn by the
// pure renderer `renderDashboard` (accessible SVG plots with their data tables).
import { Router } from 'express';
import { ControlPlaneError } from '@holdfast/control-plane';
import {
  DASHBOARD_TITLES,
  isReportName,
  renderDashboard,
  REPORT_NAMES,
  type ReportByName,
  type ReportName,
} from '@holdfast/dashboards';
import type { ConsoleContext } from '../context.js';
import { html, Html } from '../html.js';
import { notice } from '../pages/layout.js';
import { ReadApiError } from '../read-api-client.js';
import { accountOf, notFoundPage, sendAccountPage } from './account-access.js';

function dashboardNav(accountId: string, current: ReportName | null): Html {
  return html`<nav aria-label="Dashboards" class="subnav">
    <ul>
      ${REPORT_NAMES.map(
        (n) =>
          html`<li>
            <a
              href="/accounts/${accountId}/dashboards/${n}"
              ${n === current ? html` aria-current="page"` : ''}
              >${DASHBOARD_TITLES[n]}</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}

export function dashboardsRoutes(ctx: ConsoleContext): Router {
  const r = Router({ mergeParams: true });

  r.get('/', (_req, res) => {
    const { account } = accountOf(res);
    sendAccountPage(ctx, res, {
      title: 'Dashboards',
      active: 'dashboards',
      body: html`<p>
          What Holdfast computes for ${account.name}, as plots, each with its numbers in a table. They come
          from the read API's reports (<code>GET /v1/reports/{name}</code>), so they show what an integration
          reading that API sees.
        </p>
        ${dashboardNav(account.id, null)}`,
    });
  });

  r.get('/:name', async (req, res) => {
    const { viewer, account } = accountOf(res);
    const name = req.params.name;
    if (!isReportName(name)) return void res.status(404).type('html').send(notFoundPage(viewer).value);
    const title = DASHBOARD_TITLES[name];
    if (!ctx.readApi)
      return sendAccountPage(ctx, res, {
        title,
        active: 'dashboards',
        status: 503,
        body: notice('error', 'The console is not connected to the read API (HOLDFAST_READ_API_URL).'),
      });
    try {
      const report = await ctx.readApi.get<ReportByName[typeof name]>(account.id, `/v1/reports/${name}`);
      sendAccountPage(ctx, res, {
        title,
        active: 'dashboards',
        // The renderer escapes every label and number it writes (its own tests pin that).
        body: html`${dashboardNav(account.id, name)}${new Html(renderDashboard(name, report))}`,
      });
    } catch (err) {
      if (err instanceof ControlPlaneError && err.code === 'limit')
        return sendAccountPage(ctx, res, {
          title,
          active: 'dashboards',
          status: 409,
          body: notice(
            'error',
            'The dashboards read with a read key of their own (it works for 10 minutes), and this account already has 10 working read keys. Revoke a read key you no longer use on the Ingest keys page.',
          ),
        });
      if (err instanceof ReadApiError) {
        ctx.logger.warn('console_read_api_failed', { report: name, status: err.status });
        return sendAccountPage(ctx, res, {
          title,
          active: 'dashboards',
          status: 502,
          body: notice('error', 'The read API did not give this report just now. Try again in a moment.'),
        });
      }
      throw err;
    }
  });

  return r;
}
