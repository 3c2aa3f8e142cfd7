/**
 * The Paylink proxy: a fetch handler that sits on the merchant's server, holds the API key
 * and lets browsers reach exactly what the route table (`routes.ts`) lists:
 *
 * - `basePath/checkout/*` → upstream `/v1/checkout/*`: public and keyless, CORS for `allowedOrigins`,
 *   rate-limited per client, event streams capped per client and in total;
 * - `basePath/admin/*` → upstream `/v1/*` for `payment-link`, `withdrawal`, `balance`, `checkout-session`,
 *   `webhook-endpoint` and `webhook-delivery` only, with `X-API-KEY` added, for callers `authorize(request)`
 *   accepts (default: `Authorization: Bearer <adminToken>`), refusing changes sent from other sites;
 *   every answer `Cache-Control: no-store`;
 * - `basePath/dist/<file>` → the script-tag bundles, through the `bundles` option.
 *
 * What a browser sends is filtered to a short allow-list of headers (so its `X-API-KEY`, cookies and
 * `Authorization` never reach the service); the key never appears in a response: upstream headers and
 * bodies that contain it are redacted, and the proxy's own errors never echo requests. Every request
 * has an id (`X-Request-Id`: the client's when it is a plain id, else a new one), answered, sent to the
 * service and written on the proxy's log lines; the service hears who the client is in `X-Forwarded-For`
 * (the address the proxy counts it by), which it believes when its `trustProxy` names the proxy.
 *
 * ## Parts
 *
 * A request finds its area in the route table, then runs the area's chain of guards (`guards/`: cors,
 * cross-site, authorize, route, rate limit, streams, body; each a small function over the `Exchange`),
 * then the forwarder (`forward.ts`) sends it over an `Upstream` (`upstream.ts`: over any fetch;
 * `node-upstream.ts`: over `node:http`) and `redact.ts` cleans the answer. `toNodeHandler` (`node.ts`)
 * adapts incoming Node requests and nothing else. This file only assembles: options → parts.
 *
 * ## Where protections go
 *
 * A check of one request is a guard (`exchange.ts` has the contract): write it in `guards/`, add it to
 * `chainOf` below, and let the route table say where it applies (a flag on `ProxyArea` or `ProxyRoute`).
 * Event streams are counted per client and in total by the counter the service uses too
 * (`server/limits/stream-counter.ts`); per-client rate limits of particular routes are a `rateLimitGuard`
 * over a limiter of their own; client identity (a trusted `X-Forwarded-For`) is `client-key.ts` over
 * `server/limits/client-address.ts`. Limits that act before there is a request (slow headers and bodies,
 * connections per client and in total) belong to the Node server (`server/limits/node-server.ts`, which
 * `startProxyServer` in `command.ts` runs), not here: a fetch handler never sees a connection.
 *
 * ## Why not Hono's middleware
 *
 * Hono's `cors`, `csrf` and `bodyLimit` cover three of the guards, but composing them means a Hono app
 * between the socket and the guards: a `Request` (and `Headers`, `AbortSignal`) per call and a `Response`
 * back, which is what the Node path here avoids, and the three would still need their answers rewritten
 * into the one error shape, the CORS headers onto refusals, and `publicOrigin` and its specific 403
 * message onto `csrf`. The guards are 10–40 lines each; they stay ours.
 *
 * Measured (`BENCH_PROXY_BASELINE=<main> BENCH_PROXY_HONO=1 node --import tsx bench/proxy.ts`: GET
 * `checkout/{slug}`, 50 connections, 10 rounds of 3 s taking turns, two runs on a shared 2-core machine):
 * the checkout area composed from `hono/cors` on `@hono/node-server`, forwarding with this forwarder
 * over the same Node upstream, spent ×1.96 and ×2.02 the CPU per request of the proxy this one replaced
 * (the single closure with Symbol hooks) and served ×0.59 and ×0.48 its requests per second. This proxy:
 * ×0.91 and ×0.94 the CPU per request, ×1.23 and ×1.17 the requests per second, p99 ×0.81 and ×0.73.
 *
 * Runtime-neutral (Web `Request`/`Response`/`fetch` only, outside `node*.ts`): runs in Node (see
 * `toNodeHandler`), Hono, Next.js route handlers, Deno, Bun and workers.
 */
