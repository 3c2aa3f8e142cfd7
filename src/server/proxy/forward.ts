/**
 * The one forwarder: sends a request the guards let through to the service over an `Upstream`, and
 * turns the answer into what may go back to the browser. It adds the key where the area says so,
 * passes only an allow-list of request headers, times the call out (504), maps a service that can't be
 * reached to 502, and redacts every answer; live event streams flow through unbuffered and outlive the
 * timeout, cut when their client goes.
 *
 * Boundary: forwarding only. It never refuses a request (guards do) and knows no transport (the
 * `Upstream` does).
 */
import type { Exchange } from './exchange.js';
import { EMPTY, errorOut, type ProxyIncoming, type ProxyOutgoing } from './messages.js';
import type { Redactor } from './redact.js';
import type { Upstream, UpstreamAnswer, UpstreamCall } from './upstream.js';

/** Request headers passed to the service; everything else a browser sends (its `X-API-KEY`, cookies, `Authorization`) is dropped. */
export const FORWARDED_REQUEST_HEADERS: readonly string[] = ['accept', 'accept-language', 'content-type', 'idempotency-key', 'last-event-id', 'if-none-match', 'user-agent'];

/** What the forwarder needs: where, with which key, how long, and how to clean answers. */
export interface ForwarderOptions {
  upstream: Upstream;
  /** Sent as `X-API-KEY` on areas `withKey`. */
  apiKey: string;
  /** How long to wait for the whole answer (an event stream's headers) before a 504. */
  timeoutMs: number;
  redactor: Redactor;
}

/** Forwards an exchange to `upstreamPath` (path and query below the upstream's URL). */
export type Forwarder = (exchange: Exchange, upstreamPath: string) => Promise<ProxyOutgoing>;

/** Builds the forwarder (see the module comment). */
export function createForwarder(options: ForwarderOptions): Forwarder {
  const { upstream, apiKey, timeoutMs, redactor } = options;

  return async (exchange, path) => {
    const incoming = exchange.incoming;
    const method = incoming.method;
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = incoming.header(name);
      if (value !== null) headers[name] = value;
    }
    if (exchange.area.withKey) headers['x-api-key'] = apiKey;
    const stream = exchange.route?.stream === true;
    // Said explicitly, so the upstream sends a stream (and the Node upstream uses its stream pool) whatever the client asked.
    if (stream) headers.accept = 'text/event-stream';
    if (incoming.aborted) return failure(false, incoming);

    let call: UpstreamCall;
    try {
      call = upstream.send({ method, path, headers, body: method === 'GET' || method === 'HEAD' ? undefined : exchange.body, stream });
    } catch {
      return failure(false, incoming);
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      call.abort();
    }, timeoutMs);
    const stopListening = incoming.onAbort(() => call.abort());
    let answer: UpstreamAnswer;
    try {
      answer = await call.answer;
    } catch {
      clearTimeout(timer);
      stopListening();
      return failure(timedOut, incoming);
    }
    clearTimeout(timer);
    const status = answer.status;
    const responseHeaders = redactor.headers(answer.headers);
    if (answer.body instanceof ReadableStream) {
      // A live stream: no timeout from here on and no buffering. The abort listener stays: when the
      // client goes, the upstream stream is cut with it.
      responseHeaders['x-accel-buffering'] = 'no';
      return { status, headers: responseHeaders, body: answer.body.pipeThrough(redactor.stream()) };
    }
    stopListening();
    const hasBody = method !== 'HEAD' && status !== 204 && status !== 304;
    return { status, headers: responseHeaders, body: hasBody ? redactor.bytes(answer.body ?? EMPTY) : null };
  };
}

function failure(timedOut: boolean, incoming: ProxyIncoming): ProxyOutgoing {
  if (timedOut) return errorOut(504, 'upstream_timeout', 'The Paylink service did not answer in time');
  if (incoming.aborted) return errorOut(499, 'client_closed', 'The client went away');
  return errorOut(502, 'upstream_unavailable', 'The Paylink service could not be reached');
}
