// The people of an account (invite with a one-time link, change nothing an admin may not, remove),
// and its audit log.
import { Router, type Response } from 'express';
import {
  ControlPlaneError,
  deleteUserSessions,
  inviteUser,
  listAudit,
  listMembers,
  recordAudit,
  removeMember,
} from '@holdfast/control-plane';
import type { AccountRole } from '@holdfast/postgres';
import type { ConsoleContext } from '../context.js';
import { html, when, type Html } from '../html.js';
import { csrfField, notice } from '../pages/layout.js';
import { assignableRoles, can, canChangeMember } from '../permissions.js';
import {
  accountOf,
  formField,
  isUuid,
  notFoundPage,
  requireAction,
  sendAccountPage,
} from './account-access.js';

export function peopleRoutes(ctx: ConsoleContext): Router {
  const r = Router({ mergeParams: true });

  async function render(res: Response, extra: { shown?: Html; error?: string; status?: number } = {}) {
    const { viewer, account } = accountOf(res);
    const members = await listMembers(ctx.db, account.id);
    const owners = members.filter((m) => m.role === 'owner').length;
    const roles = assignableRoles(account.role);
    const body = html`${notice('error', extra.error)}${extra.shown ?? ''}
      <table>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Since</th>
            <th scope="col">State</th>
            ${can(account.role, 'people.manage') ? html`<th scope="col">Action</th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${members.map(
            (m) =>
              html`<tr>
                <td>${m.email}</td>
                <td>${m.role}</td>
                <td>${when(m.created_at)}</td>
                <td>${m.active ? 'active' : 'invited'}</td>
                ${can(account.role, 'people.manage') ? html`<td>${m.id !== viewer.userId && canChangeMember(account.role, m.role, owners) ? html`<form method="post" action="/accounts/${account.id}/people/${m.id}/remove" class="inline" data-confirm="Remove ${m.email} from ${account.name}?">${csrfField(viewer)}<button type="submit" class="danger">Remove</button></form>` : ''}</td>` : ''}
              </tr>`,
          )}
        </tbody>
      </table>
      ${
        roles.length
          ? html`<h2>Invite someone</h2>
              <form method="post" action="/accounts/${account.id}/people/invite" class="stack">
                ${csrfField(viewer)} <label for="invite-email">Email address</label
                ><input id="invite-email" name="email" type="email" required />
                <label for="invite-role">Role</label
                ><select id="invite-role" name="role">
                  ${roles.map((r) => html`<option value="${r}" ${r === 'viewer' ? html` selected` : ''}>${r}</option>`)}
                </select>
                <button type="submit">Create an invitation link</button>
              </form>
              <p class="muted">
                Owners and admins change keys, integrations, campaigns and settings; analysts and viewers
                read. Only an owner makes owners.
              </p>`
          : ''
      }`;
    sendAccountPage(ctx, res, { title: 'People', active: 'people', body, status: extra.status });
  }

  r.get('/people', (_req, res) => render(res));

  r.post('/people/invite', requireAction('people.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const role = formField(req, 'role') as AccountRole;
    if (!assignableRoles(account.role).includes(role))
      return render(res, {
        error: `Your role (${account.role}) cannot give the role "${role}".`,
        status: 403,
      });
    try {
      const inv = await inviteUser(
        ctx.db,
        { email: formField(req, 'email'), accountId: account.id, role },
        ctx.now(),
      );
      await recordAudit(ctx.db, {
        accountId: account.id,
        actorUserId: viewer.userId,
        action: 'user.invite',
        target: inv.userId,
        detail: { role },
      });
      const link = `${ctx.config.publicUrl}/invite/${inv.token}`;
      await render(res, {
        shown: inv.existingUser
          ? html`<div class="notice ok" role="status">
              They already have a sign-in: their role in ${account.name} is now ${role}.
            </div>`
          : html`<div class="notice ok" role="status">
              <p><strong>Invitation link</strong> (valid 7 days, shown once; send it to them privately):</p>
              <code class="secret" id="new-key">${link}</code
              ><button type="button" class="secondary" data-copy="new-key">Copy</button>
            </div>`,
      });
    } catch (err) {
      if (err instanceof ControlPlaneError) return render(res, { error: err.message, status: 400 });
      throw err;
    }
  });

  r.post('/people/:userId/remove', requireAction('people.manage'), async (req, res) => {
    const { viewer, account } = accountOf(res);
    const userId = req.params.userId as string;
    const members = await listMembers(ctx.db, account.id);
    const target = isUuid(userId) ? members.find((m) => m.id === userId) : undefined;
    if (!target) return void res.status(404).type('html').send(notFoundPage(viewer).value);
    const owners = members.filter((m) => m.role === 'owner').length;
    if (target.id === viewer.userId || !canChangeMember(account.role, target.role, owners))
      return render(res, {
        error: 'You cannot remove this person (yourself, an owner as an admin, or the last owner).',
        status: 403,
      });
    await removeMember(ctx.db, account.id, target.id);
    // Their open sessions end too: the next page they load asks them to sign in again.
    await deleteUserSessions(ctx.db, target.id);
    await recordAudit(ctx.db, {
      accountId: account.id,
      actorUserId: viewer.userId,
      action: 'user.remove',
      target: target.id,
      detail: { role: target.role },
    });
    res.redirect(303, `/accounts/${account.id}/people`);
  });

  r.get('/audit', requireAction('audit.view'), async (_req, res) => {
    const { account } = accountOf(res);
    const entries = await listAudit(ctx.db, account.id, 200);
    const body = html`<p>Every change made to ${account.name} in the console, newest first.</p>
      ${
        entries.length
          ? html`<table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">Target</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                ${entries.map(
                  (e) =>
                    html`<tr>
                      <td>${when(e.at)}</td>
                      <td>${e.actor ?? '—'}</td>
                      <td><code>${e.action}</code></td>
                      <td><code>${e.target ?? ''}</code></td>
                      <td><code>${JSON.stringify(e.detail)}</code></td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : html`<p>No change yet.</p>`
      }`;
    sendAccountPage(ctx, res, { title: 'Audit log', active: 'audit', body });
  });

  return r;
}