import { isJson } from '../limits/body.js';
import type { TrustProxy } from '../limits/client-address.js';
import { LIMIT_DEFAULTS } from '../limits/options.js';
import { createRateLimiter, type RateLimitOptions } from '../limits/rate-limit.js';
import { defaultLogger, requestIdFrom, type Logger } from '../log.js';
import { createClientKeyResolver } from './client-key.js';
import { Exchange, runGuards, type Guard } from './exchange.js';
import { createForwarder } from './forward.js';
import { authorizeGuard } from './guards/authorize.js';
import { bodyGuard } from './guards/body.js';
import { corsGuard, optionsGuard } from './guards/cors.js';
import { crossSiteGuard, parsePublicOrigin } from './guards/cross-site.js';
import { rateLimitGuard } from './guards/rate-limit.js';
import { notFound, routeGuard } from './guards/route.js';
import { createStreamCounter, streamsGuard } from './guards/streams.js';
import { errorOut, headerRecord, requestIncoming, toResponse, type ProxyIncoming, type ProxyOutgoing, type ProxyRequestInfo } from './messages.js';
import { createRedactor } from './redact.js';
import { areaMethods, createRouter, describeRoutes, PROXY_AREAS, type ProxyArea } from './routes.js';
import { createFetchUpstream, type Upstream } from './upstream.js';

/** The proxy: a fetch handler. `info` is optional; pass `{ clientIp }` where your runtime knows it. */
export interface PaylinkProxyHandler {
  (request: Request, info?: ProxyRequestInfo): Promise<Response>;
  /** The normalized base path (`/paylink`); `toNodeHandler` passes other paths to `next()`. */
  readonly basePath: string;
  /**
   * The same proxy over a `ProxyIncoming`, answering a `ProxyOutgoing`: what server adapters
   * (`toNodeHandler`) call, so a request needs no `Request` or `Response` on the way.
   */
  handleIncoming(incoming: ProxyIncoming, info?: ProxyRequestInfo): Promise<ProxyOutgoing>;
}

/** Serves one script-tag bundle (`basePath/dist/<fileName>`): the service's `serveBundle` has this shape. */
export type BundleServer = (request: Request, fileName: string) => Promise<Response>;

