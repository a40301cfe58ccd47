import { describe, expect, it } from 'vitest';
import { loggedRoute, redactPath } from '../../src/http/redact-path.js';

describe('redactPath', () => {
  it.each([
    ['/unsubscribe/v1.Zm9vYmFy.c2lnbmF0dXJl', '/unsubscribe/:token'],
    ['/unsubscribe/jane@example.com?List-Unsubscribe=One-Click', '/unsubscribe/:token'],
    ['/providers/sms/5b7e2c1a-0000-4000-8000-000000000001/inbound', '/providers/sms/:account_id/inbound'],
    ['/ingest/sync/task-123', '/ingest/sync/:task_id'],
  ])('given a parameterised route %s, then its template %s', (path, logged) => {
    expect(redactPath(path)).toBe(logged);
  });

  it.each([
    ['/ingest/orders', '/ingest/orders'],
    ['/ingest/orders?email=jane@example.com', '/ingest/orders'],
    ['/webhooks/custom-api#frag', '/webhooks/custom-api'],
    ['/ingest/customers/jane@example.com', '/ingest/customers/:redacted'],
    ['/unsubscribe', '/unsubscribe'],
    ['/unsubscribe/a/b', '/unsubscribe/:redacted/:redacted'],
    ['/Jane%20Doe/+15125550100/', '/:redacted/:redacted/'],
    ['/', '/'],
    ['', ''],
    ['*', ':redacted'],
  ])("given %s, then only the gateway's own words survive: %s", (path, logged) => {
    expect(redactPath(path)).toBe(logged);
  });
});

describe('loggedRoute', () => {
  it('given a matched route under a mount point, then the template', () => {
    expect(
      loggedRoute({ route: { path: '/sync/:task_id' }, path: '/sync/t-1' }, { locals: { mount: '/ingest' } }),
    ).toBe('/ingest/sync/:task_id');
  });

  it('given a mount point and no route, then the mount point and /*', () => {
    expect(loggedRoute({ route: undefined, path: '/customers/x' }, { locals: { mount: '/ingest' } })).toBe(
      '/ingest/*',
    );
  });

  it('given nothing matched, then the redacted path', () => {
    expect(loggedRoute({ route: undefined, path: '/unsubscribe/secret-token' }, { locals: {} })).toBe(
      '/unsubscribe/:token',
    );
  });
});
