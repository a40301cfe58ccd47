import { isIP } from 'node:net';

/**
 * What kind of destination an IP address is. Only `public` may be called by default: everything else
 * reaches the service's own host, its network, or nowhere useful (SSRF targets such as
 * 169.254.169.254, the metadata service, are `link_local`).
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'multicast'
  | 'cgnat'
  | 'unique_local'
  | 'unspecified'
  | 'reserved'
  | 'invalid';

type Range = readonly [prefix: bigint, bits: number, cls: AddressClass];

function v4(a: string): bigint {
  return a.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

function v6(a: string): bigint {
  // Expands `::` and an embedded dotted IPv4 tail, then reads eight 16-bit groups.
  let s = a.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const n = v4(dotted[1]!);
    s = s.slice(0, -dotted[1]!.length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = s.includes('::') ? s.split('::') : [s, undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g || '0', 16)), 0n);
}

// A table of [first address, prefix bits, class] rows, parsed once.
const ranges = (parse: (a: string) => bigint, rows: readonly (readonly [string, number, AddressClass])[]) =>
  rows.map(([a, bits, cls]): Range => [parse(a), bits, cls]);

const V4: readonly Range[] = ranges(v4, [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
]);

const V6: readonly Range[] = ranges(v6, [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'reserved'],
  ['2001::', 23, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
  ['fc00::', 7, 'unique_local'],
  ['fe80::', 10, 'link_local'],
  ['fec0::', 10, 'link_local'],
  ['ff00::', 8, 'multicast'],
]);

function inRange(n: bigint, width: number, [prefix, bits]: Range): boolean {
  const shift = BigInt(width - bits);
  return n >> shift === prefix >> shift;
}

function classifyV4(n: bigint): AddressClass {
  return V4.find((r) => inRange(n, 32, r))?.[2] ?? 'public';
}

/**
 * The class of an IP address (v4 or v6, any textual form). IPv6 forms that carry an IPv4 address
 * (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`)
 * take the class of the IPv4 address they carry, so `::ffff:127.0.0.1` is `loopback`. Outside
 * 2000::/3 (global unicast) an IPv6 address is never public.
 *
 * @example
 * classifyAddress('169.254.169.254'); // 'link_local'
 * classifyAddress('::ffff:10.0.0.1'); // 'private'
 * classifyAddress('93.184.216.34');   // 'public'
 */
export function classifyAddress(ip: string): AddressClass {
  const family = isIP(ip.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (family === 4) return classifyV4(v4(ip));
  if (family !== 6) return 'invalid';
  const n = v6(ip.replace(/^\[|\]$/g, ''));
  if (n >> 32n === 0xffffn || (n >> 32n === 0n && n > 1n)) return classifyV4(n & 0xffffffffn);
  if (n >> 32n === v6('64:ff9b::') >> 32n) return classifyV4(n & 0xffffffffn);
  if (n >> 112n === 0x2002n) return classifyV4((n >> 80n) & 0xffffffffn);
  const special = V6.find((r) => inRange(n, 128, r))?.[2];
  if (special) return special;
  return n >> 125n === 1n ? 'public' : 'reserved';
}

/** The canonical text of an address (IPv6 compressed, lower case), for allow-list comparison. */
export function canonicalAddress(ip: string): string {
  const bare = ip.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 6) return bare;
  // The URL parser writes IPv6 in its canonical (RFC 5952) form.
  return new URL(`http://[${bare.replace(/%.*$/, '')}]/`).hostname.replace(/^\[|\]$/g, '');
}
