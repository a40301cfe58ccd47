import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { canonicalAddress, classifyAddress, type AddressClass } from './address-class.js';
import { ConfigError, EnvReader } from './config.js';

/** One `host:port` entry of the outbound allow-list: an IP address (v4, or v6 in brackets), port or `*`. */
export interface OutboundAllowRule {
  readonly address: string;
  readonly port: number | '*';
}

/**
 * Where outbound calls (webhook deliveries, provider sends) may go. The default is strict: https only,
 * public addresses only. Development and tests open named local receivers with `allow`.
 */
export interface OutboundPolicy {
  /** Allow plain http (HOLDFAST_OUTBOUND_ALLOW_HTTP; development only: payloads travel in clear). */
  readonly allowHttp: boolean;
  /** Addresses allowed although not public (HOLDFAST_OUTBOUND_ALLOW, e.g. `127.0.0.1:*,[::1]:8080`). */
  readonly allow: readonly OutboundAllowRule[];
  /** TCP (and TLS) connection must be up within this (default 5,000 ms). */
  readonly connectTimeoutMs: number;
  /** Answers larger than this are cut off and the call fails (default 64 KiB). */
  readonly maxResponseBytes: number;
}

/** The strict policy: https, public destinations, 5 s to connect, 64 KiB answers. */
export const STRICT_OUTBOUND_POLICY: OutboundPolicy = Object.freeze({
  allowHttp: false,
  allow: Object.freeze([]),
  connectTimeoutMs: 5_000,
  maxResponseBytes: 64 * 1024,
});

/**
 * Why an outbound call did not get an answer. These short classes are all that is stored or logged:
 * which of refused/reset/unreachable/timeout a private port produced would make the delivery log a
 * port scanner, and private destinations are refused before any packet is sent anyway.
 */
export type OutboundFailure =
  | 'destination_refused'
  | 'dns_failed'
  | 'connection_failed'
  | 'tls_failed'
  | 'timeout'
  | 'redirect_refused'
  | 'response_too_large';

/** An outbound call that was refused or failed; `failure` is safe to store and show. */
export class OutboundError extends Error {
  override readonly name = 'OutboundError';
  /** A refused destination stays refused; the other failures may pass on a later attempt. */
  readonly isRetriable: boolean;
  constructor(
    readonly failure: OutboundFailure,
    message: string,
    /** The status of a refused redirect; null otherwise. */
    readonly status: number | null = null,
  ) {
    super(message);
    this.isRetriable = failure !== 'destination_refused';
  }
}

/** Parses `127.0.0.1:*,[::1]:8080` into rules; throws on a malformed entry. */
export function parseOutboundAllow(value: string): OutboundAllowRule[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^(?:\[([^\]]+)\]|([^:]+)):(\*|\d{1,5})$/.exec(entry);
      const address = m?.[1] ?? m?.[2];
      if (!m || !address || !isIP(address))
        throw new Error(`"${entry}" is not an allow-list entry like 127.0.0.1:* or [::1]:8080`);
      return { address: canonicalAddress(address), port: m[3] === '*' ? '*' : Number(m[3]) };
    });
}

/**
 * Reads HOLDFAST_OUTBOUND_ALLOW_HTTP (false), HOLDFAST_OUTBOUND_ALLOW (none),
 * HOLDFAST_OUTBOUND_CONNECT_TIMEOUT_MS (5000) and HOLDFAST_OUTBOUND_MAX_RESPONSE_BYTES (65536).
 */
export function readOutboundPolicy(r: EnvReader): OutboundPolicy {
  let allow: OutboundAllowRule[];
  try {
    allow = parseOutboundAllow(r.optional('HOLDFAST_OUTBOUND_ALLOW') ?? '');
  } catch (err) {
    throw new ConfigError(`invalid configuration: HOLDFAST_OUTBOUND_ALLOW: ${(err as Error).message}`);
  }
  return Object.freeze({
    allowHttp: r.bool('HOLDFAST_OUTBOUND_ALLOW_HTTP', false),
    allow: Object.freeze(allow),
    connectTimeoutMs: r.int('HOLDFAST_OUTBOUND_CONNECT_TIMEOUT_MS', 5_000, { min: 100, max: 60_000 }),
    maxResponseBytes: r.int('HOLDFAST_OUTBOUND_MAX_RESPONSE_BYTES', 65_536, { min: 1024, max: 16 << 20 }),
  });
}

function allowed(policy: OutboundPolicy, address: string, port: number): boolean {
  const a = canonicalAddress(address);
  return policy.allow.some((r) => r.address === a && (r.port === '*' || r.port === port));
}

function portOf(u: URL): number {
  return u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
}

/**
 * Why an address may not be connected to under `policy`, or null when it may.
 *
 * @example
 * addressRefusal(STRICT_OUTBOUND_POLICY, '10.0.0.5', 443); // 'private'
 */
export function addressRefusal(policy: OutboundPolicy, address: string, port: number): AddressClass | null {
  if (allowed(policy, address, port)) return null;
  const cls = classifyAddress(address);
  return cls === 'public' ? null : cls;
}

/**
 * The checks that need no DNS: a parseable http(s) URL, https unless http is allowed, no credentials
 * in it, and a literal IP (or `localhost`) host only when public or allow-listed. Used when a
 * subscription or provider is created (a clear error early) and again before every call. Returns an
 * error message, or null when the URL passes.
 *
 * @example
 * checkOutboundUrl('http://169.254.169.254/latest', STRICT_OUTBOUND_POLICY);
 * // 'only https:// URLs are allowed'
 */
