/**
 * `toNodeHandler(proxy)`: runs the fetch-handler proxy in `node:http` and Express (or Connect, Fastify's
 * `middie`, …). Streams responses (so Server-Sent Events flow through live), aborts the upstream call
 * when the client disconnects, and passes the socket address as the rate-limit key.
 *
 * Express: mount it before any body parser (`app.use(toNodeHandler(proxy))` at the top, or
 * `app.use('/paylink', toNodeHandler(proxy))`). If `express.json()` (or another parser) already ran, the
 * parsed `req.body` is forwarded instead: objects as JSON, strings and Buffers as they are, always under
 * the request's own `Content-Type` (so a form post stays a form post, and admin routes refuse it).
 * Requests outside the proxy's `basePath` go to `next()` when there is one, and get a 404 otherwise.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { proxyError, type PaylinkProxyHandler, type ProxyRequestInfo } from './proxy.js';

/** A fetch handler, as `createPaylinkProxy` returns (any `(Request) => Promise<Response>` works). */
export type FetchHandler = ((request: Request, info?: ProxyRequestInfo) => Response | Promise<Response>) & { basePath?: string };

/** `(req, res, next?)`: a `node:http` request listener and an Express/Connect middleware at once. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

interface ExpressLikeRequest extends IncomingMessage {
  originalUrl?: string;
  body?: unknown;
  _body?: boolean;
}

export function toNodeHandler(handler: FetchHandler | PaylinkProxyHandler): NodeHandler {
  const basePath = handler.basePath;
  return (incoming, res, next) => {
    const req = incoming as ExpressLikeRequest;
    // Express strips its mount path from `req.url`; the proxy routes on the full path.
    const rawUrl = req.originalUrl ?? req.url ?? '/';
    if (next && basePath !== undefined) {
      const path = rawUrl.split('?')[0]!;
      if (path !== basePath && !path.startsWith(`${basePath}/`)) return next();
    }
    handleNodeRequest(handler, req, res, rawUrl).catch((error) => {
      if (next) return next(error);
      if (!res.headersSent) sendResponse(res, proxyError(500, 'internal_error', 'The proxy failed')).catch(() => res.destroy());
      else res.destroy();
    });
  };
}

async function handleNodeRequest(handler: FetchHandler, req: ExpressLikeRequest, res: ServerResponse, rawUrl: string) {
  const controller = new AbortController();
  // 'close' on the response before it finished means the client went away: stop the upstream call.
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  // The path and query come from the request line alone (the same text the basePath gate read), under a
  // fixed authority (so `//host/…` stays a path); the Host header only names the origin, and only when it
  // is a plain host[:port].
  const target = new URL(`http://localhost${rawUrl.startsWith('/') ? rawUrl : `/${rawUrl}`}`);
  const url = `${encrypted ? 'https' : 'http'}://${safeHost(req.headers.host)}${target.pathname}${target.search}`;

  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }

  const method = (req.method ?? 'GET').toUpperCase();
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: controller.signal };
  if (method !== 'GET' && method !== 'HEAD') {
    const parsed = preParsedBody(req, headers);
    if (parsed !== undefined) {
      init.body = parsed;
    } else if (!req.readableEnded) {
      init.body = Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>;
      init.duplex = 'half';
    }
  }

  const request = new Request(url, init);
  const response = await handler(request, { clientIp: req.socket.remoteAddress });
  await sendResponse(res, response, controller.signal);
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

/**
 * The body a body parser already consumed, re-encoded; `undefined` when the stream is still unread.
 * The `Content-Type` is never changed: a parsed object is sent as JSON, and it is labelled JSON only if
 * the client said so. (Relabelling a parsed form as JSON would let a cross-site form past the
 * proxy's "admin bodies must be JSON" check.)
 */
function preParsedBody(req: ExpressLikeRequest, headers: Headers): string | Uint8Array<ArrayBuffer> | undefined {
  const consumed = req._body === true || (req.readableEnded && req.body !== undefined);
  if (!consumed) return undefined;
  headers.delete('content-length');
  const body = req.body;
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new Uint8Array(body);
  // A parsed object goes on as JSON under the client's own type: a form stays labelled a form (admin
  // routes answer 415), while the service, which reads JSON whatever the type, still takes it on checkout routes.
  return JSON.stringify(body);
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
    // Everything but an event stream is small JSON: one write with a Content-Length beats chunking it.
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (!res.destroyed) res.end(bytes);
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  signal?.addEventListener('abort', () => reader.cancel().catch(() => {}), { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((resolve) => {
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

export interface NodeFetchOptions {
  /**
   * Sockets per upstream host (keep-alive) for ordinary calls. Default 256. Event streams
   * (`Accept: text/event-stream`) use a pool of their own, without that cap, so open streams never
   * leave the JSON calls waiting for a socket (the proxy caps streams per client instead).
   */
  maxSockets?: number;
}

/**
 * A `fetch` for the proxy's `fetch` option on Node, over `node:http`/`node:https` with keep-alive
 * agents. It does only what the proxy needs (string or URL input, a string or byte body, `signal`;
 * no redirects followed, no compression asked for) and costs a fraction of the global fetch per
 * request: pass `fetch: createNodeFetch()` where the proxy runs on Node. Event streams stream;
 * other bodies are read whole before it resolves (so the proxy's timeout covers them).
 * Anything else (a `Request` as input, a stream body) goes to the global fetch.
 */
export function createNodeFetch(options: NodeFetchOptions = {}): typeof fetch {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256 };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  const streamAgents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  return (input, init = {}) => {
    const body = init.body;
    if (input instanceof Request || (body != null && typeof body !== 'string' && !(body instanceof Uint8Array))) {
      return globalThis.fetch(input, init);
    }
    return new Promise<Response>((resolve, reject) => {
      const url = new URL(String(input));
      const method = (init.method ?? 'GET').toUpperCase();
      const headers: Record<string, string> = { 'accept-encoding': 'identity' };
      new Headers(init.headers).forEach((value, name) => {
        headers[name] = value;
      });
      if (body != null) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
      const signal = init.signal;
      if (signal?.aborted) return reject(new DOMException('The operation was aborted', 'AbortError'));
      const secure = url.protocol === 'https:';
      const pool = /text\/event-stream/i.test(headers['accept'] ?? '') ? streamAgents : agents;
      const request = (secure ? https : http).request(url, { method, headers, agent: secure ? pool.https : pool.http });
      const onAbort = () => {
        const error = new DOMException('The operation was aborted', 'AbortError');
        request.destroy(error);
        // A request still queued for a socket emits nothing when destroyed: settle here, or the proxy's
        // timeout could not turn a saturated pool into a 504.
        reject(error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      request.on('error', (error) => {
        done();
        reject(error);
      });
      request.on('response', (incoming) => {
        const responseHeaders = new Headers();
        const raw = incoming.rawHeaders;
        for (let i = 0; i < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!);
        const status = incoming.statusCode ?? 502;
        if (/^text\/event-stream/i.test(incoming.headers['content-type'] ?? '')) {
          incoming.once('close', done);
          resolve(new Response(Readable.toWeb(incoming) as unknown as ReadableStream<Uint8Array>, { status, headers: responseHeaders }));
          return;
        }
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', (error) => {
          done();
          reject(error);
        });
        incoming.on('end', () => {
          done();
          const empty = method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
          resolve(new Response(empty ? null : (Buffer.concat(chunks) as Uint8Array<ArrayBuffer>), { status, headers: responseHeaders }));
        });
      });
      request.end(body ?? undefined);
    });
  };
}
