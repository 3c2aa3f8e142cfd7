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
import {
  PROXY_CORE,
  RAW_FETCH,
  proxyError,
  type PaylinkProxyHandler,
  type ProxyCore,
  type ProxyIncoming,
  type ProxyOutgoing,
  type ProxyRequestInfo,
  type RawAnswer,
  type RawCall,
} from './proxy.js';

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
  // The proxy's own core, when `handler` is the proxy: bodiless requests then skip `Request`/`Response`.
  const core = (handler as { [PROXY_CORE]?: ProxyCore })[PROXY_CORE];
  return (incoming, res, next) => {
    const req = incoming as ExpressLikeRequest;
    // Express strips its mount path from `req.url`; the proxy routes on the full path.
    const rawUrl = req.originalUrl ?? req.url ?? '/';
    if (next && basePath !== undefined) {
      const path = rawUrl.split('?')[0]!;
      if (path !== basePath && !path.startsWith(`${basePath}/`)) return next();
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const handled =
      core && (method === 'GET' || method === 'HEAD' || method === 'OPTIONS')
        ? handleBodiless(core, req, res, rawUrl, method)
        : handleNodeRequest(handler, req, res, rawUrl);
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
    return at === -1
      ? { pathname: rawUrl, search: '', target: undefined }
      : { pathname: rawUrl.slice(0, at), search: rawUrl.slice(at), target: undefined };
  }
  const target = targetOf(rawUrl);
  return { pathname: target.pathname, search: target.search, target };
}

/** The request's full URL: the Host header only names the origin, and only when it is a plain host[:port]. */
function fullUrl(req: IncomingMessage, target: URL): string {
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  return `${encrypted ? 'https' : 'http'}://${safeHost(req.headers.host)}${target.pathname}${target.search}`;
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

/**
 * GET, HEAD and OPTIONS to the proxy itself: its core reads the Node request directly and its answer is
 * written straight out, with no `Request`, `Headers`, `AbortSignal` or `Response` on the way (a `Request`
 * is built only if `authorize` or `clientKey` asks for one).
 */
async function handleBodiless(core: ProxyCore, req: IncomingMessage, res: ServerResponse, rawUrl: string, method: string) {
  const incoming = new NodeIncoming(req, res, method, rawUrl);
  const answer = await core(incoming, { clientIp: req.socket.remoteAddress });
  return writeOutgoing(res, answer, incoming);
}

class NodeIncoming implements ProxyIncoming {
  readonly pathname: string;
  readonly search: string;
  aborted = false;
  private listeners: (() => void)[] | undefined;
  private fetchRequest: Request | undefined;
  private controller: AbortController | undefined;

  private readonly target: URL | undefined;

  constructor(
    private readonly req: IncomingMessage,
    res: ServerResponse,
    readonly method: string,
    private readonly rawUrl: string,
  ) {
    const { pathname, search, target } = pathAndQuery(rawUrl);
    this.pathname = pathname;
    this.search = search;
    this.target = target;
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

  body(): null {
    return null;
  }

  url(): URL {
    return new URL(fullUrl(this.req, this.target ?? targetOf(this.rawUrl)));
  }

  request(): Request {
    if (!this.fetchRequest) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
      this.fetchRequest = new Request(fullUrl(this.req, this.target ?? targetOf(this.rawUrl)), { method: this.method, headers: headersOf(this.req), signal: this.controller.signal });
    }
    return this.fetchRequest;
  }
}

const noop = () => {};

async function handleNodeRequest(handler: FetchHandler, req: ExpressLikeRequest, res: ServerResponse, rawUrl: string) {
  const controller = new AbortController();
  // 'close' on the response before it finished means the client went away: stop the upstream call.
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const url = fullUrl(req, targetOf(rawUrl));
  const headers = headersOf(req);

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
  await pump(res, reader);
}

/** The proxy core's answer, written out: bytes in one `end()`, an event stream chunk by chunk. */
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
  const agents: Pools = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  const streamAgents: Pools = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  // The last upstream origin's parts, reused while the proxy keeps calling it.
  let lastOrigin = '';
  let lastTarget: UpstreamTarget | undefined;

  /** The proxy's way in (`RAW_FETCH`): plain headers in, raw headers and a Buffer out, `abort()` in place of a signal. */
  const raw = (input: string, method: string, init: Record<string, string>, body: Uint8Array | string | undefined): UpstreamCall => {
    const url = new URL(input);
    if (url.origin !== lastOrigin || !lastTarget) {
      lastOrigin = url.origin;
      const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      lastTarget = { secure: url.protocol === 'https:', hostname, port: url.port ? Number(url.port) : undefined };
    }
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    for (const name of Object.keys(init)) headers[name] = init[name]!;
    if (body != null) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    const pools = /text\/event-stream/i.test(headers['accept'] ?? '') ? streamAgents : agents;
    return new UpstreamCall(lastTarget, pools, url.pathname + url.search, method, headers, body);
  };

  const nodeFetch: typeof fetch = (input, init = {}) => {
    const body = init.body;
    if (input instanceof Request || (body != null && typeof body !== 'string' && !(body instanceof Uint8Array))) {
      return globalThis.fetch(input, init);
    }
    const signal = init.signal;
    if (signal?.aborted) return Promise.reject(new DOMException('The operation was aborted', 'AbortError'));
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    let call: UpstreamCall;
    try {
      call = raw(String(input), (init.method ?? 'GET').toUpperCase(), headers, body ?? undefined);
    } catch (error) {
      return Promise.reject(error);
    }
    const abort = () => call.abort();
    signal?.addEventListener('abort', abort, { once: true });
    // The abort listener stays while a stream is open (aborting cuts it), and goes when it closes.
    if (signal) call.onStreamClose = () => signal.removeEventListener('abort', abort);
    return call.answer.then(
      (answer) => {
        const responseHeaders = new Headers();
        const rawHeaders = answer.rawHeaders;
        for (let i = 0; i < rawHeaders.length; i += 2) responseHeaders.append(rawHeaders[i]!, rawHeaders[i + 1]!);
        if (answer.body instanceof ReadableStream) return new Response(answer.body, { status: answer.status, headers: responseHeaders });
        signal?.removeEventListener('abort', abort);
        return new Response(answer.body as Uint8Array<ArrayBuffer> | null, { status: answer.status, headers: responseHeaders });
      },
      (error: unknown) => {
        signal?.removeEventListener('abort', abort);
        throw error;
      },
    );
  };
  Object.defineProperty(nodeFetch, RAW_FETCH, { value: raw });
  return nodeFetch;
}

