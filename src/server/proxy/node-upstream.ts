/**
 * The proxy's way to the service on Node: an `Upstream` over `node:http`/`node:https` keep-alive
 * agents. Per call it builds no `Request`, `Headers`, `AbortSignal` or `Response` (the global fetch
 * does, and on a small JSON answer that is most of the proxy's cost): plain headers in, raw header
 * pairs and one Buffer out. Event streams stream, on a pool of their own.
 *
 * `createNodeFetch` offers the same transport as a `fetch` for code that wants one.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { parseUpstreamUrl, type Upstream, type UpstreamAnswer, type UpstreamCall } from './upstream.js';

/** Options of `createNodeUpstream`. */
export interface NodeUpstreamOptions {
  /**
   * Sockets per upstream host (keep-alive) for ordinary calls. Default 256. Event streams use a pool
   * of their own, without that cap, so open streams never leave the JSON calls waiting for a socket
   * (the proxy caps streams per client instead).
   */
  maxSockets?: number;
}

/** Options of `createNodeFetch`: the same pools as `createNodeUpstream`. */
export type NodeFetchOptions = NodeUpstreamOptions;

interface Pools {
  http: http.Agent;
  https: https.Agent;
  streamHttp: http.Agent;
  streamHttps: https.Agent;
}

interface Target {
  secure: boolean;
  hostname: string;
  port: number | undefined;
}

function createPools(options: NodeUpstreamOptions): Pools {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256 };
  return {
    http: new http.Agent(agentOptions),
    https: new https.Agent(agentOptions),
    streamHttp: new http.Agent({ keepAlive: true }),
    streamHttps: new https.Agent({ keepAlive: true }),
  };
}

function targetOf(url: URL): Target {
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { secure: url.protocol === 'https:', hostname, port: url.port ? Number(url.port) : undefined };
}

/**
 * The `Upstream` for Node: `createPaylinkProxy({ upstream: createNodeUpstream('http://127.0.0.1:8787'), … })`.
 * What `paylink proxy` and the demo use.
 */
export function createNodeUpstream(url: string | URL, options: NodeUpstreamOptions = {}): Upstream {
  const base = parseUpstreamUrl(url);
  const parsed = new URL(base);
  const target = targetOf(parsed);
  const basePath = parsed.pathname === '/' ? '' : parsed.pathname;
  const pools = createPools(options);
  return {
    url: base,
    send(request) {
      const headers: Record<string, string> = { 'accept-encoding': 'identity' };
      for (const name of Object.keys(request.headers)) headers[name] = request.headers[name]!;
      if (request.body !== undefined) headers['content-length'] = String(request.body.byteLength);
      return new NodeCall(target, pools, request.stream, basePath + request.path, request.method, headers, request.body);
    },
  };
}

/**
 * A `fetch` over the same keep-alive pools, for code that wants a fetch (string or URL input, a string
 * or byte body, `signal`; no redirects followed, no compression asked for; a request with
 * `Accept: text/event-stream` goes to the stream pool). Anything else (a `Request` as input, a stream
 * body) goes to the global fetch. For the proxy itself, prefer `createNodeUpstream`: it skips the
 * `Request`/`Response` objects this has to build.
 */
export function createNodeFetch(options: NodeFetchOptions = {}): typeof fetch {
  const pools = createPools(options);
  // The last upstream origin's parts, reused while the caller keeps calling it.
  let lastOrigin = '';
  let lastTarget: Target | undefined;

  return (input, init = {}) => {
    const body = init.body;
    if (input instanceof Request || (body != null && typeof body !== 'string' && !(body instanceof Uint8Array))) {
      return globalThis.fetch(input, init);
    }
    const signal = init.signal;
    if (signal?.aborted) return Promise.reject(new DOMException('The operation was aborted', 'AbortError'));
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    let call: NodeCall;
    try {
      const url = new URL(String(input));
      if (url.origin !== lastOrigin || !lastTarget) {
        lastOrigin = url.origin;
        lastTarget = targetOf(url);
      }
      const bytes = typeof body === 'string' ? Buffer.from(body) : (body ?? undefined);
      if (bytes !== undefined) headers['content-length'] = String(bytes.byteLength);
      const stream = /text\/event-stream/i.test(headers.accept ?? '');
      call = new NodeCall(lastTarget, pools, stream, url.pathname + url.search, (init.method ?? 'GET').toUpperCase(), headers, bytes);
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
        const raw = answer.headers;
        for (let i = 0; i < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!);
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
}

/**
 * One upstream request over the keep-alive pools. Event streams stream; other bodies are read whole.
 * A GET or HEAD that fails on a reused keep-alive socket before any answer is sent once more on a fresh
 * one: the service may have closed that socket as it was being reused (Node's docs describe the race),
 * and a customer should not see a 502 for it. Other methods are never re-sent (the service may have acted).
 */
class NodeCall implements UpstreamCall {
  readonly answer: Promise<UpstreamAnswer>;
  /** Called when a live event stream's socket closes. */
  onStreamClose: (() => void) | undefined;
  private readonly method: string;
  private readonly options: http.RequestOptions;
  private readonly secure: boolean;
  private readonly body: Uint8Array | undefined;
  private request: http.ClientRequest | undefined;
  private settled = false;
  private streaming = false;
  private retried = false;
  private resolve!: (answer: UpstreamAnswer) => void;
  private reject!: (error: unknown) => void;

  constructor(target: Target, pools: Pools, stream: boolean, path: string, method: string, headers: Record<string, string>, body: Uint8Array | undefined) {
    this.method = method;
    this.secure = target.secure;
    this.body = body;
    this.options = {
      protocol: target.secure ? 'https:' : 'http:',
      hostname: target.hostname,
      port: target.port,
      path,
      method,
      headers,
      agent: target.secure ? (stream ? pools.streamHttps : pools.https) : stream ? pools.streamHttp : pools.http,
    };
    this.answer = new Promise<UpstreamAnswer>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.send();
  }

  private send() {
    try {
      const request = (this.secure ? https : http).request(this.options);
      this.request = request;
      let answered = false;
      request.on('error', (error: NodeJS.ErrnoException) => {
        const idempotent = this.method === 'GET' || this.method === 'HEAD';
        if (!answered && !this.settled && !this.retried && idempotent && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
          this.retried = true;
          this.send();
          return;
        }
        this.fail(error);
      });
      request.on('response', (incoming) => {
        answered = true;
        this.onResponse(incoming);
      });
      request.end(this.body);
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
      this.resolve({ status, headers: incoming.rawHeaders, body: Readable.toWeb(incoming) as unknown as ReadableStream<Uint8Array> });
      return;
    }
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('error', (error) => this.fail(error));
    incoming.on('end', () => {
      if (this.settled) return;
      this.settled = true;
      const empty = this.method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
      this.resolve({ status, headers: incoming.rawHeaders, body: empty ? null : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
    });
  }
}
