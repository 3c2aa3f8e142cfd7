/**
 * Who the client is, for every per-client limit of the service and the proxy (connections, event
 * streams, rate limits, counted visits): the socket's peer, or, behind load balancers or proxies you
 * run, the address they wrote into `X-Forwarded-For`. One implementation for both servers.
 *
 * Trust (`trustProxy`, env `PAYLINK_TRUST_PROXY`) says which `X-Forwarded-For` entries to believe:
 * - unset, `false`, `0`: none; the client is the peer (clients can write that header themselves);
 * - `true`, `1`, or a number n: any peer is a proxy, and the client is the n-th entry from the right
 *   (each proxy appends the address it received from); the leftmost when the header is shorter;
 * - a list of addresses, CIDR ranges and the names `loopback` and `private` (`127.0.0.1,10.0.0.0/8`):
 *   only those peers are proxies; the client is the rightmost entry that is not one of them. Peers
 *   outside the list are clients themselves, whatever header they send.
 *
 * A trusted peer is a proxy, not a client: the Node server does not cap its connections per address
 * (they carry many clients), it caps requests in flight per forwarded client instead.
 * Runtime-neutral: no Node imports.
 */

/** Which `X-Forwarded-For` entries to believe (see the module comment). */
export type TrustProxy = boolean | number | readonly string[] | undefined;

/** Resolves the client of a request from its socket peer and its `X-Forwarded-For` header. */
export interface ClientAddressResolver {
  (peer: string | undefined, forwardedFor: string | null | undefined): string | undefined;
  /** True when `peer` is a proxy whose `X-Forwarded-For` is believed. */
  trustsPeer(peer: string | undefined): boolean;
  /** True when any `X-Forwarded-For` is believed at all. */
  readonly trusting: boolean;
}

/** A configuration mistake in `trustProxy`, with the sentence that says what is wrong. */
export class TrustProxyError extends Error {
  override name = 'TrustProxyError';
}

/** Reads `PAYLINK_TRUST_PROXY`: `1`/`true`, a hop count, or a comma list of addresses, CIDRs, `loopback`, `private`. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = value?.trim();
  if (!text || text === '0' || text.toLowerCase() === 'false') return undefined;
  if (text.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) parseRange(entry); // throws on a bad one, at start
  return entries;
}

/** Builds the resolver for `trust`. Throws a `TrustProxyError` on an entry that is no address or range. */
export function createClientAddressResolver(trust: TrustProxy): ClientAddressResolver {
  let resolve: (peer: string | undefined, forwardedFor: string | null | undefined) => string | undefined;
  let trustsPeer: (peer: string | undefined) => boolean;
  if (Array.isArray(trust)) {
    const ranges = (trust as readonly string[]).flatMap(parseRange);
    const trusted = (address: string) => {
      const parsed = parseAddress(address);
      return parsed !== null && ranges.some((range) => inRange(parsed, range));
    };
    trustsPeer = (peer) => peer !== undefined && trusted(normalizeAddress(peer));
    resolve = (peer, forwardedFor) => {
      const client = peer === undefined ? undefined : normalizeAddress(peer);
      if (client === undefined || !trusted(client) || !forwardedFor) return client;
      const chain = forwardedChain(forwardedFor);
      for (let i = chain.length - 1; i >= 0; i--) if (!trusted(chain[i]!)) return chain[i];
      return chain[0] ?? client;
    };
  } else {
    const hops = trust === true ? 1 : typeof trust === 'number' && trust >= 1 ? Math.floor(trust) : 0;
    trustsPeer = () => hops > 0;
    resolve = (peer, forwardedFor) => {
      if (hops > 0 && forwardedFor) {
        const chain = forwardedChain(forwardedFor);
        const entry = chain[Math.max(0, chain.length - hops)];
        if (entry !== undefined) return entry;
      }
      return peer === undefined ? undefined : normalizeAddress(peer);
    };
  }
  const resolver = resolve as ClientAddressResolver;
  Object.defineProperty(resolver, 'trustsPeer', { value: trustsPeer });
  Object.defineProperty(resolver, 'trusting', {
    value: trust !== undefined && trust !== false && trust !== 0 && !(Array.isArray(trust) && trust.length === 0),
  });
  return resolver;
}

