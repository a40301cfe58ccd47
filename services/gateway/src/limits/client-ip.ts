import { isIP } from 'node:net';

/** Expands an IPv6 address (no zone) to its eight 16-bit groups, or null. */
function ipv6Groups(ip: string): number[] | null {
  let text = ip;
  // A trailing dotted IPv4 part (::ffff:192.0.2.1, 64:ff9b::192.0.2.1) becomes two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const head = part(halves[0]!);
  const tail = halves.length === 2 ? part(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return null;
  return [...head, ...Array<number>(fill).fill(0), ...tail];
}

/**
 * The client address a per-IP limit counts: an IPv4 address as is (an IPv4-mapped IPv6 address
 * `::ffff:a.b.c.d` as its IPv4 address), an IPv6 address as its /64 (`2001:db8:1:2::/64`): one
 * subscriber usually holds a whole /64, so counting per /128 would give one client 2^64 budgets.
 *
 * @example
 * rateLimitAddress('2001:db8:1:2:aaaa::1'); // '2001:db8:1:2::/64'
 * rateLimitAddress('::ffff:192.0.2.7');     // '192.0.2.7'
 */
export function rateLimitAddress(ip: string | undefined): string {
  if (ip === undefined || ip === '') return 'unknown';
  const bare = ip.includes('%') ? ip.slice(0, ip.indexOf('%')) : ip;
  const family = isIP(bare);
  if (family === 4) return bare;
  if (family !== 6) return 'unknown';
  const groups = ipv6Groups(bare.toLowerCase());
  if (!groups) return 'unknown';
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