interface Pools {
  http: http.Agent;
  https: https.Agent;
}

interface UpstreamTarget {
  secure: boolean;
  hostname: string;
  port: number | undefined;
}

/** One upstream request over the keep-alive pools. Event streams stream; other bodies are read whole. */
class UpstreamCall implements RawCall {
  readonly answer: Promise<RawAnswer>;
  private request: http.ClientRequest | undefined;
  private settled = false;
  private streaming = false;
  private resolve!: (answer: RawAnswer) => void;
  /** Called when a live event stream's socket closes. */
  onStreamClose: (() => void) | undefined;
  private reject!: (error: unknown) => void;

  constructor(target: UpstreamTarget, pools: Pools, path: string, readonly method: string, headers: Record<string, string>, body: Uint8Array | string | undefined) {
    this.answer = new Promise<RawAnswer>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    try {
      const request = (target.secure ? https : http).request({
        protocol: target.secure ? 'https:' : 'http:',
        hostname: target.hostname,
        port: target.port,
        path,
        method,
        headers,
        agent: target.secure ? pools.https : pools.http,
      });
      this.request = request;
      request.on('error', (error) => this.fail(error));
      request.on('response', (incoming) => this.onResponse(incoming));
      request.end(body ?? undefined);
    } catch (error) {
      this.fail(error);
    }
  }

  /** Stops the call: rejects a pending answer (a request still queued for a socket emits nothing), cuts a live stream. */
  abort(): void {
    if (this.settled && !this.streaming) return;
    const error = new DOMException('The operation was aborted', 'AbortError');
    this.request?.destroy(error);
    this.fail(error);
  }

  private fail(error: unknown) {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }

  private onResponse(incoming: IncomingMessage) {
    const status = incoming.statusCode ?? 502;
    if (/^text\/event-stream/i.test(incoming.headers['content-type'] ?? '')) {
      if (this.settled) return;
      this.settled = true;
      this.streaming = true;
      incoming.once('close', () => {
        this.streaming = false;
        this.onStreamClose?.();
      });
      this.resolve({ status, rawHeaders: incoming.rawHeaders, body: Readable.toWeb(incoming) as unknown as ReadableStream<Uint8Array> });
      return;
    }
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('error', (error) => this.fail(error));
    incoming.on('end', () => {
      if (this.settled) return;
      this.settled = true;
      const method = this.method;
      const empty = method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
      this.resolve({ status, rawHeaders: incoming.rawHeaders, body: empty ? null : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
    });
  }
}
