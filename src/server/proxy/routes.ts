/**
 * The proxy's route table: every path a browser may reach under `basePath`, what it becomes
 * upstream, and the policy it runs under. One place: a route is not spread over string branches,
 * allow-list regexes and method sets any more. `createPaylinkProxy` turns each area's policy into its
 * chain of guards (see `proxy.ts`); this file decides nothing at run time beyond matching.
 *
 * An area is a prefix with one policy (who may call, CORS, limits, which upstream prefix replaces it);
 * its routes are the paths allowed below that prefix and their methods. Anything else is a 404.
 *
 * The routes of the checkout and admin areas are not written here: they are the API's route table
 * (`core/routes.ts`), its `public` operations below `/v1/checkout` and its `key` operations below `/v1`.
 * A route the service adds is reachable through the proxy the moment the table has it, and nothing the
 * table lacks ever is.
 */
import { API_ROUTES, colonPath, type ApiRoute, type RouteAccess } from '../../core/routes.js';

/** Who may call an area: anyone, or callers the merchant's `authorize` (or bearer `adminToken`) accepts. */
export type RouteAuth = 'public' | 'admin';

/** One path below an area's prefix. */
export interface ProxyRoute {
  /**
   * The path below the area prefix: literal segments, `:name` for one segment, and a trailing `*` for
   * any number (zero included) of further segments. `/payment-link/*` matches `/payment-link` and
   * `/payment-link/abc/single`, never `/payment-links` nor an empty segment (`/payment-link/`).
   */
  readonly path: string;
  /** The methods it takes (upper case). OPTIONS is the area's (CORS preflight or `Allow`). */
  readonly methods: readonly string[];
  /** A long-lived event stream: counted per client by the streams guard, no timeout once its headers came. */
  readonly stream?: boolean;
}

/** A prefix under `basePath` with one policy. */
export interface ProxyArea {
  readonly name: string;
  /** Below `basePath`, e.g. `/checkout`. */
  readonly prefix: string;
  /**
   * Where requests go: an upstream path prefix that replaces `prefix` (`/checkout/x` → `/v1/checkout/x`),
   * or `bundles` for the script-tag files the `bundles` option serves.
   */
  readonly target: { readonly upstream: string } | 'bundles';
  readonly auth: RouteAuth;
  /** CORS for `allowedOrigins` on every answer, preflights answered. Without it, OPTIONS gets only `Allow`. */
  readonly cors: boolean;
  /** Per-client rate limit (the `rateLimit` option). */
  readonly rateLimit: boolean;
  /** Refuse unsafe methods another site's page sends (403 `cross_site_request`). */
  readonly refuseCrossSiteWrites: boolean;
  /** Request bodies: up to `maxBodyBytes` of anything, of JSON only (415 otherwise), or none read. */
  readonly body: 'any' | 'json' | 'none';
  /** The `X-API-KEY` goes upstream with these requests (only ever with `auth: 'admin'`). */
  readonly withKey: boolean;
  /** Every answer, refusals included, is `Cache-Control: no-store` (the merchant's data must sit in no cache). */
  readonly noStore?: boolean;
  readonly routes: readonly ProxyRoute[];
}

const READ = ['GET', 'HEAD'] as const;

/**
 * The table's operations of one access under an upstream prefix, as proxy routes below it: one route
 * per path with all its methods (GET brings HEAD), in the table's order.
 */
export function routesOf(access: RouteAccess, upstream: string, table: readonly ApiRoute[] = API_ROUTES): ProxyRoute[] {
  const byPath = new Map<string, { path: string; methods: string[]; stream?: boolean }>();
  for (const route of table) {
    if (route.auth !== access || !route.path.startsWith(`${upstream}/`)) continue;
    const path = colonPath(route.path.slice(upstream.length));
    const entry = byPath.get(path) ?? { path, methods: [] };
    entry.methods.push(...(route.method === 'GET' ? READ : [route.method]));
    if (route.stream) entry.stream = true;
    byPath.set(path, entry);
  }
  const order = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'];
  for (const entry of byPath.values()) entry.methods.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return [...byPath.values()];
}

/**
 * The table. Checkout: the service's public, keyless routes. Admin: the integrator's resources (links,
 * orders, withdrawals, balance; the merchant's payments and webhooks), with the key added, for
 * authorized callers only. Dist: the script-tag bundles, served locally.
 */
