import { html, type Html } from '../html.js';
import type { ConsoleRole } from '../permissions.js';
import { can } from '../permissions.js';

/** Who is looking at a page (absent on the sign-in pages). */
export interface Viewer {
  readonly email: string;
  readonly isOperator: boolean;
  readonly csrf: string;
}

/** The account a page belongs to and the viewer's role in it. */
export interface AccountFrame {
  readonly id: string;
  readonly name: string;
  readonly role: ConsoleRole;
}

/** A page of an account's navigation. */
export interface NavItem {
  readonly key: string;
  readonly label: string;
  readonly path: string;
}

export const ACCOUNT_NAV: readonly NavItem[] = [
  { key: 'overview', label: 'Integrations', path: '' },
  { key: 'dashboards', label: 'Dashboards', path: '/dashboards' },
  { key: 'keys', label: 'Ingest keys', path: '/keys' },
  { key: 'webhooks', label: 'Webhooks', path: '/webhooks' },
  { key: 'campaigns', label: 'Campaigns', path: '/campaigns' },
  { key: 'settings', label: 'Store settings', path: '/settings' },
  { key: 'activity', label: 'Ingest activity', path: '/activity' },
  { key: 'sync', label: 'Sync tasks', path: '/sync' },
  { key: 'dead-letters', label: 'Dead letters', path: '/dead-letters' },
  { key: 'people', label: 'People', path: '/people' },
  { key: 'audit', label: 'Audit log', path: '/audit' },
];

/** What a nav item needs to be shown (the server refuses the page too). */
const NAV_NEEDS: Readonly<Record<string, Parameters<typeof can>[1]>> = {
  'dead-letters': 'dead_letters.view',
  audit: 'audit.view',
};

export interface PageOptions {
  readonly title: string;
  readonly viewer?: Viewer;
  readonly account?: AccountFrame;
  readonly active?: string;
  readonly body: Html;
}

/** A notice above the page's content: an error (role=alert) or a success (role=status). */
export function notice(kind: 'error' | 'ok', text: string | Html | null | undefined): Html {
  if (!text) return html``;
  return kind === 'error'
    ? html`<div class="notice error" role="alert">${text}</div>`
    : html`<div class="notice ok" role="status">${text}</div>`;
}

/** A POST form's hidden CSRF field. */
export function csrfField(viewer: Viewer): Html {
  return html`<input type="hidden" name="_csrf" value="${viewer.csrf}" />`;
}

export function page(o: PageOptions): Html {
  const nav = o.account
    ? ACCOUNT_NAV.filter((n) => !NAV_NEEDS[n.key] || can(o.account!.role, NAV_NEEDS[n.key]!))
    : [];
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${o.title} · Holdfast console</title>
        <link rel="stylesheet" href="/static/console.css" />
        <script src="/static/console.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <a class="brand" href="/">Holdfast</a>
          ${
            o.viewer
              ? html`<span class="who"
                    >${o.viewer.email}${o.viewer.isOperator ? ' (operator)' : ''}${o.account ? html` · ${o.account.name} · ${o.account.role}` : ''}</span
                  >
                  <a href="/recovery-codes">Recovery codes</a>
                  <form method="post" action="/sign-out" class="inline">
                    ${csrfField(o.viewer)}<button type="submit" class="link">Sign out</button>
                  </form>`
              : ''
          }
        </header>
        <div class="frame">
          ${
            nav.length
              ? html`<nav aria-label="Account">
                  <ul>
                    ${nav.map(
                      (n) =>
                        html`<li>
                          <a
                            href="/accounts/${o.account!.id}${n.path}"
                            ${n.key === o.active ? html` aria-current="page"` : ''}
                            >${n.label}</a
                          >
                        </li>`,
                    )}
                  </ul>
                </nav>`
              : ''
          }
          <main id="main">
            <h1>${o.title}</h1>
            ${o.body}
          </main>
        </div>
      </body>
    </html>`;
}
