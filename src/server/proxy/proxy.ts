/**
 * The Paylink proxy (DESIGN §5): a fetch handler that sits on the merchant's server, holds the API
 * key and lets browsers reach exactly two things:
 *
 * - `basePath/checkout/*` → upstream `/v1/checkout/*`: public and keyless, CORS for `allowedOrigins`,
 *   rate-limited per client;
 * - `basePath/admin/*` → upstream `/v1/*` for `payment-link[/…]`, `withdrawal[/…]` and `balance` only,
 *   with `X-API-KEY` added, for callers `authorize(request)` accepts (default: `Authorization: Bearer <adminToken>`).
 *
 * What a browser sends is filtered to a short allow-list of headers (so its `X-API-KEY`, cookies and
 * `Authorization` never reach the service); the key never appears in a response: upstream headers and
 * bodies that contain it are redacted, and the proxy's own errors never echo requests.
 *
 * Runtime-neutral (Web `Request`/`Response`/`fetch` only): runs in Node (see `toNodeHandler`),
 * Hono, Next.js route handlers, Deno, Bun and workers.
 */
import { createRateLimiter, type RateLimiter, type RateLimitOptions } from './rate-limit.js';

/** What a server adapter knows about the request beyond the `Request` itself. */
export interface ProxyRequestInfo {
  /** The client's address (the socket's peer), used as the rate-limit key. */
  clientIp?: string | undefined;
  /** `@hono/node-server` passes `{ incoming }` as the env; its socket address is used when `clientIp` is absent. */
  incoming?: { socket?: { remoteAddress?: string | undefined } | undefined } | undefined;
}

/**
 * @internal What the proxy needs of a request. `handle` builds it from a `Request`; the Node adapter
 * builds a cheaper one straight from `IncomingMessage` (no `Request`, `Headers` or `AbortSignal` per call).
 */
export interface ProxyIncoming {
  /** Upper case. */
  readonly method: string;
  /** The normalized path and query (as `URL` has them). */
  readonly pathname: string;
  readonly search: string;
  /** A request header (lower-case name), repeated values joined with `, `; `null` when absent. */
  header(name: string): string | null;
  /** The client went away. */
  readonly aborted: boolean;
  /** Calls `listener` once when the client goes away (not if it already has); returns the unsubscribe. */
  onAbort(listener: () => void): () => void;
  /** The request body (only asked for methods other than GET and HEAD). */
  body(): ReadableStream<Uint8Array> | null;
  /** The full URL, origin included (for the same-origin check). */
  url(): URL;
  /** The request as a `Request` (for `authorize` and `clientKey`). */
  request(): Request;
}

/** @internal The proxy's answer before it becomes a `Response` (or is written to a Node response). */
export interface ProxyOutgoing {
  status: number;
  /** Lower-case names, one (joined) value each; a null-prototype object. */
  headers: Record<string, string>;
  /** Bytes; a stream only for a live event stream. */
  body: Uint8Array | ReadableStream<Uint8Array> | null;
}

/** @internal The core the Node adapter calls directly (`handler[PROXY_CORE]`). */
export type ProxyCore = (incoming: ProxyIncoming, info?: ProxyRequestInfo) => Promise<ProxyOutgoing>;
/** @internal */
export const PROXY_CORE: unique symbol = Symbol.for('paylink.proxy.core') as never;

/** @internal A fetch's cheaper form (`createNodeFetch` has one): plain headers in, raw headers and bytes out, `abort()` instead of a signal. */
export type RawFetch = (url: string, method: string, headers: Record<string, string>, body: Uint8Array | undefined) => RawCall;
/** @internal */
export interface RawCall {
  answer: Promise<RawAnswer>;
  /** Stops the call: rejects `answer` if still pending, cuts a live stream. */
  abort(): void;
}
/** @internal */
export interface RawAnswer {
  status: number;
  /** `[name, value, name, value, …]` as received. */
  rawHeaders: string[];
  /** The whole body; a stream for an event stream; `null` when there is none (HEAD, 204, 304). */
  body: Uint8Array | ReadableStream<Uint8Array> | null;
}
/** @internal */
export const RAW_FETCH: unique symbol = Symbol.for('paylink.proxy.rawFetch') as never;

