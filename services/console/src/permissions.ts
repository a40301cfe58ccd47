// The console's permission matrix: every rule about who may do what is here, as one pure function
// the routes call before they act (the pages only hide what this refuses; the server refuses it).
import type { AccountRole } from '@holdfast/postgres';

/** A role in one account, or an operator (Holdfast's own staff: every account). */
export type ConsoleRole = AccountRole | 'operator';

/** Everything a person can do in an account's pages. */
export type ConsoleAction =
  | 'account.view'
  | 'keys.manage'
  | 'tiles.manage'
  | 'pixel.manage'
  | 'webhooks.manage'
  | 'campaigns.manage'
  | 'settings.manage'
  | 'settings.timezone.manage'
  | 'settings.currency.manage'
  | 'people.manage'
  | 'audit.view'
  | 'dead_letters.view';

const MANAGERS: readonly ConsoleRole[] = ['owner', 'admin', 'operator'];

/**
 * Who may do what (docs/console.md has the table): everyone reads the account's pages; owners,
 * admins and operators change its integration (keys, tiles, pixel keys, webhooks), its campaigns and
 * its store settings and read the audit log; viewers and analysts change nothing. Dead letters (what
 * the projector could not apply) are for those who can act on them: owners, admins, operators.
 * The timezone and the reporting currency are actions of their own (not 'settings.manage'): the
 * timezone is the integration's own setting and a currency change re-converts every order, so either
 * may be narrowed without touching the storefront domain.
 */
const MATRIX: Readonly<Record<ConsoleAction, readonly ConsoleRole[]>> = {
  'account.view': ['owner', 'admin', 'analyst', 'viewer', 'operator'],
  'keys.manage': MANAGERS,
  'tiles.manage': MANAGERS,
  'pixel.manage': MANAGERS,
  'webhooks.manage': MANAGERS,
  'campaigns.manage': MANAGERS,
  'settings.manage': MANAGERS,
  'settings.timezone.manage': MANAGERS,
  'settings.currency.manage': MANAGERS,
  'people.manage': MANAGERS,
  'audit.view': MANAGERS,
  'dead_letters.view': MANAGERS,
};

/**
 * Whether `role` may take `action`. No role (not a member) may do nothing.
 *
 * @example
 * can('viewer', 'keys.manage'); // false
 */
export function can(role: ConsoleRole | undefined, action: ConsoleAction): boolean {
  return role !== undefined && MATRIX[action].includes(role);
}

/**
 * Which roles `actor` may give (inviting, or changing someone's role): an owner or operator any; an
 * admin any but owner (an admin cannot make owners, nor so raise themself); nobody else any.
 *
 * @example
 * assignableRoles('admin'); // ['admin', 'analyst', 'viewer']
 */
export function assignableRoles(actor: ConsoleRole | undefined): readonly AccountRole[] {
  if (actor === 'owner' || actor === 'operator') return ['owner', 'admin', 'analyst', 'viewer'];
  if (actor === 'admin') return ['admin', 'analyst', 'viewer'];
  return [];
}

/**
 * Whether `actor` may remove (or change the role of) a member who holds `target`: an admin touches
 * no owner; nobody removes the account's last owner (the account would have no one to invite).
 */
export function canChangeMember(
  actor: ConsoleRole | undefined,
  target: AccountRole,
  ownersLeft: number,
): boolean {
  if (!can(actor, 'people.manage')) return false;
  if (target === 'owner' && actor === 'admin') return false;
  if (target === 'owner' && ownersLeft <= 1) return false;
  return true;
}
