import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SIGN_IN_LIMITS as L,
  lockAfterFailure,
  passwordProblem,
  signInGate,
} from '../../services/console/src/sign-in-policy.js';
import { safeNext } from '../../services/console/src/safe-next.js';
import { csrfMatches, csrfToken, sameOrigin } from '../../services/console/src/session.js';
import { escapeHtml, html } from '../../services/console/src/html.js';
import { totpCode, totpStep } from '../../services/console/src/totp.js';

const now = new Date('2026-11-27T12:00:00Z');

describe('sign-in limits and lockout', () => {
  it('given no failures, when someone signs in, then the attempt is looked at', () => {
    expect(signInGate(L, { ipFailures: 0, emailFailures: 0, lockedUntil: null }, now)).toEqual({
      allowed: true,
    });
  });

  it('given the address used up its failures, when anyone tries it again, then it is refused for the window', () => {
    expect(signInGate(L, { ipFailures: 0, emailFailures: L.perEmail, lockedUntil: null }, now)).toEqual({
      allowed: false,
      retryAfterS: 900,
    });
  });

  it('given one client used up its failures, when it tries any address, then it is refused', () => {
    expect(signInGate(L, { ipFailures: L.perIp, emailFailures: 0, lockedUntil: null }, now).allowed).toBe(
      false,
    );
  });

  it('given a locked user, when they try before the lock ends, then refused with the time left; after it, looked at', () => {
    const lockedUntil = new Date(now.getTime() + 60_000);
    expect(signInGate(L, { ipFailures: 0, emailFailures: 0, lockedUntil }, now)).toEqual({
      allowed: false,
      retryAfterS: 60,
    });
    expect(
      signInGate(L, { ipFailures: 0, emailFailures: 0, lockedUntil }, new Date(now.getTime() + 61_000))
        .allowed,
    ).toBe(true);
  });

  it('given consecutive failures, when the fifth comes, then the user is locked for 15 minutes, not before', () => {
    expect(lockAfterFailure(L, 4, now)).toBeNull();
    expect(lockAfterFailure(L, 5, now)).toEqual(new Date(now.getTime() + 15 * 60_000));
  });

  it('given a password, when it is shorter than 12 characters, then it is refused', () => {
    expect(passwordProblem('short')).toMatch(/12/);
    expect(passwordProblem('a long enough passphrase')).toBeNull();
  });
});

describe('safeNext (open redirects)', () => {
  it('given a path of the console, when it is the next page, then it is kept', () => {
    expect(safeNext('/accounts/0b0e-1/keys')).toBe('/accounts/0b0e-1/keys');
  });

  it.each([
    'https://evil.example/',
    '//evil.example/',
    '/\\evil.example',
    'javascript:alert(1)',
    '/accounts/../../x',
    '/%0d%0aSet-Cookie:x',
    '',
    42,
    undefined,
  ])('given %j, when it is the next page, then the home page is', (next) => {
    expect(safeNext(next)).toBe('/');
  });
});

describe('CSRF tokens and same-origin', () => {
  it('given a session, when its own token comes back, then it matches; another session\u2019s does not', () => {
    const a = 'a'.repeat(43);
    const b = 'b'.repeat(43);
    expect(csrfMatches(a, csrfToken(a))).toBe(true);
    expect(csrfMatches(a, csrfToken(b))).toBe(false);
    expect(csrfMatches(a, undefined)).toBe(false);
    expect(csrfMatches(a, csrfToken(a).slice(1))).toBe(false);
  });

  it('given a POST, when its Origin is another site (or null), then it is not same-origin', () => {
    expect(sameOrigin({ headers: { host: 'c.example', origin: 'https://c.example' } })).toBe(true);
    expect(sameOrigin({ headers: { host: 'c.example', origin: 'https://evil.example' } })).toBe(false);
    expect(sameOrigin({ headers: { host: 'c.example', origin: 'null' } })).toBe(false);
    expect(sameOrigin({ headers: { host: 'c.example', 'sec-fetch-site': 'cross-site' } })).toBe(false);
    expect(sameOrigin({ headers: { host: 'c.example' } })).toBe(true);
  });
});

describe('html escaping', () => {
  it('given text with markup, when interpolated, then it is escaped; nested html is kept', () => {
    const evil = '<script>alert("x")</script>';
    expect(html`<p>${evil}</p>`.value).toBe(`<p>${escapeHtml(evil)}</p>`);
    expect(html`<div>${html`<b>${'&'}</b>`}</div>`.value).toBe('<div><b>&amp;</b></div>');
  });
});

describe('TOTP', () => {
  const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
  it('given the code of now, when checked, then it gives its time step; a wrong code gives null', () => {
    const code = totpCode(secret, now);
    expect(totpStep(secret, code, now)).toBe(Math.floor(now.getTime() / 30_000));
    expect(totpStep(secret, code === '000000' ? '111111' : '000000', now)).toBeNull();
    expect(totpStep(secret, 'abcdef', now)).toBeNull();
  });

  it('given a code of the previous step, when checked now, then it is accepted (clock drift) with its own step', () => {
    const earlier = new Date(now.getTime() - 30_000);
    expect(totpStep(secret, totpCode(secret, earlier), now)).toBe(Math.floor(earlier.getTime() / 30_000));
    expect(totpStep(secret, totpCode(secret, new Date(now.getTime() - 120_000)), now)).toBeNull();
  });
});