/** Options of `createPaylinkProxy`. */
export interface PaylinkProxyOptions {
  /**
   * The service: its URL, e.g. `http://127.0.0.1:8787` (the proxy adds `/v1`), reached with `fetch`;
   * or an `Upstream`, e.g. `createNodeUpstream(url)` on Node (what `paylink proxy` uses: keep-alive
   * `node:http`, much cheaper per call than the global fetch).
   */
  upstream: string | URL | Upstream;
  /** The integrator API key. Sent upstream on admin routes only; never in a response, never logged. */
  apiKey: string;
  /**
   * Decides whether a request may use the admin routes, e.g. by the merchant's own session cookie.
   * Must not read the request body. When given, `adminToken` is not consulted.
   */
  authorize?: ((request: Request) => boolean | Promise<boolean>) | undefined;
  /**
   * The default check: `Authorization: Bearer <adminToken>` (compared in constant time). At least 32
   * characters (`createPaylinkProxy` throws otherwise, saying how to make one). Failed attempts are
   * limited per client (10, then one every 5 s; 429 with `Retry-After` past them) and logged
   * (`admin_auth_failed`), with `authorize` too.
   */
  adminToken?: string | undefined;
  /**
   * Origins (`https://shop.example`) that may call the checkout routes cross-origin, or `'*'` for any.
   * Default: none (same-origin pages need no CORS). Admin routes never send CORS headers.
   */
  allowedOrigins?: readonly string[] | '*' | undefined;
  /** Where the proxy is mounted. Default `/paylink`. */
  basePath?: string | undefined;
  /** Per-client limit on the checkout routes, or `false` to turn it off. Default 60 burst, 10/s. */
  rateLimit?: RateLimitOptions | false | undefined;
  /**
   * Take the client address from `X-Forwarded-For` (for the per-client limits) instead of the socket:
   * `true` trusts one proxy hop (the last entry, added by your load balancer), a number that many hops,
   * a list of addresses and CIDR ranges (`['10.0.0.0/8']`) only those peers. Leave unset unless a proxy
   * you run sits in front: clients can write that header.
   */
  trustProxy?: TrustProxy;
  /**
   * Custom rate-limit key (e.g. from `cf-connecting-ip`); wins over `clientIp` and `trustProxy`.
   * When no key can be found (no `clientKey`, no `clientIp`, no `incoming`), the request is neither
   * rate-limited nor counted against the event-stream cap, and the proxy warns once: one shared
   * bucket would throttle every customer at once.
   */
  clientKey?: ((request: Request, info: ProxyRequestInfo | undefined) => string | undefined) | undefined;
  /**
   * Open event streams (`checkout/sessions/<id>/events`) one client may hold at once; 429 beyond.
   * `false` for no cap. Default 4. (The checkout element falls back to polling on a refused stream.)
   */
  maxEventStreamsPerClient?: number | false | undefined;
  /** The same as `maxEventStreamsPerClient` (its first name); `maxEventStreamsPerClient` wins when both are given. */
  maxEventStreams?: number | false | undefined;
  /** Open event streams in all; 503 beyond. `false` for no cap. Default 1 000. */
  maxEventStreamsTotal?: number | false | undefined;
  /**
   * The origin browsers load your pages from (`https://shop.example`), when a reverse proxy in front
   * rewrites `Host` (nginx does by default): admin changes from that origin are then recognised as
   * same-site. `paylink proxy` and the demo read it from `PAYLINK_PUBLIC_ORIGIN`.
   */
  publicOrigin?: string | undefined;
  /**
   * Origins besides the proxy's own (and `publicOrigin`) that may send unsafe admin requests (POST,
   * PATCH, PUT, DELETE). By default those are refused (403 `cross_site_request`) when `Sec-Fetch-Site`
   * is `cross-site` or an `Origin` header names another origin, so a page elsewhere can't ride on the
   * merchant's cookies. Callers that send no `Origin` (servers, curl) are not affected.
   */
  trustedAdminOrigins?: readonly string[] | undefined;
  /** How long to wait for the upstream's full answer (headers of an event stream) before a 504. Default 15 000 ms. */
  timeoutMs?: number | undefined;
  /** Largest request body forwarded (413 beyond). Default 256 KiB, as the service. */
  maxBodyBytes?: number | undefined;
  /** Where the proxy's log lines go (`server/log.ts`; default stderr): unexpected errors, refused streams, an unreachable service. */
  logger?: Logger | undefined;
  /** With a URL `upstream`: the fetch it is reached with (default the global one; tests inject one). */
  fetch?: typeof fetch | undefined;
  /**
   * Serves `basePath/dist/<file>` (the script-tag bundles), e.g. the service's `serveBundle`.
   * Its answer goes back as it is (compression, caching and CORS are its own). Without it, and for file
   * names other than plain `name.ext`, `basePath/dist/*` is a 404.
   */
  bundles?: BundleServer | undefined;
}