/** The entries of an `X-Forwarded-For` header, normalized, at most 64 characters each (the header is the client's to write). */
function forwardedChain(header: string): string[] {
  const chain: string[] = [];
  for (const part of header.split(',')) {
    const entry = part.trim();
    if (entry) chain.push(normalizeAddress(entry).slice(0, 64));
  }
  return chain;
}

/**
 * One spelling per address: IPv4-mapped IPv6 (`::ffff:127.0.0.1`, what a dual-stack socket reports) as
 * IPv4, IPv6 in lower case without brackets or zone, and a port (`1.2.3.4:5678`, `[::1]:80`) dropped.
 */
export function normalizeAddress(address: string): string {
  if (PLAIN_IPV4.test(address)) return address; // what nearly every call gets
  let text = address.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) text = bracketed[1]!;
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(':'));
  text = text.toLowerCase();
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  return mapped ? mapped[1]! : text;
}

const PLAIN_IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

interface ParsedAddress {
  version: 4 | 6;
  value: bigint;
}

interface AddressRange extends ParsedAddress {
  bits: number;
}

const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', '169.254.0.0/16', 'fe80::/10'],
};

/** `10.0.0.0/8`, `::1`, `loopback` → its ranges. */
function parseRange(entry: string): AddressRange[] {
  const named = NAMED_RANGES[entry.toLowerCase()];
  if (named) return named.flatMap(parseRange);
  const [address = '', bitsText] = entry.split('/');
  const parsed = parseAddress(normalizeAddress(address));
  const width = parsed?.version === 4 ? 32 : 128;
  const bits = bitsText === undefined ? width : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (!parsed || !(bits >= 0 && bits <= width)) {
    throw new TrustProxyError(`PAYLINK_TRUST_PROXY: "${entry}" is not an address, a CIDR range, "loopback" or "private"`);
  }
  return [{ ...parsed, bits }];
}

function inRange(address: ParsedAddress, range: AddressRange): boolean {
  if (address.version !== range.version) return false;
  const width = range.version === 4 ? 32n : 128n;
  const shift = width - BigInt(range.bits);
  return address.value >> shift === range.value >> shift;
}

/** An IPv4 or IPv6 address as a number, or null. */
function parseAddress(text: string): ParsedAddress | null {
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(text)) {
    const parts = text.split('.').map(Number);
    if (parts.some((part) => part > 255)) return null;
    return { version: 4, value: parts.reduce((sum, part) => (sum << 8n) | BigInt(part), 0n) };
  }
  if (!/^[0-9a-f:.]+$/.test(text) || !text.includes(':')) return null;
  let groups: string[];
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const expand = (half: string) => (half === '' ? [] : half.split(':'));
  const tail = expand(halves[1] ?? '');
  const last = tail.at(-1) ?? expand(halves[0]!).at(-1);
  // An embedded IPv4 tail (`::ffff:1.2.3.4`) counts as two groups.
  const v4 = last && last.includes('.') ? parseAddress(last) : null;
  if (last?.includes('.') && !v4) return null;
  const withV4 = (list: string[]) =>
    v4 && list.at(-1) === last ? [...list.slice(0, -1), ((v4.value >> 16n) & 0xffffn).toString(16), (v4.value & 0xffffn).toString(16)] : list;
  if (halves.length === 2) {
    const head = withV4(expand(halves[0]!));
    const rest = withV4(tail);
    const missing = 8 - head.length - rest.length;
    if (missing < 1) return null;
    groups = [...head, ...Array<string>(missing).fill('0'), ...rest];
  } else {
    groups = withV4(expand(text));
  }
  if (groups.length !== 8 || groups.some((group) => !/^[0-9a-f]{1,4}$/.test(group))) return null;
  return { version: 6, value: groups.reduce((sum, group) => (sum << 16n) | BigInt(parseInt(group, 16)), 0n) };
}