/** The proxy: a fetch handler. `info` is optional; pass `{ clientIp }` where your runtime knows it. */
export interface PaylinkProxyHandler {
  (request: Request, info?: ProxyRequestInfo): Promise<Response>;
  /** The normalized base path (`/paylink`); `toNodeHandler` passes other paths to `next()`. */
  readonly basePath: string;
}

export interface PaylinkProxyOptions {
  /** The service's origin, e.g. `http://127.0.0.1:8787` (the proxy adds `/v1`). */
  upstream: string;
  /** The integrator API key. Sent upstream on admin routes only; never in a response, never logged. */
  apiKey: string;
  /**
   * Decides whether a request may use the admin routes, e.g. by the merchant's own session cookie.
   * Must not read the request body. When given, `adminToken` is not consulted.
   */
  authorize?: ((request: Request) => boolean | Promise<boolean>) | undefined;
  /** The default check: `Authorization: Bearer <adminToken>` (compared in constant time). */
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
   * Take the client address from `X-Forwarded-For` (for the rate limit) instead of the socket:
   * `true` trusts one proxy hop (the last entry, added by your load balancer), a number that many hops.
   * Leave unset unless a proxy you run sits in front: clients can write that header.
   */
  trustProxy?: boolean | number | undefined;
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
  maxEventStreams?: number | false | undefined;
  /**
   * Origins besides the proxy's own that may send unsafe admin requests (POST, PATCH, PUT, DELETE).
   * By default those are refused (403 `cross_site_request`) when `Sec-Fetch-Site` is `cross-site` or an
   * `Origin` header names another origin, so a page elsewhere can't ride on the merchant's cookies.
   * Callers that send no `Origin` (servers, curl) are not affected.
   */
  trustedAdminOrigins?: readonly string[] | undefined;
  /** How long to wait for the upstream's full answer (headers of an event stream) before a 504. Default 15 000 ms. */
  timeoutMs?: number | undefined;
  /** Largest request body forwarded (413 beyond). Default 256 KiB, as the service. */
  maxBodyBytes?: number | undefined;
  /** The fetch used to reach the upstream (tests inject one). */
  fetch?: typeof fetch | undefined;
}

/** Request headers passed to the service; everything else a browser sends is dropped. */
const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'content-type', 'idempotency-key', 'last-event-id', 'if-none-match', 'user-agent'];

/** Response headers never passed back: hop-by-hop, recomputed, cookies, and CORS (the proxy sets its own). */
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'set-cookie',
  'x-api-key',
  'proxy-authenticate',
  'upgrade',
  'trailer',
]);

/** The admin paths the proxy forwards (after `basePath/admin`). */
const ADMIN_ALLOW_LIST = /^\/(?:payment-link(?:\/[^/]+)*|withdrawal(?:\/[^/]+)*|balance)$/;

/** Encoded separators and dots would let a path step out of the allow-list once the upstream decodes it. */
const SUSPICIOUS_PATH = /%2e|%2f|%5c|%00|\\/i;

const CHECKOUT_METHODS = new Set(['GET', 'HEAD', 'POST']);
const ADMIN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE']);
/** The one checkout route that answers with a long-lived event stream (after `basePath`). */
const EVENT_STREAM_PATH = /^\/checkout\/sessions\/[^/]+\/events$/;
/** What a client refused for too many open streams is told to wait (it polls meanwhile). */
const STREAM_RETRY_AFTER_SECONDS = 5;
const REDACTED = '[redacted]';
const ADMIN_ALLOW_HEADER = [...ADMIN_METHODS].join(', ');
const VARY_ORIGIN: Readonly<Record<string, string>> = Object.freeze({ vary: 'Origin' });
const EMPTY = new Uint8Array(0);

/** The one error shape (DESIGN §4). */
export function proxyError(statusCode: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return toResponse(errorOut(statusCode, code, message, headers));
}

const encoder = new TextEncoder();

function errorOut(statusCode: number, code: string, message: string, headers: Record<string, string> = {}): ProxyOutgoing {
  const out = headerRecord();
  out['content-type'] = 'application/json; charset=utf-8';
  out['cache-control'] = 'no-store';
  for (const name of Object.keys(headers)) out[name.toLowerCase()] = headers[name]!;
  return { status: statusCode, headers: out, body: encoder.encode(JSON.stringify({ status: 'error', statusCode, code, message })) };
}

