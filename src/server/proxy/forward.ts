/**
 * The one forwarder: sends a request the guards let through to the service over an `Upstream`, and
 * turns the answer into what may go back to the browser. It adds the key where the area says so,
 * passes only an allow-list of request headers, times the call out (504), maps a service that can't be
 * reached to 502, and redacts every answer; live event streams flow through unbuffered and outlive the
 * timeout, cut when their client goes. The service hears the request's id (`X-Request-Id`) and who the
 * client is (`X-Forwarded-For`: the key the proxy counts it by, never what the browser wrote), which it
 * believes when its `trustProxy` names this proxy.
 *
 * Boundary: forwarding only. It never refuses a request (guards do) and knows no transport (the
 * `Upstream` does).
 */
import type { Logger } from '../log.js';
import type { Exchange } from './exchange.js';
import { EMPTY, errorOut, type ProxyIncoming, type ProxyOutgoing } from './messages.js';
import type { Redactor } from './redact.js';
import type { Upstream, UpstreamAnswer, UpstreamCall } from './upstream.js';

/** Request headers passed to the service; everything else a browser sends (its `X-API-KEY`, cookies, `Authorization`) is dropped. */
export const FORWARDED_REQUEST_HEADERS: readonly string[] = [
  'accept',
  'accept-language',
  'content-type',
  'idempotency-key',
  'last-event-id',
  'if-none-match',
  'user-agent',
  // A refund's claim token, on the keyless claim routes (never logged).
  'paylink-claim',
];

/** What the forwarder needs: where, with which key, how long, and how to clean answers. */
export interface ForwarderOptions {
  upstream: Upstream;
  /** Sent as `X-API-KEY` on areas `withKey`. */
  apiKey: string;
  /** How long to wait for the whole answer (an event stream's headers) before a 504. */
  timeoutMs: number;
  redactor: Redactor;
  /** Where an unreachable or slow service is reported (folded to a line per 10 s). */
  log?: Logger | undefined;
}

/** Forwards an exchange to `upstreamPath` (path and query below the upstream's URL). */
export type Forwarder = (exchange: Exchange, upstreamPath: string) => Promise<ProxyOutgoing>;

/** Builds the forwarder (see the module comment). */
export function createForwarder(options: ForwarderOptions): Forwarder {
  const { upstream, apiKey, timeoutMs, redactor, log } = options;
  const fail = (exchange: Exchange, timedOut: boolean): ProxyOutgoing => {
    const answer = failure(timedOut, exchange.incoming);
    if (answer.status !== 499)
      log?.throttled('warn', timedOut ? 'upstream_timeout' : 'upstream_unavailable', 'the Paylink service failed to answer', {
        requestId: exchange.requestId,
        status: answer.status,
      });
    return answer;
  };

  return async (exchange, path) => {
    const incoming = exchange.incoming;
    const method = incoming.method;
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = incoming.header(name);
      if (value !== null) headers[name] = value;
    }
    if (exchange.area.withKey) headers['x-api-key'] = apiKey;
    if (exchange.requestId) headers['x-request-id'] = exchange.requestId;
    const client = exchange.clientKey();
    if (client !== undefined && FORWARDABLE_CLIENT.test(client)) headers['x-forwarded-for'] = client;
    const stream = exchange.route?.stream === true;
    // Said explicitly, so the upstream sends a stream (and the Node upstream uses its stream pool) whatever the client asked.
    if (stream) headers.accept = 'text/event-stream';
    if (incoming.aborted) return fail(exchange, false);

    let call: UpstreamCall;
    try {
      call = upstream.send({ method, path, headers, body: method === 'GET' || method === 'HEAD' ? undefined : exchange.body, stream });
    } catch {
      return fail(exchange, false);
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
      return fail(exchange, timedOut);
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

/** A client key that can go upstream as an `X-Forwarded-For` entry: an address, or a plain id a `clientKey` function made. */
const FORWARDABLE_CLIENT = /^[A-Za-z0-9.:_-]{1,64}$/;

function failure(timedOut: boolean, incoming: ProxyIncoming): ProxyOutgoing {
  if (timedOut) return errorOut(504, 'upstream_timeout', 'The Paylink service did not answer in time');
  if (incoming.aborted) return errorOut(499, 'client_closed', 'The client went away');
  return errorOut(502, 'upstream_unavailable', 'The Paylink service could not be reached');
}
