import { readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '@holdfast/testing';
import { call } from '@holdfast/testing/services';
import { startGateway, type TestGateway } from '@holdfast/testing/services';
import { buildLoaderScript } from '../../src/pixel/loader-script.js';

let t: TestEnv;
let stack: TestGateway;

beforeAll(async () => {
  t = await createTestEnv('pixelscript');
  stack = await startGateway(t);
});

afterAll(async () => {
  await stack?.close();
  await t?.close();
});

describe('GET /pixel/v1/service-pixel.js', () => {
  it('given a browser, when it loads the script, then it gets minified JavaScript cacheable for one hour', async () => {
    const res = await call(stack.url, 'GET', '/pixel/v1/service-pixel.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('etag')).toMatch(/^"[\w-]{22}"$/);
    expect(res.text).toContain('/pixel/collect');
    expect(res.text).toContain('globalPrivacyControl');
    expect(res.text).not.toContain('Global Privacy Control'); // comments are stripped
    const source = await readFile(
      new URL('../../src/pixel/loader/service-pixel.js', import.meta.url),
      'utf8',
    );
    expect(res.text.length).toBeLessThan(source.length / 2);
  });

  it('given the ETag of the last download, when it revalidates, then 304 without body', async () => {
    const first = await call(stack.url, 'GET', '/pixel/v1/service-pixel.js');
    // node:http, not fetch: fetch adds Cache-Control: no-cache to conditional requests, as browsers
    // do for a forced reload, and a server must then answer in full.
    const again = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      get(
        `${stack.url}/pixel/v1/service-pixel.js`,
        { headers: { 'if-none-match': first.headers.get('etag')! } },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      ).on('error', reject);
    });
    expect(again).toEqual({ status: 304, body: '' });
  });

  it('given the minified loader, when gzipped, then it stays under 3 KB', async () => {
    const script = await buildLoaderScript();
    expect(script.gzipBytes).toBe(gzipSync(script.code, { level: 9 }).length);
    expect(script.gzipBytes).toBeLessThan(3 * 1024);
    console.info(`service-pixel.js: ${script.bytes} B minified, ${script.gzipBytes} B gzipped`);
  });
});