function headerRecord(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

function toResponse(out: ProxyOutgoing): Response {
  return new Response(out.body as BodyInit | null, { status: out.status, headers: out.headers });
}

/** A `ProxyIncoming` over a fetch `Request`. */
function requestIncoming(request: Request): ProxyIncoming {
  const url = new URL(request.url);
  const signal = request.signal as AbortSignal | undefined;
  return {
    method: request.method.toUpperCase(),
    pathname: url.pathname,
    search: url.search,
    header: (name) => request.headers.get(name),
    get aborted() {
      return signal?.aborted === true;
    },
    onAbort(listener) {
      if (!signal) return () => {};
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    },
    body: () => request.body,
    url: () => url,
    request: () => request,
  };
}

/** Builds the proxy handler. Throws at once on a missing key or a bad upstream, rather than on the first request. */
export function createPaylinkProxy(options: PaylinkProxyOptions): PaylinkProxyHandler {
  const apiKey = typeof options.apiKey === 'string' ? options.apiKey.trim() : '';
  if (!apiKey) throw new TypeError('createPaylinkProxy needs apiKey (the integrator API key)');
  let upstream: string;
  try {
    const url = new URL(options.upstream);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
    upstream = (url.origin + url.pathname).replace(/\/+$/, '');
  } catch {
    throw new TypeError('createPaylinkProxy needs upstream: the service URL, e.g. http://127.0.0.1:8787');
  }
  const basePath = normalizeBasePath(options.basePath ?? '/paylink');
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBodyBytes = options.maxBodyBytes ?? 256 * 1024;
  const fetchUpstream = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const origins = options.allowedOrigins === '*' ? '*' : new Set((options.allowedOrigins ?? []).map(normalizeOrigin));
  const limiter: RateLimiter | undefined = options.rateLimit === false ? undefined : createRateLimiter(options.rateLimit ?? {});
  const redactor = createRedactor(apiKey);
  const isAuthorized = createAuthorizer(options);
  const maxEventStreams = options.maxEventStreams === false ? undefined : (options.maxEventStreams ?? 4);
  if (maxEventStreams !== undefined && !(maxEventStreams >= 1)) throw new RangeError('maxEventStreams must be >= 1 or false');
  const streams = maxEventStreams === undefined ? undefined : createStreamCounter(maxEventStreams);
  const trustedAdminOrigins = new Set((options.trustedAdminOrigins ?? []).map(normalizeOrigin));
  let warnedNoClientKey = false;
  const rawFetch = (options.fetch as { [RAW_FETCH]?: RawFetch } | undefined)?.[RAW_FETCH];

  async function handle(request: Request, info?: ProxyRequestInfo): Promise<Response> {
    return toResponse(await core(requestIncoming(request), info));
  }

  async function core(incoming: ProxyIncoming, info?: ProxyRequestInfo): Promise<ProxyOutgoing> {
    const path = incoming.pathname;
    if (!path.startsWith(`${basePath}/`) || SUSPICIOUS_PATH.test(path)) return notFound();
    const rest = path.slice(basePath.length);
    const method = incoming.method;

    if (rest === '/checkout' || rest.startsWith('/checkout/')) {
      const cors = corsHeaders(incoming.header('origin'));
      if (method === 'OPTIONS') return preflight(cors);
      if (!CHECKOUT_METHODS.has(method)) return withHeaders(errorOut(405, 'method_not_allowed', 'Method not allowed'), { ...cors, allow: 'GET, HEAD, POST, OPTIONS' });
      const eventStream = method === 'GET' && EVENT_STREAM_PATH.test(rest);
      const key = limiter || (eventStream && streams) ? clientKeyOf(incoming, info) : undefined;
      if (limiter && key !== undefined) {
        const decision = limiter.take(key);
        if (!decision.allowed) {
          const seconds = String(decision.retryAfterSeconds);
          return errorOut(429, 'rate_limited', `Too many requests; retry in ${seconds} s`, { ...cors, 'retry-after': seconds });
        }
      }
      let release: (() => void) | undefined;
      if (eventStream && streams && key !== undefined) {
        release = streams.acquire(key);
        if (!release) {
          const seconds = String(STREAM_RETRY_AFTER_SECONDS);
          return errorOut(429, 'too_many_streams', `Too many open event streams; retry in ${seconds} s`, { ...cors, 'retry-after': seconds });
        }
      }
      let response: ProxyOutgoing;
      try {
        response = await forward(incoming, method, `/v1${rest}${incoming.search}`, false, eventStream, release);
      } catch (error) {
        release?.();
        throw error;
      }
      return withHeaders(response, cors);
    }

    if (rest === '/admin' || rest.startsWith('/admin/')) {
      // No CORS on admin routes: a preflight gets no Access-Control-* headers, so other sites can't call them.
      if (method === 'OPTIONS') {
        const headers = headerRecord();
        headers.allow = ADMIN_ALLOW_HEADER;
        return { status: 204, headers, body: null };
      }
      // A second line behind "bodies must be JSON": a change another site's page asks for is refused
      // before the merchant's cookies are even looked at.
      if (method !== 'GET' && method !== 'HEAD' && isCrossSite(incoming)) {
        return errorOut(403, 'cross_site_request', 'Admin changes must come from this site (or a trusted origin)');
      }
      let allowed: boolean;
      try {
        allowed = await isAuthorized(incoming);
      } catch {
        return errorOut(500, 'authorize_failed', 'The admin authorization check failed');
      }
      if (!allowed) return errorOut(401, 'unauthorized', 'Admin routes need an authorized caller', { 'www-authenticate': 'Bearer realm="paylink-admin"' });
      const tail = rest.slice('/admin'.length);
      if (!ADMIN_ALLOW_LIST.test(tail)) return notFound();
      if (!ADMIN_METHODS.has(method)) return errorOut(405, 'method_not_allowed', 'Method not allowed');
      return forward(incoming, method, `/v1${tail}${incoming.search}`, true);
    }
    return notFound();
  }

  function notFound() {
    return errorOut(404, 'not_found', 'No such proxy route');
  }

  /** `Sec-Fetch-Site: cross-site`, or an `Origin` that is neither the request's own nor trusted. */
  function isCrossSite(incoming: ProxyIncoming): boolean {
    const origin = incoming.header('origin');
    if (origin !== null) {
      const normalized = normalizeOrigin(origin);
      if (trustedAdminOrigins.has(normalized)) return false;
      if (!isSameOrigin(normalized, incoming.url())) return true;
    }
    return incoming.header('sec-fetch-site')?.trim().toLowerCase() === 'cross-site';
  }

  /** The rate-limit key; `undefined` (with a warning, once) when this runtime gives no way to tell clients apart. */
  function clientKeyOf(incoming: ProxyIncoming, info: ProxyRequestInfo | undefined): string | undefined {
    const key = findClientKey(incoming, info);
    if (key === undefined && !warnedNoClientKey) {
      warnedNoClientKey = true;
      console.warn(
        'paylink proxy: no client address for this request, so it is not rate-limited. In this runtime, pass ' +
          '{ clientIp } as the second argument or set the clientKey option (or trustProxy behind your own load balancer).',
      );
    }
    return key;
  }

  function findClientKey(incoming: ProxyIncoming, info: ProxyRequestInfo | undefined): string | undefined {
    const custom = options.clientKey?.(incoming.request(), info);
    if (custom) return custom;
    if (options.trustProxy) {
      const hops = options.trustProxy === true ? 1 : Math.max(1, Math.floor(options.trustProxy));
      const chain = (incoming.header('x-forwarded-for') ?? '')
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean);
      const forwarded = chain[Math.max(0, chain.length - hops)];
      if (forwarded) return forwarded;
    }
    return info?.clientIp || info?.incoming?.socket?.remoteAddress || undefined;
  }

  function corsHeaders(origin: string | null): Readonly<Record<string, string>> {
    // Vary on every checkout answer, so a shared cache never serves one origin's CORS headers to another.
    if (!origin) return VARY_ORIGIN;
    const allowed = origins === '*' || origins.has(normalizeOrigin(origin));
    if (!allowed) return VARY_ORIGIN;
    return {
      vary: 'Origin',
      'access-control-allow-origin': origins === '*' ? '*' : origin,
      'access-control-expose-headers': 'Retry-After',
    };
  }

  function preflight(cors: Readonly<Record<string, string>>): ProxyOutgoing {
    const headers = Object.assign(headerRecord(), cors);
    if (cors['access-control-allow-origin']) {
      headers['access-control-allow-methods'] = 'GET, HEAD, POST, OPTIONS';
      headers['access-control-allow-headers'] = 'Content-Type, Accept, Last-Event-ID, Idempotency-Key';
      headers['access-control-max-age'] = '600';
    }
    return { status: 204, headers, body: null };
  }

  /**
   * `release` (an event stream's slot) is called once the answer is settled: at once for anything but a
   * live stream, else when the stream ends, fails, is cancelled or the client goes away.
   */
  async function forward(
    incoming: ProxyIncoming,
    method: string,
    upstreamPath: string,
    withKey: boolean,
    eventStream = false,
    release?: () => void,
  ): Promise<ProxyOutgoing> {
    if (!release) return forwardOnce(incoming, method, upstreamPath, withKey, eventStream);
    let streaming = false;
    try {
      const response = await forwardOnce(incoming, method, upstreamPath, withKey, eventStream);
      if (response.body instanceof ReadableStream) {
        streaming = true;
        return { status: response.status, headers: response.headers, body: untilSettled(response.body, release, incoming) };
      }
      return response;
    } finally {
      if (!streaming) release();
    }
  }

  function forwardOnce(incoming: ProxyIncoming, method: string, upstreamPath: string, withKey: boolean, eventStream: boolean): Promise<ProxyOutgoing> {
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = incoming.header(name);
      if (value !== null) headers[name] = value;
    }
    if (withKey) headers['x-api-key'] = apiKey;
    // Said explicitly, so `createNodeFetch` puts the stream on its own sockets whatever the client sent.
    if (eventStream) headers.accept = 'text/event-stream';

    const requestBody = method !== 'GET' && method !== 'HEAD' ? incoming.body() : null;
    if (requestBody) return forwardWithBody(incoming, method, upstreamPath, withKey, headers, requestBody);
    return rawFetch
      ? forwardRaw(rawFetch, incoming, method, upstreamPath, headers, undefined)
      : forwardFetch(incoming, method, upstreamPath, headers, undefined);
  }

  async function forwardWithBody(
    incoming: ProxyIncoming,
    method: string,
    upstreamPath: string,
    withKey: boolean,
    headers: Record<string, string>,
    requestBody: ReadableStream<Uint8Array>,
  ): Promise<ProxyOutgoing> {
    const declared = Number(incoming.header('content-length') ?? '0');
    if (declared > maxBodyBytes) return errorOut(413, 'body_too_large', `The request body is larger than ${maxBodyBytes} bytes`);
    const read = await readLimited(requestBody, maxBodyBytes).catch(() => null);
    if (read === null) return errorOut(400, 'unreadable_body', 'The request body could not be read');
    if (read === 'too_large') return errorOut(413, 'body_too_large', `The request body is larger than ${maxBodyBytes} bytes`);
    const body = read;
    // The service parses bodies as JSON whatever their type; insisting on JSON here means a
    // cross-site form can't post to an admin route with the merchant's cookies (JSON needs a
    // CORS preflight, which admin routes never grant).
    if (withKey && body.byteLength > 0 && !isJson(headers['content-type'] ?? null)) {
      return errorOut(415, 'unsupported_media_type', 'Admin requests with a body must be application/json');
    }
    return rawFetch
      ? forwardRaw(rawFetch, incoming, method, upstreamPath, headers, body)
      : forwardFetch(incoming, method, upstreamPath, headers, body);
  }

  /** Through `createNodeFetch`'s raw form: no `Request`, `Response`, `Headers` or `AbortSignal`. */
  async function forwardRaw(
    raw: RawFetch,
    incoming: ProxyIncoming,
    method: string,
    upstreamPath: string,
    headers: Record<string, string>,
    body: Uint8Array | undefined,
  ): Promise<ProxyOutgoing> {
    let timedOut = false;
    let call: RawCall;
    try {
      call = raw(upstream + upstreamPath, method, headers, body);
    } catch {
      return failure(false, incoming);
    }
    const timer = setTimeout(() => {
      timedOut = true;
      call.abort();
    }, timeoutMs);
    const stopListening = incoming.onAbort(() => call.abort());
    let answer: RawAnswer;
    try {
      answer = await call.answer;
    } catch {
      clearTimeout(timer);
      stopListening();
      return failure(timedOut, incoming);
    }
    clearTimeout(timer);
    const responseHeaders = redactor.rawHeaders(answer.rawHeaders);
    const upstreamBody = answer.body;
    if (upstreamBody instanceof ReadableStream) {
      // A live stream: no timeout from here on and no buffering. The abort listener stays: when the
      // client goes, the upstream stream is cut with it.
      responseHeaders['x-accel-buffering'] = 'no';
      return { status: answer.status, headers: responseHeaders, body: upstreamBody.pipeThrough(redactor.stream()) };
    }
    stopListening();
    const status = answer.status;
    const hasBody = method !== 'HEAD' && status !== 204 && status !== 304;
    return { status, headers: responseHeaders, body: hasBody ? redactor.bytes(upstreamBody ?? EMPTY) : null };
  }

  /** Through a fetch (the global one, or the `fetch` option). */
  async function forwardFetch(
    incoming: ProxyIncoming,
    method: string,
    upstreamPath: string,
    plainHeaders: Record<string, string>,
    body: Uint8Array<ArrayBuffer> | undefined,
  ): Promise<ProxyOutgoing> {
    const headers = new Headers(plainHeaders);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const stopListening = incoming.onAbort(() => controller.abort());
    const cleanUp = () => {
      clearTimeout(timer);
      stopListening();
    };

    let upstreamResponse: Response;
    try {
      upstreamResponse = await fetchUpstream(upstream + upstreamPath, {
        method,
        headers,
        // Never follow a redirect: the key would travel with it.
        redirect: 'manual',
        signal: controller.signal,
        ...(body ? { body } : {}),
      });
    } catch {
      cleanUp();
      return failure(timedOut, incoming);
    }

    const responseHeaders = redactor.headers(upstreamResponse.headers);
    const type = upstreamResponse.headers.get('content-type') ?? '';
    if (/^text\/event-stream/i.test(type) && upstreamResponse.body) {
      // A live stream: no timeout from here on and no buffering. The abort listener stays: when the
      // client goes, the upstream stream is cancelled with it.
      clearTimeout(timer);
      responseHeaders['x-accel-buffering'] = 'no';
      return { status: upstreamResponse.status, headers: responseHeaders, body: upstreamResponse.body.pipeThrough(redactor.stream()) };
    }

    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await upstreamResponse.arrayBuffer());
    } catch {
      return failure(timedOut, incoming);
    } finally {
      cleanUp();
    }
    const status = upstreamResponse.status;
    const hasBody = method !== 'HEAD' && status !== 204 && status !== 304;
    return { status, headers: responseHeaders, body: hasBody ? redactor.bytes(bytes) : null };
  }

  function failure(timedOut: boolean, incoming: ProxyIncoming): ProxyOutgoing {
    if (timedOut) return errorOut(504, 'upstream_timeout', 'The Paylink service did not answer in time');
    if (incoming.aborted) return errorOut(499, 'client_closed', 'The client went away');
    return errorOut(502, 'upstream_unavailable', 'The Paylink service could not be reached');
  }

  const handler = handle as PaylinkProxyHandler;
  Object.defineProperty(handler, 'basePath', { value: basePath, enumerable: true });
  Object.defineProperty(handler, PROXY_CORE, { value: core as ProxyCore });
  return handler;
}

