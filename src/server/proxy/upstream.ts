/**
 * How the proxy reaches the service: the `Upstream` interface, and its implementation over any `fetch`
 * (the global one, or one a test or runtime injects). On Node, `createNodeUpstream` (`node-upstream.ts`)
 * implements the same interface over `node:http` keep-alive pools at a fraction of the cost per call.
 *
 * Boundary: transport only. An `Upstream` never decides what may pass (guards do) nor cleans answers
 * (the forwarder redacts them); it moves one request and its answer, and stops when told to.
 */

/** One request to the service. */
export interface UpstreamRequest {
  /** Upper case. */
  readonly method: string;
  /** Path and query below the upstream's base URL, e.g. `/v1/checkout/abc?lang=fr`. */
  readonly path: string;
  /** Lower-case names, one value each: exactly what is sent (nothing is added but `Content-Length`). */
  readonly headers: Readonly<Record<string, string>>;
  /** `undefined` for none. */
  readonly body: Uint8Array | undefined;
  /** A long-lived event stream is expected (Node keeps these on sockets of their own). */
  readonly stream: boolean;
}

/** The service's answer. */
export interface UpstreamAnswer {
  status: number;
  /** `[name, value, name, value, …]` as received. */
  headers: readonly string[];
  /** The whole body; a stream only for `text/event-stream`; `null` when there is none. */
  body: Uint8Array | ReadableStream<Uint8Array> | null;
}

/** One call in flight. */
export interface UpstreamCall {
  /**
   * Resolves once the whole answer is in (for an event stream: once its headers are), so a timeout
   * around it covers a body that stalls. Rejects when the call fails or is aborted.
   */
  readonly answer: Promise<UpstreamAnswer>;
  /** Stops the call: rejects `answer` if it is still pending, cuts a live stream. */
  abort(): void;
}

/**
 * The service, as the proxy reaches it. Implementations never follow redirects (the key would travel
 * with them) and never throw from `send` (failures reject `answer`).
 */
export interface Upstream {
  /** The service's base URL (origin and optional path, no trailing slash), e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  send(request: UpstreamRequest): UpstreamCall;
}

/** `http(s)://host[:port][/path]` without a trailing slash; a `TypeError` naming the option otherwise. */
export function parseUpstreamUrl(value: string | URL): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
    return (url.origin + url.pathname).replace(/\/+$/, '');
  } catch {
    throw new TypeError('createPaylinkProxy needs upstream: the service URL, e.g. http://127.0.0.1:8787');
  }
}

const EVENT_STREAM = /^text\/event-stream/i;

/**
 * An `Upstream` over `fetch` (default: the global one): for runtimes other than Node (Deno, Bun,
 * workers, Next.js), and for tests that inject a fake service as a fetch.
 */
export function createFetchUpstream(url: string | URL, fetchImpl: typeof fetch = (input, init) => globalThis.fetch(input, init)): Upstream {
  const base = parseUpstreamUrl(url);
  return {
    url: base,
    send(request) {
      const controller = new AbortController();
      const answer = (async (): Promise<UpstreamAnswer> => {
        const response = await fetchImpl(base + request.path, {
          method: request.method,
          headers: request.headers,
          redirect: 'manual',
          signal: controller.signal,
          ...(request.body ? { body: request.body as Uint8Array<ArrayBuffer> } : {}),
        });
        const headers: string[] = [];
        response.headers.forEach((value, name) => void headers.push(name, value));
        if (EVENT_STREAM.test(response.headers.get('content-type') ?? '') && response.body) {
          return { status: response.status, headers, body: response.body };
        }
        return { status: response.status, headers, body: new Uint8Array(await response.arrayBuffer()) };
      })();
      return { answer, abort: () => controller.abort() };
    },
  };
}
