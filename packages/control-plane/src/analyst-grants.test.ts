import { describe, expect, it } from 'vitest';
import { analystLoginProblem, type AnalystLoginFacts } from './analyst-grants.js';

const login = (facts: Partial<AnalystLoginFacts> = {}): AnalystLoginFacts => ({
  exists: true,
  canLogin: true,
  superuser: false,
  bypassRls: false,
  memberOf: [],
  ...facts,
});

describe('analystLoginProblem', () => {
  it.each([
    ['a new login', login()],
    ['a login already an analyst', login({ memberOf: ['holdfast_analyst'] })],
  ])('given %s, when granted, then nothing stands in the way', (_, facts) => {
    expect(analystLoginProblem('alice', facts)).toBeNull();
  });

  it.each([
    [
      'a missing role',
      'alice',
      login({ exists: false }),
      'not_found',
      `no role "alice": create the analyst's login first (create role "alice" login password '…')`,
    ],
    [
      'a service role',
      'holdfast_gateway',
      login(),
      'invalid',
      '"holdfast_gateway" is a service role: an analyst needs a login of their own',
    ],
    [
      'a superuser',
      'alice',
      login({ superuser: true }),
      'invalid',
      '"alice" is a superuser or has BYPASSRLS, so row-level security does not apply to it',
    ],
    [
      'a BYPASSRLS role',
      'alice',
      login({ bypassRls: true }),
      'invalid',
      '"alice" is a superuser or has BYPASSRLS, so row-level security does not apply to it',
    ],
    [
      'a NOLOGIN role',
      'analysts',
      login({ canLogin: false }),
      'invalid',
      '"analysts" cannot log in (NOLOGIN): grants apply to the role a session logs in as',
    ],
    [
      'a member of a service role and a predefined role',
      'alice',
      login({ memberOf: ['holdfast_analyst', 'holdfast_gateway', 'pg_read_all_data'] }),
      'invalid',
      '"alice" is a member of holdfast_gateway, pg_read_all_data: an analyst login may be a member of ' +
        "holdfast_analyst only (other roles' rights add to what the analyst policy shows); revoke those first",
    ],
  ])('given %s, when granted, then it is refused with the reason', (_, name, facts, code, message) => {
    expect(analystLoginProblem(name, facts)).toEqual({ code, message });
  });
});