/** Builds the proxy handler. Throws at once on a missing key, a bad upstream or a bad option, rather than on the first request. */
export function createPaylinkProxy(options: PaylinkProxyOptions): PaylinkProxyHandler {
  const apiKey = typeof options.apiKey === 'string' ? options.apiKey.trim() : '';
  if (!apiKey) throw new TypeError('createPaylinkProxy needs apiKey (the integrator API key)');
  const upstream = resolveUpstream(options);
  const basePath = normalizeBasePath(options.basePath ?? '/paylink');
  const maxBodyBytes = options.maxBodyBytes ?? LIMIT_DEFAULTS.maxBodyBytes;
  const publicOrigin = parsePublicOrigin(options.publicOrigin);
  const limiter = options.rateLimit === false ? undefined : createRateLimiter(options.rateLimit ?? {});
  const log = options.logger ?? defaultLogger;
  const perClientStreams = options.maxEventStreamsPerClient ?? options.maxEventStreams ?? LIMIT_DEFAULTS.proxyMaxEventStreamsPerClient;
  const totalStreams = options.maxEventStreamsTotal ?? LIMIT_DEFAULTS.maxEventStreamsTotal;
  const streams = perClientStreams === false && totalStreams === false ? undefined : createStreamCounter(perClientStreams, totalStreams);
  const clientKey = createClientKeyResolver(options);
  const forward = createForwarder({ upstream, apiKey, timeoutMs: options.timeoutMs ?? 15_000, redactor: createRedactor(apiKey), log });
  const router = createRouter(basePath, PROXY_AREAS);
  const route = routeGuard(router);
  const crossSite = crossSiteGuard({ publicOrigin, trustedAdminOrigins: options.trustedAdminOrigins });
  const authorize = authorizeGuard({ authorize: options.authorize, adminToken: options.adminToken, logger: log });
  const bundles = options.bundles;

  /** An area's policy as its chain: access first (so refused callers learn nothing of the routes), then the route, then limits. */
  function chainOf(area: ProxyArea): Guard[] {
    const methods = areaMethods(area);
    const chain: Guard[] = [area.cors ? corsGuard(options.allowedOrigins, methods) : optionsGuard(methods)];
    if (area.refuseCrossSiteWrites) chain.push(crossSite);
    if (area.auth === 'admin') chain.push(authorize);
    chain.push(route);
    if (area.rateLimit && limiter) chain.push(rateLimitGuard(limiter));
    if (streams && area.routes.some((candidate) => candidate.stream)) chain.push(streamsGuard(streams, log));
    if (area.body !== 'none') chain.push(bodyGuard(maxBodyBytes, area.body === 'json'));
    return chain;
  }
  const chains = new Map(PROXY_AREAS.map((area) => [area, chainOf(area)] as const));

  async function handleIncoming(incoming: ProxyIncoming, info?: ProxyRequestInfo): Promise<ProxyOutgoing> {
    const match = router.area(incoming.pathname);
    if (!match) return isIndex(incoming) ? routeIndex(incoming.method) : notFound();
    const exchange = new Exchange(incoming, info, match.area, match.rest, clientKey);
    exchange.requestId = requestIdFrom(incoming.header('x-request-id'));
    let answer: ProxyOutgoing;
    try {
      let verdict = runGuards(chains.get(match.area)!, exchange);
      if (verdict instanceof Promise) verdict = await verdict;
      answer = verdict ?? (await serve(exchange));
    } catch (error) {
      exchange.settle();
      // A failing `authorize`, `clientKey` or adapter: the one shape out, one line in the log (never the request).
      log.error('internal_error', 'the proxy failed', { requestId: exchange.requestId, method: incoming.method, route: match.area.name, error });
      answer = errorOut(500, 'internal_error', 'The proxy failed');
    }
    if (exchange.holdsResources) {
      if (answer.body instanceof ReadableStream) answer.body = untilSettled(answer.body, () => exchange.settle(), incoming);
      else exchange.settle();
    }
    if (exchange.answerHeaders) withHeaders(answer, exchange.answerHeaders);
    // The service answers the id the proxy sent it; the proxy's own answers carry it too.
    answer.headers['x-request-id'] ??= exchange.requestId;
    if (match.area.noStore) answer.headers['cache-control'] = 'no-store';
    return answer;
  }

  /** `GET basePath` (with or without its slash): the route index, the proxy's answer to being opened. */
  const isIndex = (incoming: ProxyIncoming) =>
    (incoming.method === 'GET' || incoming.method === 'HEAD') && (incoming.pathname === basePath || incoming.pathname === `${basePath}/`);
  const indexBody = new TextEncoder().encode(JSON.stringify(describeRoutes(basePath)));
  function routeIndex(method: string): ProxyOutgoing {
    const headers = headerRecord();
    headers['content-type'] = 'application/json; charset=utf-8';
    headers['cache-control'] = 'no-store';
    return { status: 200, headers, body: method === 'HEAD' ? null : indexBody };
  }

  function serve(exchange: Exchange): Promise<ProxyOutgoing> {
    const target = exchange.area.target;
    if (target === 'bundles') return serveBundle(exchange);
    return forward(exchange, target.upstream + exchange.rest + exchange.incoming.search);
  }

  async function serveBundle(exchange: Exchange): Promise<ProxyOutgoing> {
    const fileName = exchange.rest.slice(1);
    if (!bundles || !BUNDLE_FILE.test(fileName)) return errorOut(404, 'not_found', 'No such bundle');
    let response: Response;
    try {
      response = await bundles(exchange.incoming.request(), fileName);
    } catch {
      return errorOut(500, 'bundle_failed', 'The bundle could not be served');
    }
    // Whatever the bundle server answers for a missing file, the browser gets the one error shape.
    if (response.status === 404 && !isJson(response.headers.get('content-type'))) {
      await response.body?.cancel();
      return errorOut(404, 'not_found', 'No such bundle');
    }
    return outgoingOf(response, exchange.incoming.method);
  }

  const handler = (async (request: Request, info?: ProxyRequestInfo) =>
    toResponse(await handleIncoming(requestIncoming(request), info))) as PaylinkProxyHandler;
  Object.defineProperty(handler, 'basePath', { value: basePath, enumerable: true });
  Object.defineProperty(handler, 'handleIncoming', { value: handleIncoming, enumerable: true });
  return handler;
}

