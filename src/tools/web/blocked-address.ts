import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * TOOL-1: addresses `web_fetch` never reaches unless a rule names the host: the machine itself
 * (loopback — the Control Center's own port included), private and shared networks (RFC 1918, CGNAT),
 * link-local (the cloud metadata service at 169.254.169.254 lives there), multicast, and ranges that
 * are no destination at all. IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4) are judged
 * by the IPv4 address they carry.
 */
const IPV4_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'a private network'],
  ['100.64.0.0', 10, 'carrier-grade NAT (shared address space)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'a private network'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'a private network'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (and broadcast)'],
];

const IPV6_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  ['::', 128, 'the unspecified address'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'IPv4-compatible (deprecated)'],
  ['::ffff:0:0:0', 96, 'IPv4-translated (SIIT)'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];

function buildList(ranges: ReadonlyArray<readonly [string, number, string]>, family: 'ipv4' | 'ipv6'): Array<{ list: BlockList; label: string }> {
  return ranges.map(([network, prefix, label]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, label };
  });
}

const IPV4_LISTS = buildList(IPV4_RANGES, 'ipv4');
const IPV6_LISTS = buildList(IPV6_RANGES, 'ipv6');

/** Expands an IPv6 address to its eight 16-bit groups (the embedded-IPv4 forms need the last two). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const octets = dotted[1]!.split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups].map((group) => Number.parseInt(group, 16));
}

function ipv4FromGroups(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The IPv4 address an IPv6 address carries (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`), if any. */
function embeddedIpv4(address: string): string | null {
  const groups = ipv6Groups(address);
  if (groups.length !== 8) return null;
  const zeroUpTo = (count: number) => groups.slice(0, count).every((group) => group === 0);
  if (zeroUpTo(5) && groups[5] === 0xffff) return ipv4FromGroups(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0)) return ipv4FromGroups(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return ipv4FromGroups(groups[1]!, groups[2]!);
  return null;
}

/**
 * Why an IP address is refused as a `web_fetch` destination, or null when it is a public address.
 * Anything that is not an IP address at all is refused too (the caller resolves names first).
 */
export function blockedAddressReason(address: string): string | null {
  if (isIPv4(address)) {
    const hit = IPV4_LISTS.find(({ list }) => list.check(address, 'ipv4'));
    return hit ? `${address} is ${hit.label}` : null;
  }
  if (isIPv6(address)) {
    const carried = embeddedIpv4(address);
    if (carried !== null) {
      const inner = blockedAddressReason(carried);
      return inner ? `${address} carries ${inner}` : null;
    }
    const hit = IPV6_LISTS.find(({ list }) => list.check(address, 'ipv6'));
    return hit ? `${address} is ${hit.label}` : null;
  }
  return `${JSON.stringify(address)} is not an IP address`;
}
