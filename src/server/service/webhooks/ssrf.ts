/**
 * The SSRF guard of webhook deliveries: the service posts to URLs its integrators chose, so
 * without this an API key could make it call the machine it runs on (`127.0.0.1:5432`), its private
 * network (`10.0.0.0/8`…), or the cloud metadata service (`169.254.169.254`, `fd00:ec2::254`) and read the
 * answer's status in the delivery log. Refused: loopback, private (RFC 1918, unique-local, CGNAT), link-local,
 * unspecified, multicast, reserved and documentation ranges, IPv4-mapped and NAT64 forms of those, unless the
 * chain is the sandbox or `PAYLINK_WEBHOOK_ALLOW_PRIVATE=1`.
 *
 * A host is checked when the endpoint is created or changed and again at every delivery, on the
 * addresses the connection then uses: the sender pins the connection to the addresses this module
 * checked (`guardedLookup`), so a name that resolves to a public address when checked and to
 * `127.0.0.1` a moment later (DNS rebinding) still never reaches `127.0.0.1`.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';

/** One resolved address of a host. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (tests inject their own answers). */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (`getaddrinfo`, like every other client on the machine), every address. */
export const systemResolveHost: ResolveHost = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/** An endpoint's host resolves to (or is) an address the service does not post to. */
export class PrivateAddressError extends Error {
  override name = 'PrivateAddressError';
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(
      hostname === address
        ? `${address} is a private, loopback, link-local or reserved address`
        : `${hostname} resolves to ${address}, a private, loopback, link-local or reserved address`,
    );
  }
}

/** IPv4 ranges never posted to, as [first octets as a 32-bit number, prefix length]. */
const PRIVATE_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // CGNAT (and Alibaba's metadata 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, and the metadata service of AWS, GCP, Azure
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
];

function v4Number(address: string): number {
  return address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}

const V4_RANGES = PRIVATE_V4.map(([base, bits]) => ({ base: v4Number(base), size: 2 ** (32 - bits) }));

function isPrivateV4(address: string): boolean {
  const value = v4Number(address);
  return V4_RANGES.some(({ base, size }) => value >= base && value < base + size);
}

/** The 8 groups of an IPv6 address (an embedded dotted IPv4 tail becomes two groups). */
function v6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const value = v4Number(tail[1]!);
    text = `${text.slice(0, -tail[1]!.length)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const headGroups = head ? head.split(':') : [];
  const restGroups = rest ? rest.split(':') : [];
  const missing = 8 - headGroups.length - restGroups.length;
  if (rest === undefined ? missing !== 0 : missing < 0) return null;
  const groups = [...headGroups, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...restGroups].map((group) => parseInt(group, 16));
  return groups.length === 8 && groups.every((group) => group >= 0 && group <= 0xffff) ? groups : null;
}

function isPrivateV6(address: string): boolean {
  const groups = v6Groups(address);
  if (!groups) return true; // what cannot be read is not posted to
  const [a, b, c, d, e, f, g, h] = groups as [number, number, number, number, number, number, number, number];
  const embeddedV4 = `${g >> 8}.${g & 0xff}.${h >> 8}.${h & 0xff}`;
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0) {
    if (f === 0 && g === 0 && (h === 0 || h === 1)) return true; // :: and ::1
    if (f === 0xffff || f === 0) return isPrivateV4(embeddedV4); // IPv4-mapped ::ffff:a.b.c.d, and IPv4-compatible
  }
  if (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return isPrivateV4(embeddedV4); // NAT64 64:ff9b::/96
  if (a === 0x64 && b === 0xff9b && c === 1) return true; // local-use NAT64 64:ff9b:1::/48
  if ((a & 0xfe00) === 0xfc00) return true; // unique-local fc00::/7 (AWS metadata fd00:ec2::254 among them)
  if ((a & 0xffc0) === 0xfe80 || (a & 0xffc0) === 0xfec0) return true; // link-local, site-local
  if ((a & 0xff00) === 0xff00) return true; // multicast
  if (a === 0x2001 && b === 0x0db8) return true; // documentation
  if (a === 0x2002) return isPrivateV4(`${b >> 8}.${b & 0xff}.${c >> 8}.${c & 0xff}`); // 6to4 of a private IPv4
  if (a === 0x0100 && b === 0 && c === 0 && d === 0) return true; // discard-only 100::/64
  return false;
}

/** True when the service must not post to `address` (an IPv4 or IPv6 literal). Anything that is not an address is refused too. */
export function isPrivateAddress(address: string): boolean {
  const kind = isIP(address);
  if (kind === 4) return isPrivateV4(address);
  if (kind === 6) return isPrivateV6(address);
  return true;
}

/** A URL's host as an address literal (`[::1]` → `::1`), or null when it is a name. */
export function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : null;
}

/**
 * Resolves `hostname` and throws `PrivateAddressError` when the host is, or any of its addresses is,
 * private. Returns the addresses (empty for a literal). Resolution errors (no such host) propagate.
 */
export async function checkHost(hostname: string, resolveHost: ResolveHost): Promise<ResolvedAddress[]> {
  const literal = literalAddress(hostname);
  if (literal !== null) {
    if (isPrivateAddress(literal)) throw new PrivateAddressError(literal, literal);
    return [];
  }
  const addresses = await resolveHost(hostname);
  if (addresses.length === 0) throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
  const refused = addresses.find(({ address }) => isPrivateAddress(address));
  if (refused) throw new PrivateAddressError(hostname, refused.address);
  return addresses;
}

/**
 * A `lookup` for `http.request` that resolves with `resolveHost`, refuses private answers (unless
 * `allowPrivate`), and hands the connection exactly the addresses it checked.
 */
export function guardedLookup(resolveHost: ResolveHost, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    const wantsAll = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
    const resolving = allowPrivate ? resolveHost(hostname) : checkHost(hostname, resolveHost);
    resolving.then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 4);
        if (wantsAll) (callback as unknown as (error: null, all: ResolvedAddress[]) => void)(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };
}