export function checkOutboundUrl(url: string, policy: OutboundPolicy): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url}" is not a URL`;
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && policy.allowHttp))
    return policy.allowHttp ? 'only http:// and https:// URLs are allowed' : 'only https:// URLs are allowed';
  if (u.username || u.password) return 'credentials in the URL are not allowed';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = portOf(u);
  if (isIP(host)) {
    const why = addressRefusal(policy, host, port);
    if (why) return `${host} is not a public address (${why.replace('_', '-')})`;
  } else if (/(^|\.)localhost\.?$/i.test(host) && !allowed(policy, '127.0.0.1', port)) {
    return `${host} is not a public address (loopback)`;
  }
  return null;
}

/** What the guarded client answers: the status and at most `maxResponseBytes` of body. */
export interface OutboundResponse {
  readonly status: number;
  readonly body: Buffer;
}

/** A request through the guarded client. */
export interface OutboundRequest {
  readonly method?: 'POST' | 'GET' | 'PUT';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** The whole call (connect, send, answer) must be over within this. */
  readonly timeoutMs: number;
}

/** `dns.lookup` with `all: true` (injectable so tests can play a rebinding DNS server). */
export type ResolveAll = (
  hostname: string,
  options: { all: true; family: number },
  cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolve: ResolveAll = (hostname, options, cb) => dnsLookup(hostname, options, cb);

/** The one HTTP client for calls leaving the service. */
export interface OutboundClient {
  /**
   * Sends one request under the policy. A 3xx is answered as `redirect_refused` (never followed);
   * any other status is returned. Throws OutboundError for everything that is not an answer.
   */
  request(url: string, req: OutboundRequest): Promise<OutboundResponse>;
}

function failureOf(err: unknown): OutboundError {
  if (err instanceof OutboundError) return err;
  const code = (err as { code?: string }).code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA')
    return new OutboundError('dns_failed', 'the host name did not resolve');
  if (/^ERR_TLS|CERT|SSL|^EPROTO$/.test(code) || /certificate|ssl|tls/i.test((err as Error).message))
    return new OutboundError('tls_failed', 'the TLS handshake failed');
  return new OutboundError('connection_failed', 'the connection failed');
}

/**
 * Creates the guarded client. Every destination is checked on the address actually connected to: the
 * request's own `lookup` resolves the host and refuses non-public addresses at connect time, so a DNS
 * answer that changes between a check and the connection (DNS rebinding) cannot slip through. Literal
 * IP hosts (which skip `lookup`) are checked before connecting.
 *
 * @example
 * const client = createOutboundClient(readOutboundPolicy(reader));
 * const res = await client.request('https://hooks.example.com/x', { method: 'POST', body, timeoutMs: 10_000 });
 */
export function createOutboundClient(
  policy: OutboundPolicy,
  { resolve: resolveAll = systemResolve }: { readonly resolve?: ResolveAll } = {},
): OutboundClient {
  return {
    request: (url, req) =>
      new Promise<OutboundResponse>((resolve, reject) => {
        const problem = checkOutboundUrl(url, policy);
        if (problem) return reject(new OutboundError('destination_refused', problem));
        const u = new URL(url);
        const port = portOf(u);
        let refused: OutboundError | null = null;
        // Resolves like dns.lookup, keeping only addresses the policy allows; when none is left the
        // connection fails with the refusal as its cause.
        const lookup: LookupFunction = (hostname, options, cb) => {
          const family =
            options.family === 'IPv6' ? 6 : options.family === 'IPv4' ? 4 : (options.family ?? 0);
          resolveAll(hostname, { all: true, family }, (err, addresses) => {
            if (err) return cb(err, '', 0);
            const ok = addresses.filter((a) => !addressRefusal(policy, a.address, port));
            if (!ok.length) {
              const why = addressRefusal(policy, addresses[0]!.address, port);
              refused = new OutboundError('destination_refused', `${hostname} resolves to a ${why} address`);
              return cb(refused, '', 0);
            }
            if (options.all) cb(null, ok);
            else cb(null, ok[0]!.address, ok[0]!.family);
          });
        };
        const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
        const headers = { ...req.headers };
        if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
        const r = send(u, { method: req.method ?? 'GET', headers, lookup, agent: false });
        let settled = false;
        const fail = (e: unknown): void => {
          if (settled) return;
          settled = true;
          clearTimeout(total);
          clearTimeout(connect);
          r.destroy();
          reject(refused ?? failureOf(e));
        };
        const total = setTimeout(
          () => fail(new OutboundError('timeout', `no answer within ${req.timeoutMs} ms`)),
          req.timeoutMs,
        );
        const connect = setTimeout(
          () => fail(new OutboundError('timeout', `not connected within ${policy.connectTimeoutMs} ms`)),
          policy.connectTimeoutMs,
        );
        r.on('socket', (s) => {
          s.once(u.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connect));
        });
        r.on('error', fail);
        r.on('response', (res: IncomingMessage) => {
          clearTimeout(connect);
          const status = res.statusCode ?? 0;
          if (status >= 300 && status < 400) {
            return fail(
              new OutboundError('redirect_refused', `answered ${status}; redirects are not followed`, status),
            );
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > policy.maxResponseBytes)
              return fail(
                new OutboundError('response_too_large', `answer over ${policy.maxResponseBytes} bytes`),
              );
            chunks.push(c);
          });
          res.on('error', fail);
          res.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(total);
            resolve({ status, body: Buffer.concat(chunks) });
          });
        });
        r.end(req.body);
      }),
  };
}

let ambient: OutboundPolicy | undefined;

/**
 * The outbound policy of this process's environment (HOLDFAST_OUTBOUND_*), read once on first use:
 * the default for code embedded in-process (tests). Service entry points read theirs with their
 * configuration and pass the client explicitly.
 */
export function defaultOutboundPolicy(): OutboundPolicy {
  ambient ??= readOutboundPolicy(new EnvReader(process.env));
  return ambient;
}
