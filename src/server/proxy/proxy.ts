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

/** The one error shape (DESIGN §4). */
export function proxyError(statusCode: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ status: 'error', statusCode, code, message }), {
    status: statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
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

  async function handle(request: Request, info?: ProxyRequestInfo): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    if (!path.startsWith(`${basePath}/`) || SUSPICIOUS_PATH.test(path)) return notFound();
    const rest = path.slice(basePath.length);
    const method = request.method.toUpperCase();

    if (rest === '/checkout' || rest.startsWith('/checkout/')) {
      const cors = corsHeaders(request.headers.get('origin'));
      if (method === 'OPTIONS') return preflight(cors);
      if (!CHECKOUT_METHODS.has(method)) return withHeaders(proxyError(405, 'method_not_allowed', 'Method not allowed'), { ...cors, allow: 'GET, HEAD, POST, OPTIONS' });
      const eventStream = method === 'GET' && EVENT_STREAM_PATH.test(rest);
      const key = limiter || (eventStream && streams) ? clientKeyOf(request, info) : undefined;
      if (limiter && key !== undefined) {
        const decision = limiter.take(key);
        if (!decision.allowed) {
          const seconds = String(decision.retryAfterSeconds);
          return proxyError(429, 'rate_limited', `Too many requests; retry in ${seconds} s`, { ...cors, 'retry-after': seconds });
        }
      }
      let release: (() => void) | undefined;
      if (eventStream && streams && key !== undefined) {
        release = streams.acquire(key);
        if (!release) {
          const seconds = String(STREAM_RETRY_AFTER_SECONDS);
          return proxyError(429, 'too_many_streams', `Too many open event streams; retry in ${seconds} s`, { ...cors, 'retry-after': seconds });
        }
      }
      let response: Response;
      try {
        response = await forward(request, method, `/v1${rest}${url.search}`, false, eventStream, release);
      } catch (error) {
        release?.();
        throw error;
      }
      return withHeaders(response, cors);
    }

    if (rest === '/admin' || rest.startsWith('/admin/')) {
      // No CORS on admin routes: a preflight gets no Access-Control-* headers, so other sites can't call them.
      if (method === 'OPTIONS') return new Response(null, { status: 204, headers: { allow: [...ADMIN_METHODS].join(', ') } });
      // A second line behind "bodies must be JSON": a change another site's page asks for is refused
      // before the merchant's cookies are even looked at.
      if (method !== 'GET' && method !== 'HEAD' && isCrossSite(request, url)) {
        return proxyError(403, 'cross_site_request', 'Admin changes must come from this site (or a trusted origin)');
      }
      let allowed: boolean;
      try {
        allowed = await isAuthorized(request);
      } catch {
        return proxyError(500, 'authorize_failed', 'The admin authorization check failed');
      }
      if (!allowed) return proxyError(401, 'unauthorized', 'Admin routes need an authorized caller', { 'www-authenticate': 'Bearer realm="paylink-admin"' });
      const tail = rest.slice('/admin'.length);
      if (!ADMIN_ALLOW_LIST.test(tail)) return notFound();
      if (!ADMIN_METHODS.has(method)) return proxyError(405, 'method_not_allowed', 'Method not allowed');
      return forward(request, method, `/v1${tail}${url.search}`, true);
    }
    return notFound();
  }

  function notFound() {
    return proxyError(404, 'not_found', 'No such proxy route');
  }

  /** `Sec-Fetch-Site: cross-site`, or an `Origin` that is neither the request's own nor trusted. */
  function isCrossSite(request: Request, url: URL): boolean {
    const origin = request.headers.get('origin');
    if (origin !== null) {
      const normalized = normalizeOrigin(origin);
      if (trustedAdminOrigins.has(normalized)) return false;
      if (!isSameOrigin(normalized, url)) return true;
    }
    return request.headers.get('sec-fetch-site')?.trim().toLowerCase() === 'cross-site';
  }

  /** The rate-limit key; `undefined` (with a warning, once) when this runtime gives no way to tell clients apart. */
  function clientKeyOf(request: Request, info: ProxyRequestInfo | undefined): string | undefined {
    const key = findClientKey(request, info);
    if (key === undefined && !warnedNoClientKey) {
      warnedNoClientKey = true;
      console.warn(
        'paylink proxy: no client address for this request, so it is not rate-limited. In this runtime, pass ' +
          '{ clientIp } as the second argument or set the clientKey option (or trustProxy behind your own load balancer).',
      );
    }
    return key;
  }

  function findClientKey(request: Request, info: ProxyRequestInfo | undefined): string | undefined {
    const custom = options.clientKey?.(request, info);
    if (custom) return custom;
    if (options.trustProxy) {
      const hops = options.trustProxy === true ? 1 : Math.max(1, Math.floor(options.trustProxy));
      const chain = (request.headers.get('x-forwarded-for') ?? '')
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean);
      const forwarded = chain[Math.max(0, chain.length - hops)];
      if (forwarded) return forwarded;
    }
    return info?.clientIp || info?.incoming?.socket?.remoteAddress || undefined;
  }

  function corsHeaders(origin: string | null): Record<string, string> {
    // Vary on every checkout answer, so a shared cache never serves one origin's CORS headers to another.
    if (!origin) return { vary: 'Origin' };
    const allowed = origins === '*' || origins.has(normalizeOrigin(origin));
    if (!allowed) return { vary: 'Origin' };
    return {
      vary: 'Origin',
      'access-control-allow-origin': origins === '*' ? '*' : origin,
      'access-control-expose-headers': 'Retry-After',
    };
  }

  function preflight(cors: Record<string, string>): Response {
    const headers: Record<string, string> = { ...cors };
    if (cors['access-control-allow-origin']) {
      headers['access-control-allow-methods'] = 'GET, HEAD, POST, OPTIONS';
      headers['access-control-allow-headers'] = 'Content-Type, Accept, Last-Event-ID, Idempotency-Key';
      headers['access-control-max-age'] = '600';
    }
    return new Response(null, { status: 204, headers });
  }

  /**
   * `release` (an event stream's slot) is called once the answer is settled: at once for anything but a
   * live stream, else when the stream ends, fails, is cancelled or the client goes away.
   */
  async function forward(
    request: Request,
    method: string,
    upstreamPath: string,
    withKey: boolean,
    eventStream = false,
    release?: () => void,
  ): Promise<Response> {
    let streaming = false;
    try {
      const response = await forwardOnce(request, method, upstreamPath, withKey, eventStream);
      if (release && response.body && /^text\/event-stream/i.test(response.headers.get('content-type') ?? '')) {
        streaming = true;
        return new Response(untilSettled(response.body, release, request.signal), { status: response.status, headers: response.headers });
      }
      return response;
    } finally {
      if (!streaming) release?.();
    }
  }

  async function forwardOnce(request: Request, method: string, upstreamPath: string, withKey: boolean, eventStream: boolean): Promise<Response> {
    const headers = new Headers();
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = request.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    if (withKey) headers.set('x-api-key', apiKey);
    // Said explicitly, so `createNodeFetch` puts the stream on its own sockets whatever the client sent.
    if (eventStream) headers.set('accept', 'text/event-stream');

    let body: Uint8Array<ArrayBuffer> | undefined;
    if (method !== 'GET' && method !== 'HEAD' && request.body) {
      const declared = Number(request.headers.get('content-length') ?? '0');
      if (declared > maxBodyBytes) return proxyError(413, 'body_too_large', `The request body is larger than ${maxBodyBytes} bytes`);
      const read = await readLimited(request.body, maxBodyBytes).catch(() => null);
      if (read === null) return proxyError(400, 'unreadable_body', 'The request body could not be read');
      if (read === 'too_large') return proxyError(413, 'body_too_large', `The request body is larger than ${maxBodyBytes} bytes`);
      body = read;
      // The service parses bodies as JSON whatever their type; insisting on JSON here means a
      // cross-site form can't post to an admin route with the merchant's cookies (JSON needs a
      // CORS preflight, which admin routes never grant).
      if (withKey && body.byteLength > 0 && !isJson(headers.get('content-type'))) {
        return proxyError(415, 'unsupported_media_type', 'Admin requests with a body must be application/json');
      }
    }

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onClientGone = () => controller.abort();
    request.signal?.addEventListener('abort', onClientGone, { once: true });
    const cleanUp = () => {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onClientGone);
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
      return failure(timedOut, request);
    }

    const responseHeaders = redactor.headers(upstreamResponse.headers);
    const type = upstreamResponse.headers.get('content-type') ?? '';
    if (/^text\/event-stream/i.test(type) && upstreamResponse.body) {
      // A live stream: no timeout from here on and no buffering. The abort listener stays: when the
      // client goes, the upstream stream is cancelled with it.
      clearTimeout(timer);
      responseHeaders.set('x-accel-buffering', 'no');
      return new Response(upstreamResponse.body.pipeThrough(redactor.stream()), { status: upstreamResponse.status, headers: responseHeaders });
    }

    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await upstreamResponse.arrayBuffer());
    } catch {
      return failure(timedOut, request);
    } finally {
      cleanUp();
    }
    const status = upstreamResponse.status;
    const hasBody = method !== 'HEAD' && status !== 204 && status !== 304;
    return new Response(hasBody ? (redactor.bytes(bytes) as Uint8Array<ArrayBuffer>) : null, { status, headers: responseHeaders });
  }

  function failure(timedOut: boolean, request: Request): Response {
    if (timedOut) return proxyError(504, 'upstream_timeout', 'The Paylink service did not answer in time');
    if (request.signal?.aborted) return proxyError(499, 'client_closed', 'The client went away');
    return proxyError(502, 'upstream_unavailable', 'The Paylink service could not be reached');
  }

  const handler = handle as PaylinkProxyHandler;
  Object.defineProperty(handler, 'basePath', { value: basePath, enumerable: true });
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

