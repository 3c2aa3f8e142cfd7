/**
 * `toNodeHandler(proxy)`: runs the proxy in `node:http` and Express (or Connect, Fastify's `middie`, …).
 * Incoming requests only: how the proxy reaches the service is its `upstream` option's business.
 *
 * For the proxy itself it calls `proxy.handleIncoming` with a `ProxyIncoming` read straight off the
 * `IncomingMessage` (no `Request`, `Headers`, `AbortSignal` or `Response` per call; a `Request` is built
 * only if `authorize`, `clientKey` or `bundles` asks for one) and writes the answer out: bytes in one
 * `end()`, event streams chunk by chunk, live. Any other fetch handler gets a `Request` and its `Response`
 * is streamed back. Either way the upstream call is aborted when the client disconnects, and the socket
 * address is passed as the rate-limit key.
 *
 * Express: mount it before any body parser (`app.use(toNodeHandler(proxy))` at the top, or
 * `app.use('/paylink', toNodeHandler(proxy))`). If `express.json()` (or another parser) already ran, the
 * parsed `req.body` is forwarded instead: objects as JSON, strings and Buffers as they are, always under
 * the request's own `Content-Type` (so a form post stays a form post, and admin routes refuse it).
 * Requests outside the proxy's `basePath` go to `next()` when there is one, and get a 404 otherwise.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { EMPTY, concat, proxyError, type ProxyIncoming, type ProxyOutgoing, type ProxyRequestInfo } from './messages.js';
import type { PaylinkProxyHandler } from './proxy.js';

/** A fetch handler, as `createPaylinkProxy` returns (any `(Request) => Promise<Response>` works). */
export type FetchHandler = ((request: Request, info?: ProxyRequestInfo) => Response | Promise<Response>) & { basePath?: string };

/** `(req, res, next?)`: a `node:http` request listener and an Express/Connect middleware at once. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

interface ExpressLikeRequest extends IncomingMessage {
  originalUrl?: string;
  body?: unknown;
  _body?: boolean;
}

/** Adapts the proxy (or any fetch handler) to `node:http` and Express; see the module comment. */
export function toNodeHandler(handler: FetchHandler | PaylinkProxyHandler): NodeHandler {
  const basePath = handler.basePath;
  const handleIncoming =
    typeof (handler as Partial<PaylinkProxyHandler>).handleIncoming === 'function' ? (handler as PaylinkProxyHandler).handleIncoming : undefined;
  return (incoming, res, next) => {
    const req = incoming as ExpressLikeRequest;
    // Express strips its mount path from `req.url`; the proxy routes on the full path.
    const rawUrl = req.originalUrl ?? req.url ?? '/';
    if (next && basePath !== undefined) {
      const path = rawUrl.split('?')[0]!;
      if (path !== basePath && !path.startsWith(`${basePath}/`)) return next();
    }
    let handled: Promise<unknown>;
    if (handleIncoming) {
      const nodeIncoming = new NodeIncoming(req, res, rawUrl);
      handled = handleIncoming(nodeIncoming, { clientIp: req.socket.remoteAddress }).then((answer) => writeOutgoing(res, answer, nodeIncoming));
    } else {
      handled = handleWithRequest(handler, req, res, rawUrl);
    }
    handled.catch((error) => {
      if (next) return next(error);
      if (!res.headersSent) sendResponse(res, proxyError(500, 'internal_error', 'The proxy failed')).catch(() => res.destroy());
      else res.destroy();
    });
  };
}

/**
 * The path and query come from the request line alone (the same text the basePath gate read), under a
 * fixed authority (so `//host/…` stays a path).
 */
function targetOf(rawUrl: string): URL {
  return new URL(`http://localhost${rawUrl.startsWith('/') ? rawUrl : `/${rawUrl}`}`);
}

/**
 * A request target `URL` would leave exactly as it is: a path of letters, digits and `-_~/` (no dot
 * segments, no percent escapes) and an optional non-empty query of characters it does not escape.
 */
