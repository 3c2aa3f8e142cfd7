/**
 * The proxy's request and answer, runtime-neutral: `ProxyIncoming` is what every part reads of a request
 * (a fetch `Request` gives one through `requestIncoming`; the Node adapter builds a cheaper one straight
 * from `IncomingMessage`), `ProxyOutgoing` is what every part answers before it becomes a `Response` or is
 * written to a Node response. The proxy's own errors take the one error shape from `core/errors.ts`.
 *
 * Boundary: no Node imports, no policy. Guards, the router and the forwarder build on these types.
 */
import { errorBody } from '../../core/errors.js';

/** What a server adapter knows about the request beyond the `Request` itself. */
export interface ProxyRequestInfo {
  /** The client's address (the socket's peer), used as the rate-limit key. */
  clientIp?: string | undefined;
  /** `@hono/node-server` passes `{ incoming }` as the env; its socket address is used when `clientIp` is absent. */
  incoming?: { socket?: { remoteAddress?: string | undefined } | undefined } | undefined;
}

/**
 * What the proxy reads of a request. Adapters implement it; `requestIncoming` is the one over a fetch
 * `Request`, `toNodeHandler` has one over `node:http`.
 */
export interface ProxyIncoming {
  /** Upper case. */
  readonly method: string;
  /** The normalized path (as `URL` has it). */
  readonly pathname: string;
  /** The query with its `?`, or `''`. */
  readonly search: string;
  /** A request header (lower-case name), repeated values joined with `, `; `null` when absent. */
  header(name: string): string | null;
  /** The client went away. */
  readonly aborted: boolean;
  /** Calls `listener` once when the client goes away (not if it already has); returns the unsubscribe. */
  onAbort(listener: () => void): () => void;
  /**
   * The whole request body, or `'too_large'` as soon as it passes `limit` bytes (reading stops there).
   * Empty when there is none. Rejects when the body can't be read (the client broke off).
   */
  readBody(limit: number): Promise<Uint8Array | 'too_large'>;
  /** The full URL, origin included (the origin from the `Host` header, for the same-origin check). */
  url(): URL;
  /** The request as a `Request` (for `authorize`, `clientKey` and `bundles`), without its body. */
  request(): Request;
}

/** The proxy's answer before it becomes a `Response` (or is written to a Node response). */
export interface ProxyOutgoing {
  status: number;
  /** Lower-case names, one (joined) value each; a null-prototype object. */
  headers: Record<string, string>;
  /** Bytes; a stream only for a live event stream. */
  body: Uint8Array | ReadableStream<Uint8Array> | null;
}

const encoder = new TextEncoder();
/** Shared empty body. */
export const EMPTY = new Uint8Array(0);

/** A header record without a prototype, so a header named `__proto__` or `constructor` is just a header. */
export function headerRecord(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/** The one error shape as a `ProxyOutgoing`: JSON, never cached, never echoing the request. */
export function errorOut(statusCode: number, code: string, message: string, headers: Readonly<Record<string, string>> = {}): ProxyOutgoing {
  const out = headerRecord();
  out['content-type'] = 'application/json; charset=utf-8';
  out['cache-control'] = 'no-store';
  for (const name of Object.keys(headers)) out[name.toLowerCase()] = headers[name]!;
  return { status: statusCode, headers: out, body: encoder.encode(JSON.stringify(errorBody(statusCode, code, message))) };
}

/** The one error shape as a `Response`, for code around the proxy (e.g. a server's own 404). */
export function proxyError(statusCode: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return toResponse(errorOut(statusCode, code, message, headers));
}

/** A `ProxyOutgoing` as a fetch `Response`. */
export function toResponse(out: ProxyOutgoing): Response {
  return new Response(out.body as BodyInit | null, { status: out.status, headers: out.headers });
}

/** A `ProxyIncoming` over a fetch `Request` (what the proxy's fetch handler runs on). */
export function requestIncoming(request: Request): ProxyIncoming {
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
    readBody: (limit) => (request.body ? readLimited(request.body, limit) : Promise.resolve(EMPTY)),
    url: () => url,
    request: () => request,
  };
}

/** Reads a body stream up to `limit` bytes; `'too_large'` past it (and stops reading). */
export async function readLimited(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | 'too_large'> {
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
  return concat(chunks, size);
}

/** The chunks as one array (`size` when the caller already counted it). */
export function concat(parts: readonly Uint8Array[], size = parts.reduce((sum, part) => sum + part.byteLength, 0)): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