/** Passes `source` on, calling `onSettled` once when it ends, fails, is cancelled, or `signal` aborts. */
function untilSettled(source: ReadableStream<Uint8Array>, onSettled: () => void, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let settled = false;
  const settle = () => {
    if (settled) return;
    settled = true;
    signal?.removeEventListener('abort', settle);
    onSettled();
  };
  if (signal?.aborted) settle();
  else signal?.addEventListener('abort', settle, { once: true });
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

function withHeaders(response: Response, extra: Record<string, string>): Response {
  for (const [name, value] of Object.entries(extra)) {
    if (name === 'vary') response.headers.append('vary', value);
    else response.headers.set(name, value);
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
function createAuthorizer(options: PaylinkProxyOptions): (request: Request) => Promise<boolean> {
  if (options.authorize) {
    const authorize = options.authorize;
    return async (request) => (await authorize(request)) === true;
  }
  const token = options.adminToken?.trim();
  if (!token) return async () => false;
  const expected = digest(token);
  return async (request) => {
    const header = request.headers.get('authorization') ?? '';
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
  const encoder = new TextEncoder();
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
    headers(source: Headers): Headers {
      const out = new Headers();
      source.forEach((value, name) => {
        if (DROPPED_RESPONSE_HEADERS.has(name) || name.startsWith('access-control-')) return;
        if (value.toLowerCase().includes(lowerSecret)) return;
        out.append(name, value);
      });
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
