/**
 * The SSRF guard of webhook deliveries: the service posts to URLs its integrators chose, so
 * without this an API key could make it call the machine it runs on (`127.0.0.1:5432`), its private
 * network (`10.0.0.0/8`…), or the cloud metadata service (`169.254.169.254`, `fd00:ec2::254`) and read the
 * answer's status in the delivery log. Refused: every address that is not public (loopback, private,
 * CGNAT, link-local, unique-local, multicast, reserved, documentation and the other special-purpose
 * ranges of IANA's registries, as ipaddr.js knows them), in IPv4 and IPv6 and in every IPv6 form that
 * carries an IPv4 address, on every chain, unless `PAYLINK_WEBHOOK_ALLOW_PRIVATE=1`.
 *
 * A host is checked when the endpoint is created or changed and again at every delivery, on the
 * addresses the connection then uses: the sender pins the connection to the addresses this module
 * checked (`guardedLookup`), so a name that resolves to a public address when checked and to
 * `127.0.0.1` a moment later (DNS rebinding) still never reaches `127.0.0.1`.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

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

/**
 * An endpoint's host is, or resolves to, an address the service does not post to. The message names
 * the host as the integrator wrote it, never an address it resolved to: the service's DNS may see
 * names the integrator can't (an internal zone), and the error must not tell them what those hold.
 */
export class PrivateAddressError extends Error {
  override name = 'PrivateAddressError';
  constructor(readonly hostname: string) {
    super(`${hostname} is, or resolves to, a private, loopback, link-local or otherwise non-public address`);
  }
}

/**
 * IPv6 forms that carry an IPv4 address, and where: an address in one of these is as public as the
 * IPv4 address it reaches. IPv4-mapped `::ffff:0:0/96` and IPv4-translated `::ffff:0:0:0/96` (the
 * last 32 bits), NAT64 `64:ff9b::/96` (the last 32 bits), 6to4 `2002::/16` (bits 16–47).
 */
const EMBEDS_IPV4: Partial<Record<string, (parts: readonly number[]) => [number, number]>> = {
  ipv4Mapped: (parts) => [parts[6]!, parts[7]!],
  rfc6145: (parts) => [parts[6]!, parts[7]!],
  '6to4': (parts) => [parts[1]!, parts[2]!],
};

/** The IPv4 address in a NAT64 address of the well-known `64:ff9b::/96` (not the local-use `64:ff9b:1::/48`). */
function nat64Embedded(address: ipaddr.IPv6): [number, number] | null {
  const [a, b, c, d, e, f] = address.parts;
  return a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0 ? [address.parts[6]!, address.parts[7]!] : null;
}

function ipv4Of([high, low]: [number, number]): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** Global unicast IPv6 (`2000::/3`): everything outside it is special or not allocated. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * True when `address` is a public address the service may post to. The ranges are ipaddr.js's, from
 * the IANA special-purpose registries: an IPv4 address must be plain unicast (not private, loopback,
 * link-local, CGNAT, multicast, broadcast, reserved, documentation, benchmarking, AS112, AMT); an IPv6
 * address must be global unicast outside every special range (unique-local, link-local, site-local,
 * Teredo `2001::/32`, the IETF assignments of `2001::/23` such as `2001:2::/48` and `2001:10::/28`,
 * documentation `2001:db8::/32` and `3fff::/20`, segment routing `5f00::/16`, discard-only, ORCHIDv2,
 * …), or one of the forms that embed an IPv4 address, judged by that address.
 */
function isPublic(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() === 'ipv4') return address.range() === 'unicast';
  const v6 = address as ipaddr.IPv6;
  const range = v6.range();
  const embedded = EMBEDS_IPV4[range]?.(v6.parts) ?? (range === 'rfc6052' ? nat64Embedded(v6) : null);
  if (embedded) return isPublic(ipv4Of(embedded));
  return range === 'unicast' && v6.match(GLOBAL_UNICAST_V6);
}

/** True when the service must not post to `address` (an IPv4 or IPv6 literal). Anything that is not an address is refused too. */
export function isPrivateAddress(address: string): boolean {
  // Node's own reading first: ipaddr.js also takes the forms no resolver returns (`0x7f.1`, `127.1`).
  if (isIP(address) === 0) return true;
  try {
    return !isPublic(ipaddr.parse(address));
  } catch {
    return true; // what cannot be read is not posted to
  }
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
    if (isPrivateAddress(literal)) throw new PrivateAddressError(hostname);
    return [];
  }
  const addresses = await resolveHost(hostname);
  if (addresses.length === 0) throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
  const refused = addresses.find(({ address }) => isPrivateAddress(address));
  if (refused) throw new PrivateAddressError(hostname);
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