/** A plain file name: no path, no leading dot. */
const BUNDLE_FILE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Headers of a local answer that the adapter recomputes from the bytes it writes. */
const RECOMPUTED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** A local `Response` (the bundle server's) as a `ProxyOutgoing`: its headers as they are, its body read whole. */
async function outgoingOf(response: Response, method: string): Promise<ProxyOutgoing> {
  const headers = headerRecord();
  response.headers.forEach((value, name) => {
    if (!RECOMPUTED_HEADERS.has(name)) headers[name] = value;
  });
  if (method === 'HEAD' || response.status === 204 || response.status === 304 || !response.body) {
    await response.body?.cancel();
    return { status: response.status, headers, body: null };
  }
  return { status: response.status, headers, body: new Uint8Array(await response.arrayBuffer()) };
}

function resolveUpstream(options: PaylinkProxyOptions): Upstream {
  const upstream = options.upstream;
  if (typeof upstream === 'object' && upstream !== null && !(upstream instanceof URL)) {
    if (typeof upstream.send !== 'function')
      throw new TypeError('createPaylinkProxy needs upstream: the service URL, e.g. http://127.0.0.1:8787, or an Upstream');
    if (options.fetch) throw new TypeError('createPaylinkProxy: give fetch only with a URL upstream (an Upstream brings its own transport)');
    return upstream;
  }
  return createFetchUpstream(upstream as string | URL, options.fetch);
}

/** Passes `source` on, calling `onSettled` once when it ends, fails, is cancelled, or the client goes. */
function untilSettled(source: ReadableStream<Uint8Array>, onSettled: () => void, incoming: ProxyIncoming): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let settled = false;
  let stopListening = () => {};
  const settle = () => {
    if (settled) return;
    settled = true;
    stopListening();
    onSettled();
  };
  if (incoming.aborted) settle();
  else stopListening = incoming.onAbort(settle);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            settle();
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (error) {
          settle();
          controller.error(error);
        }
      },
      cancel(reason) {
        settle();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** Adds `extra` to an answer's headers; `Vary` is appended to, not replaced. */
function withHeaders(answer: ProxyOutgoing, extra: Readonly<Record<string, string>>): void {
  const headers = answer.headers;
  for (const name of Object.keys(extra)) {
    const value = extra[name]!;
    if (name === 'vary' && headers.vary !== undefined) headers.vary = `${headers.vary}, ${value}`;
    else headers[name] = value;
  }
}
