import { describe, expect, it } from 'vitest';
import {
  assignableRoles,
  can,
  canChangeMember,
  type ConsoleAction,
  type ConsoleRole,
} from '@holdfast/console';

const CHANGES: readonly ConsoleAction[] = [
  'keys.manage',
  'tiles.manage',
  'pixel.manage',
  'webhooks.manage',
  'campaigns.manage',
  'settings.manage',
  'settings.timezone.manage',
  'settings.currency.manage',
  'people.manage',
];

describe('the permission matrix', () => {
  it('given any role of the account, when it views the account, then it may', () => {
    for (const role of ['owner', 'admin', 'analyst', 'viewer', 'operator'] as ConsoleRole[])
      expect(can(role, 'account.view')).toBe(true);
  });

  it('given no role (not a member), when it tries anything, then it may not', () => {
    for (const action of [...CHANGES, 'account.view', 'audit.view'] as ConsoleAction[])
      expect(can(undefined, action)).toBe(false);
  });

  it('given an owner, an admin or an operator, when they change the integration, campaigns or settings, then they may', () => {
    for (const role of ['owner', 'admin', 'operator'] as ConsoleRole[])
      for (const action of CHANGES) expect(can(role, action)).toBe(true);
  });

  it('given an analyst or a viewer, when they try any change, the audit log or dead letters, then they may not', () => {
    for (const role of ['analyst', 'viewer'] as ConsoleRole[])
      for (const action of [...CHANGES, 'audit.view', 'dead_letters.view'] as ConsoleAction[])
        expect(can(role, action), `${role} ${action}`).toBe(false);
  });

  it('given each role, when it changes the store timezone or reporting currency, then only owners, admins and operators may', () => {
    const allowed: Record<ConsoleRole, boolean> = {
      owner: true,
      admin: true,
      operator: true,
      analyst: false,
      viewer: false,
    };
    for (const [role, may] of Object.entries(allowed) as [ConsoleRole, boolean][])
      for (const action of ['settings.timezone.manage', 'settings.currency.manage'] as ConsoleAction[])
        expect(can(role, action), `${role} ${action}`).toBe(may);
  });

  it('given an admin, when they invite, then they may give every role but owner', () => {
    expect(assignableRoles('admin')).toEqual(['admin', 'analyst', 'viewer']);
    expect(assignableRoles('owner')).toEqual(['owner', 'admin', 'analyst', 'viewer']);
    expect(assignableRoles('operator')).toContain('owner');
    expect(assignableRoles('viewer')).toEqual([]);
    expect(assignableRoles('analyst')).toEqual([]);
  });

  it('given an admin, when they remove an owner, then they may not; an owner may remove another owner but not the last', () => {
    expect(canChangeMember('admin', 'owner', 3)).toBe(false);
    expect(canChangeMember('admin', 'viewer', 1)).toBe(true);
    expect(canChangeMember('owner', 'owner', 2)).toBe(true);
    expect(canChangeMember('owner', 'owner', 1)).toBe(false);
    expect(canChangeMember('viewer', 'viewer', 1)).toBe(false);
  });
});