const PLAIN_TARGET = /^\/[A-Za-z0-9\-_~/]*(?:\?[A-Za-z0-9\-_~.!$&()*+,;=:@/?%]+)?$/;

/** The path and query as `targetOf` would give them, without parsing a URL when the target is plain. */
function pathAndQuery(rawUrl: string): { pathname: string; search: string; target: URL | undefined } {
  if (PLAIN_TARGET.test(rawUrl)) {
    const at = rawUrl.indexOf('?');
    return at === -1 ? { pathname: rawUrl, search: '', target: undefined } : { pathname: rawUrl.slice(0, at), search: rawUrl.slice(at), target: undefined };
  }
  const target = targetOf(rawUrl);
  return { pathname: target.pathname, search: target.search, target };
}

/** The request's full URL: the Host header only names the origin, and only when it is a plain host[:port]. */
function fullUrl(req: IncomingMessage, pathname: string, search: string): string {
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  return `${encrypted ? 'https' : 'http'}://${safeHost(req.headers.host)}${pathname}${search}`;
}

/** `host[:port]` (a name, IPv4 or `[IPv6]`) as the client sent it; anything else is replaced by `localhost`. */
function safeHost(host: string | undefined): string {
  if (!host || !/^(?:[a-z0-9_.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i.test(host)) return 'localhost';
  try {
    new URL(`http://${host}/`); // e.g. 1.2.3.256 passes the pattern but is no host
    return host;
  } catch {
    return 'localhost';
  }
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return headers;
}

const noop = () => {};

/** A `ProxyIncoming` read straight off a Node request. */
class NodeIncoming implements ProxyIncoming {
  readonly method: string;
  readonly pathname: string;
  readonly search: string;
  aborted = false;
  private readonly req: ExpressLikeRequest;
  private readonly res: ServerResponse;
  private listeners: (() => void)[] | undefined;
  private fetchRequest: Request | undefined;
  private controller: AbortController | undefined;

  constructor(req: ExpressLikeRequest, res: ServerResponse, rawUrl: string) {
    this.req = req;
    this.res = res;
    this.method = (req.method ?? 'GET').toUpperCase();
    const { pathname, search } = pathAndQuery(rawUrl);
    this.pathname = pathname;
    this.search = search;
    // 'close' on the response before it finished means the client went away: stop the upstream call.
    res.once('close', () => {
      if (res.writableFinished) return;
      this.aborted = true;
      const listeners = this.listeners;
      this.listeners = undefined;
      if (listeners) for (const listener of listeners) listener();
      this.controller?.abort();
    });
  }

  header(name: string): string | null {
    const value = this.req.headers[name];
    if (value === undefined) return null;
    return typeof value === 'string' ? value : value.join(', ');
  }

  onAbort(listener: () => void): () => void {
    if (this.aborted) return noop;
    (this.listeners ??= []).push(listener);
    return () => {
      const index = this.listeners?.indexOf(listener) ?? -1;
      if (index !== -1) this.listeners!.splice(index, 1);
    };
  }

  readBody(limit: number): Promise<Uint8Array | 'too_large'> {
    const req = this.req;
    const parsed = preParsedBody(req);
    if (parsed !== undefined) return Promise.resolve(parsed.byteLength > limit ? 'too_large' : parsed);
    if (req.readableEnded) return Promise.resolve(EMPTY);
    return new Promise((resolve, reject) => {
      const chunks: Uint8Array[] = [];
      let size = 0;
      const cleanUp = () => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onClose);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size <= limit) return void chunks.push(chunk);
        cleanUp();
        // Stop reading, answer, then close the connection: the rest of the body is never read.
        req.pause();
        this.res.shouldKeepAlive = false;
        resolve('too_large');
      };
      const onEnd = () => {
        cleanUp();
        resolve(concat(chunks, size));
      };
      const onError = (error: Error) => {
        cleanUp();
        reject(error);
      };
      const onClose = () => {
        cleanUp();
        if (!req.complete) reject(new Error('the client broke off the request body'));
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      req.on('close', onClose);
    });
  }

  url(): URL {
    return new URL(fullUrl(this.req, this.pathname, this.search));
  }

  request(): Request {
    if (!this.fetchRequest) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
      this.fetchRequest = new Request(fullUrl(this.req, this.pathname, this.search), {
        method: this.method,
        headers: headersOf(this.req),
        signal: this.controller.signal,
      });
    }
    return this.fetchRequest;
  }
}

