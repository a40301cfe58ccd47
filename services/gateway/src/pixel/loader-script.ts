import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import type { RequestHandler } from 'express';
import { transform } from 'esbuild';

// The loader is plain browser JavaScript kept beside the sources; tsc does not copy it into dist/,
// so a built gateway reads it from src/ (both layouts are tried).
const CANDIDATES = [
  new URL('./loader/service-pixel.js', import.meta.url),
  new URL('../../src/pixel/loader/service-pixel.js', import.meta.url),
];

/** The minified loader with what the route needs to serve it. */
export interface LoaderScript {
  readonly code: string;
  readonly etag: string;
  /** Bytes of the minified script, and gzipped (what a browser downloads). */
  readonly bytes: number;
  readonly gzipBytes: number;
}

async function readSource(): Promise<string> {
  for (const url of CANDIDATES) {
    try {
      return await readFile(url, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  throw new Error('pixel loader source service-pixel.js not found');
}

/**
 * Minifies the loader with esbuild (ES2017 target, so it runs in every current browser). Called once
 * per process: the first request pays about 20 ms, later ones are served from memory.
 *
 * @example
 * const { code, gzipBytes } = await buildLoaderScript();
 */
export async function buildLoaderScript(): Promise<LoaderScript> {
  const { code } = await transform(await readSource(), {
    loader: 'js',
    minify: true,
    target: 'es2017',
    legalComments: 'none',
  });
  return {
    code,
    etag: `"${createHash('sha256').update(code).digest('base64url').slice(0, 22)}"`,
    bytes: Buffer.byteLength(code),
    gzipBytes: gzipSync(code, { level: 9 }).length,
  };
}

/**
 * GET /pixel/v1/service-pixel.js: the minified loader, cacheable for one hour by browsers and CDNs
 * (spec), with an ETag so a revalidation after the hour costs a 304. Cross-Origin-Resource-Policy
 * lets shops that isolate themselves (COEP) still embed it.
 */
export function loaderScriptRoute(): RequestHandler {
  let script: Promise<LoaderScript> | null = null;
  return async (req, res) => {
    script ??= buildLoaderScript().catch((err: unknown) => {
      script = null; // a failed build is retried by the next request
      throw err;
    });
    const { code, etag } = await script;
    res.set({
      'Content-Type': 'application/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      ETag: etag,
    });
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    res.send(code);
  };
}