/** Per-client count of open event streams; `acquire` gives a one-shot release, or `undefined` at the cap. */
function createStreamCounter(max: number) {
  const open = new Map<string, number>();
  return {
    acquire(key: string): (() => void) | undefined {
      const count = open.get(key) ?? 0;
      if (count >= max) return undefined;
      open.set(key, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (open.get(key) ?? 1) - 1;
        if (left > 0) open.set(key, left);
        else open.delete(key);
      };
    },
  };
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
  return new ReadableStream<Uint8Array>({
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
  }, { highWaterMark: 0 });
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

function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

function normalizeOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

function isJson(type: string | null): boolean {
  return !!type && /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i.test(type.trim());
}

function withHeaders(response: ProxyOutgoing, extra: Readonly<Record<string, string>>): ProxyOutgoing {
  const headers = response.headers;
  for (const name of Object.keys(extra)) {
    const value = extra[name]!;
    if (name === 'vary' && headers.vary !== undefined) headers.vary = `${headers.vary}, ${value}`;
    else headers[name] = value;
  }
  return response;
}

/** Reads a body stream up to `limit` bytes; `'too_large'` past it (and stops reading). */
async function readLimited(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array<ArrayBuffer> | 'too_large'> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return 'too_large';
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** The admin check: the merchant's `authorize`, else a constant-time bearer-token compare, else nobody. */
function createAuthorizer(options: PaylinkProxyOptions): (incoming: ProxyIncoming) => Promise<boolean> {
  if (options.authorize) {
    const authorize = options.authorize;
    return async (incoming) => (await authorize(incoming.request())) === true;
  }
  const token = options.adminToken?.trim();
  if (!token) return async () => false;
  const expected = digest(token);
  return async (incoming) => {
    const header = incoming.header('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match) return false;
    // Comparing digests keeps the time independent of where (and whether) the strings differ, and of their lengths.
    return timingSafeEqual(await expected, await digest(match[1]!.trim()));
  };
}

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/** Removes every occurrence of the key from headers, byte bodies and streams. */
function createRedactor(secret: string) {
  const needle = encoder.encode(secret);
  const replacement = encoder.encode(REDACTED);
  const lowerSecret = secret.toLowerCase();

  function indexOf(haystack: Uint8Array, from: number): number {
    const first = needle[0]!;
    for (let i = haystack.indexOf(first, from); i !== -1 && i <= haystack.length - needle.length; i = haystack.indexOf(first, i + 1)) {
      let j = 1;
      while (j < needle.length && haystack[i + j] === needle[j]) j++;
      if (j === needle.length) return i;
    }
    return -1;
  }

  function bytes(input: Uint8Array): Uint8Array {
    let at = indexOf(input, 0);
    if (at === -1) return input;
    const parts: Uint8Array[] = [];
    let start = 0;
    while (at !== -1) {
      parts.push(input.subarray(start, at), replacement);
      start = at + needle.length;
      at = indexOf(input, start);
    }
    parts.push(input.subarray(start));
    return concat(parts);
  }

  /** Length of the longest end of `input` that is a proper beginning of the key (it may continue in the next chunk). */
  function partialTail(input: Uint8Array): number {
    for (let length = Math.min(needle.length - 1, input.length); length > 0; length--) {
      let j = 0;
      while (j < length && input[input.length - length + j] === needle[j]) j++;
      if (j === length) return length;
    }
    return 0;
  }

  return {
    bytes,
    /** The headers that may go back to the browser. */
    headers(source: Headers): Record<string, string> {
      const out = headerRecord();
      source.forEach((value, name) => {
        if (DROPPED_RESPONSE_HEADERS.has(name) || name.startsWith('access-control-')) return;
        if (value.toLowerCase().includes(lowerSecret)) return;
        const previous = out[name];
        out[name] = previous === undefined ? value : `${previous}, ${value}`;
      });
      return out;
    },
    /** The same from raw `[name, value, …]` pairs, joined per name first as `Headers` would. */
    rawHeaders(raw: string[]): Record<string, string> {
      const out = headerRecord();
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i]!.toLowerCase();
        if (DROPPED_RESPONSE_HEADERS.has(name) || name.startsWith('access-control-')) continue;
        const value = raw[i + 1]!;
        const previous = out[name];
        out[name] = previous === undefined ? value : `${previous}, ${value}`;
      }
      for (const name of Object.keys(out)) {
        if (out[name]!.toLowerCase().includes(lowerSecret)) delete out[name];
      }
      return out;
    },
    /**
     * A stream redactor that holds back only a tail that could be the start of the key, so an event
     * (which ends in a blank line, never part of a key) is passed on at once.
     */
    stream(): TransformStream<Uint8Array, Uint8Array> {
      let pending: Uint8Array = new Uint8Array(0);
      return new TransformStream({
        transform(chunk, controller) {
          const joined = bytes(pending.length ? concat([pending, chunk]) : chunk);
          const hold = partialTail(joined);
          pending = joined.slice(joined.length - hold);
          if (joined.length - hold > 0) controller.enqueue(joined.subarray(0, joined.length - hold));
        },
        flush(controller) {
          if (pending.length) controller.enqueue(pending);
        },
      });
    },
  };
}

function concat(parts: Uint8Array[]): Uint8Array {
  let size = 0;
  for (const part of parts) size += part.byteLength;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
