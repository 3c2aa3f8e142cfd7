/**
 * Admin changes from another site are refused before the merchant's cookies are even looked at
 * (a second line behind "admin bodies must be JSON"): an unsafe method (anything but GET, HEAD, OPTIONS)
 * whose `Origin` is neither this site nor a trusted origin, or that the browser marks
 * `Sec-Fetch-Site: cross-site`, gets 403 `cross_site_request`. Callers that send no `Origin` (servers,
 * curl, a back end with the bearer token) are not affected.
 *
 * "This site" is the origin the request was made to, from its `Host` (an `https://` page on the same
 * host counts too: TLS ended at a load balancer), and the merchant's `publicOrigin`: behind a reverse
 * proxy that rewrites `Host` (nginx's default), the `Host` names the proxy's own address and only
 * `publicOrigin` knows the site's. The refusal says which case it is and what to set, because the
 * merchant reads it in the admin element.
 */
import type { Guard } from '../exchange.js';
import { errorOut, type ProxyIncoming } from '../messages.js';
import { normalizeOrigin } from './cors.js';

/** The options that decide which origins may send admin changes (see `PaylinkProxyOptions`). */
export interface CrossSiteOptions {
  /** The origin browsers load the merchant's pages from (normalized by `parsePublicOrigin`). */
  publicOrigin?: string | undefined;
  trustedAdminOrigins?: readonly string[] | undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Refuses unsafe methods sent from another site (403 `cross_site_request`, with the reason). */
export function crossSiteGuard(options: CrossSiteOptions): Guard {
  const trusted = new Set((options.trustedAdminOrigins ?? []).map(normalizeOrigin));
  const publicOrigin = options.publicOrigin;
  return (exchange) => {
    const incoming = exchange.incoming;
    if (SAFE_METHODS.has(incoming.method)) return undefined;
    const reason = refusalReason(incoming, trusted, publicOrigin);
    return reason === undefined ? undefined : errorOut(403, 'cross_site_request', reason);
  };
}

/** Why the request is cross-site, in words a merchant can act on; `undefined` when it isn't. */
function refusalReason(incoming: ProxyIncoming, trusted: ReadonlySet<string>, publicOrigin: string | undefined): string | undefined {
  const origin = incoming.header('origin');
  if (origin !== null) {
    const normalized = normalizeOrigin(origin);
    if (trusted.has(normalized)) return undefined;
    const own = incoming.url();
    if (normalized !== publicOrigin && !isSameOrigin(normalized, own)) return foreignOrigin(normalized, own, publicOrigin);
  }
  if (incoming.header('sec-fetch-site')?.trim().toLowerCase() === 'cross-site') {
    return 'Admin change refused: the browser marked it as sent from another site (Sec-Fetch-Site: cross-site). Open the admin on this site, or list its origin in trustedAdminOrigins.';
  }
  return undefined;
}

function foreignOrigin(origin: string, own: URL, publicOrigin: string | undefined): string {
  const page = safeOrigin(origin);
  if (page === undefined) {
    return 'Admin change refused: it came from a page without an origin (a sandboxed frame, a local file or a privacy redirect). Open the admin on this site.';
  }
  const trustHint = `to let ${page} manage payments on purpose, add it to trustedAdminOrigins.`;
  if (publicOrigin !== undefined) {
    return `Admin change refused as cross-site: the page's origin ${page} is not this site's public origin ${publicOrigin} (PAYLINK_PUBLIC_ORIGIN / publicOrigin); ${trustHint}`;
  }
  return (
    `Admin change refused as cross-site: the page's origin ${page} is not the origin this proxy was reached at (${own.origin}). ` +
    `If a reverse proxy in front of it rewrites the Host header, set PAYLINK_PUBLIC_ORIGIN (the publicOrigin option) to ${page}; ${trustHint}`
  );
}

/** The origin as `URL` writes it (so the message never carries request bytes as they came), or `undefined` for `null` and garbage. */
function safeOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `origin` (normalized) is the origin `url` was requested on. An `https://` page on the same host
 * also counts when the proxy sees plain `http://`: TLS ended at a load balancer in front of it.
 */
function isSameOrigin(origin: string, url: URL): boolean {
  if (origin === url.origin.toLowerCase()) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false; // `null` (sandboxed frames, privacy redirects) and anything unparsable
  }
  return parsed.protocol === 'https:' && url.protocol === 'http:' && parsed.host === url.host.toLowerCase();
}

/**
 * `publicOrigin` as given (`https://shop.example`, a trailing slash allowed) → its normalized origin.
 * Throws a `TypeError` naming the mistake for anything else (a path, another scheme, garbage).
 */
export function parsePublicOrigin(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`publicOrigin must be an origin such as https://shop.example; got ${text}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new TypeError(`publicOrigin must be an origin such as https://shop.example (scheme, host and port only); got ${text}`);
  }
  return url.origin;
}