export const PROXY_AREAS: readonly ProxyArea[] = [
  {
    name: 'checkout',
    prefix: '/checkout',
    target: { upstream: '/v1/checkout' },
    auth: 'public',
    cors: true,
    rateLimit: true,
    refuseCrossSiteWrites: false,
    body: 'any',
    withKey: false,
    routes: routesOf('public', '/v1/checkout'),
  },
  {
    name: 'admin',
    prefix: '/admin',
    target: { upstream: '/v1' },
    auth: 'admin',
    cors: false,
    rateLimit: false,
    refuseCrossSiteWrites: true,
    body: 'json',
    withKey: true,
    noStore: true,
    routes: routesOf('key', '/v1'),
  },
  {
    name: 'dist',
    prefix: '/dist',
    target: 'bundles',
    auth: 'public',
    cors: false,
    rateLimit: false,
    refuseCrossSiteWrites: false,
    body: 'none',
    withKey: false,
    routes: [{ path: '/:file', methods: READ }],
  },
];

/** Encoded separators and dots would let a path step out of its route once the upstream decodes it. */
const SUSPICIOUS_PATH = /%2e|%2f|%5c|%00|\\/i;

/** Where a request landed: its area and the path below the area's prefix. */
export interface AreaMatch<A extends ProxyArea = ProxyArea> {
  area: A;
  /** `''` or `/…`. */
  rest: string;
}

/** The route a path and method select, or why none does. */
export type RouteMatch = { route: ProxyRoute } | { refused: 404 } | { refused: 405; allow: string };

/** Matches paths against a table under `basePath`. Patterns compile once, here. */
export interface Router<A extends ProxyArea = ProxyArea> {
  /** The area a full request path belongs to; `undefined` outside `basePath`, outside every area, or a suspicious path. */
  area(pathname: string): AreaMatch<A> | undefined;
  /** The route of `rest` (below the area's prefix) and `method`; 405 names what the path does take. */
  route(area: A, rest: string, method: string): RouteMatch;
}

/** Builds the matcher for `areas` mounted at `basePath` (normalized: `''` or `/x`, no trailing slash). */
export function createRouter<A extends ProxyArea>(basePath: string, areas: readonly A[]): Router<A> {
  const compiled = new Map<A, { route: ProxyRoute; pattern: RegExp }[]>();
  for (const area of areas)
    compiled.set(
      area,
      area.routes.map((route) => ({ route, pattern: compilePath(route.path) })),
    );
  const mounts = areas.map((area) => ({ area, prefix: basePath + area.prefix }));

  return {
    area(pathname) {
      if (SUSPICIOUS_PATH.test(pathname)) return undefined;
      for (const { area, prefix } of mounts) {
        if (!pathname.startsWith(prefix)) continue;
        const rest = pathname.slice(prefix.length);
        if (rest === '' || rest.charCodeAt(0) === 47 /* / */) return { area, rest };
      }
      return undefined;
    },
    route(area, rest, method) {
      let allowed: Set<string> | undefined;
      for (const { route, pattern } of compiled.get(area) ?? []) {
        if (!pattern.test(rest)) continue;
        if (route.methods.includes(method)) return { route };
        allowed ??= new Set();
        for (const name of route.methods) allowed.add(name);
      }
      if (!allowed) return { refused: 404 };
      return { refused: 405, allow: [...allowed, 'OPTIONS'].join(', ') };
    },
  };
}

/** `/a/:b/*` → `^/a/[^/]+(?:/[^/]+)*$`. */
export function compilePath(path: string): RegExp {
  let source = '';
  const segments = path.split('/').slice(1);
  segments.forEach((segment, index) => {
    if (segment === '*') {
      if (index !== segments.length - 1) throw new Error(`route ${path}: * only at the end`);
      source += '(?:/[^/]+)*';
    } else if (segment.startsWith(':')) {
      source += '/[^/]+';
    } else {
      source += `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    }
  });
  return new RegExp(`^${source}$`);
}

/** Every method an area's routes take, with OPTIONS (its `Allow` header). */
export function areaMethods(area: ProxyArea): string {
  return [...new Set(area.routes.flatMap((route) => route.methods)), 'OPTIONS'].join(', ');
}

/** One line of the proxy's index: a path a browser may call and who may. */
export interface RouteIndexEntry {
  path: string;
  methods: string[];
  access: RouteAuth;
  /** The service path it reaches (absent for the bundles, which the proxy serves itself). */
  upstream?: string;
}

/**
 * What `GET basePath` answers: the table as a short JSON index, so the proxy's own address (which a
 * newcomer opens first) says what lives below it instead of a bare 404. Only what the route table
 * already says publicly: no key, no upstream address.
 */
export function describeRoutes(basePath: string, areas: readonly ProxyArea[] = PROXY_AREAS): { name: string; routes: RouteIndexEntry[] } {
  const routes = areas.flatMap((area) =>
    area.routes.map((route) => ({
      path: `${basePath}${area.prefix}${route.path}`,
      methods: [...route.methods],
      access: area.auth,
      ...(area.target === 'bundles' ? {} : { upstream: `${area.target.upstream}${route.path}` }),
    })),
  );
  return { name: 'Paylink proxy', routes };
}