/**
 * The body a body parser already consumed, re-encoded; `undefined` when the stream is still unread.
 * The `Content-Type` is never changed: a parsed object is sent as JSON, and it is labelled JSON only if
 * the client said so. (Relabelling a parsed form as JSON would let a cross-site form past the
 * proxy's "admin bodies must be JSON" check.)
 */
function preParsedBody(req: ExpressLikeRequest): Uint8Array | undefined {
  const consumed = req._body === true || (req.readableEnded && req.body !== undefined);
  if (!consumed) return undefined;
  const body = req.body;
  if (body === undefined || body === null) return EMPTY;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return body;
  // A parsed object goes on as JSON under the client's own type: a form stays labelled a form (admin
  // routes answer 415), while the service, which reads JSON whatever the type, still takes it on checkout routes.
  return Buffer.from(JSON.stringify(body));
}

/** Any other fetch handler: a `Request` in (its body streamed from the socket), its `Response` out. */
async function handleWithRequest(handler: FetchHandler, req: ExpressLikeRequest, res: ServerResponse, rawUrl: string) {
  const controller = new AbortController();
  // 'close' on the response before it finished means the client went away: stop the upstream call.
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const { pathname, search } = pathAndQuery(rawUrl);
  const headers = headersOf(req);
  const method = (req.method ?? 'GET').toUpperCase();
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: controller.signal };
  if (method !== 'GET' && method !== 'HEAD') {
    const parsed = preParsedBody(req);
    if (parsed !== undefined) {
      headers.delete('content-length');
      init.body = parsed as Uint8Array<ArrayBuffer>;
    } else if (!req.readableEnded) {
      init.body = Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>;
      init.duplex = 'half';
    }
  }
  const response = await handler(new Request(fullUrl(req, pathname, search), init), { clientIp: req.socket.remoteAddress });
  await sendResponse(res, response, controller.signal);
}

async function sendResponse(res: ServerResponse, response: Response, signal?: AbortSignal) {
  res.statusCode = response.status;
  const cookies = response.headers.getSetCookie?.() ?? [];
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') res.setHeader(name, value);
  });
  if (cookies.length) res.setHeader('set-cookie', cookies);
  if (!response.body) {
    res.end();
    return;
  }
  if (!/^text\/event-stream/i.test(response.headers.get('content-type') ?? '')) {
    // Everything but an event stream is small: one write with a Content-Length beats chunking it.
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (!res.destroyed) res.end(bytes);
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  signal?.addEventListener('abort', () => reader.cancel().catch(() => {}), { once: true });
  await pump(res, reader);
}

/** The proxy's answer, written out: bytes in one `end()`, an event stream chunk by chunk. */
function writeOutgoing(res: ServerResponse, answer: ProxyOutgoing, incoming: ProxyIncoming): Promise<void> | undefined {
  res.statusCode = answer.status;
  const headers = answer.headers;
  for (const name in headers) res.setHeader(name, headers[name]!);
  const body = answer.body;
  if (body === null) {
    res.end();
    return;
  }
  if (body instanceof Uint8Array) {
    if (!res.destroyed) res.end(body);
    return;
  }
  res.flushHeaders();
  const reader = body.getReader();
  incoming.onAbort(() => reader.cancel().catch(() => {}));
  return pump(res, reader);
}

async function pump(res: ServerResponse, reader: ReadableStreamDefaultReader<Uint8Array>) {
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value))
        await new Promise<void>((resolve) => {
          const resume = () => {
            res.off('drain', resume);
            res.off('close', resume);
            resolve();
          };
          res.on('drain', resume);
          res.on('close', resume);
        });
      if (res.destroyed) break;
    }
    res.end();
  } catch {
    // The upstream stream broke mid-way (or the client left): end the response as it stands.
    res.destroy();
  }
}
