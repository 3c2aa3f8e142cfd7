/**
 * The Node HTTP server of the service, the proxy command and the demo, with the limits that act before
 * there is a request:
 *
 * - **Slow headers and bodies**: `headersTimeout` and `requestTimeout` (the whole request, body
 *   included), enforced every `connectionsCheckingInterval` (Node's own 30 s would let a 10 s limit
 *   become 40). Node answers 408 and closes. Only the request is timed: an event stream's answer
 *   (a GET with no body, complete at once) is not.
 * - **Connections per client address and in total**: a connection past a cap is answered at once with a
 *   503 in the one error shape (`too_many_connections` or `server_busy`, with `Retry-After`) and closed,
 *   instead of a silent reset or a socket that waits; nobody else's connection is touched. A client is
 *   the socket's peer; a peer `trustProxy` names as a proxy carries many clients, so its connections are
 *   not capped per address, and its requests in flight are capped per forwarded client instead.
 * - **Malformed requests** (bad request line, headers too large, timeouts) get the one error shape too,
 *   not Node's bare status line.
 *
 * Refusals are logged, folded to one line per code every 10 s (an attack must not flood the log).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from '../../core/errors.js';
import { defaultLogger, type Logger } from '../log.js';
import { createClientAddressResolver, normalizeAddress, type ClientAddressResolver } from './client-address.js';
import type { ConnectionLimits } from './options.js';

/** What a refused connection is told to wait, in seconds. */
const RETRY_AFTER_SECONDS = 5;
/** How long a refused connection may linger to read its 503 before it is destroyed. */
const REFUSED_LINGER_MS = 1_000;
/** Refused connections lingering at once past which new ones are destroyed without an answer (a flood). */
const MAX_LINGERING = 1_024;
/** File descriptors kept for the database, files and outgoing sockets when the total cap is derived from the file limit. */
const RESERVED_FILES = 256;

/**
 * The accept queue to ask for when listening (the kernel caps it at `net.core.somaxconn`). Node's 511
 * overflows under a burst of connections even when every one is refused at once, and a customer's SYN
 * that arrives then is dropped and retried after a second: the flood would delay everyone.
 */
export const LISTEN_BACKLOG = 4096;

const CLIENT = Symbol('paylink.clientAddress');
/** `clientError` codes that mean the client left, not that it sent something wrong. */
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'HPE_INVALID_EOF_STATE']);

/** A Node server with connection limits, and what it counts. */
export interface LimitedServer {
  server: Server;
  /** Resolves a request's client (for the app's per-client limits): see `clientAddressOf`. */
  clientAddress: ClientAddressResolver;
  /** Connections open now (refused ones excluded). */
  readonly openConnections: number;
  /** The total cap in effect (the option, lowered to the file limit), or `false`. */
  readonly maxConnectionsTotal: number | false;
}

/**
 * The client of a Node request under `resolver` (peer, or the trusted `X-Forwarded-For` entry), resolved
 * once per request. Undefined when the socket has no address (it closed).
 */
export function clientAddressOf(req: IncomingMessage, resolver: ClientAddressResolver): string | undefined {
  const cached = (req as IncomingMessage & { [CLIENT]?: string | null })[CLIENT];
  if (cached !== undefined) return cached ?? undefined;
  const forwarded = resolver.trusting ? req.headers['x-forwarded-for'] : undefined;
  const client = resolver(req.socket.remoteAddress, Array.isArray(forwarded) ? forwarded.join(',') : forwarded);
  (req as IncomingMessage & { [CLIENT]?: string | null })[CLIENT] = client ?? null;
  return client;
}

/** The soft limit on open files of this process (Linux), or `Infinity` where it can't be read. */
export function openFileLimit(): number {
  try {
    const match = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return match && match[1] !== 'unlimited' ? Number(match[1]) : Infinity;
  } catch {
    return Infinity;
  }
}

/** A complete HTTP/1.1 answer in the one error shape, written straight to a socket, closing it. */
function rawErrorResponse(status: number, reason: string, code: string, message: string, retryAfter?: number): string {
  const body = JSON.stringify(errorBody(status, code, message));
  return (
    `HTTP/1.1 ${status} ${reason}\r\n` +
    'content-type: application/json; charset=utf-8\r\n' +
    'cache-control: no-store\r\n' +
    (retryAfter === undefined ? '' : `retry-after: ${retryAfter}\r\n`) +
    'connection: close\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** Creates a server that runs `listener` under `limits` (see the module comment). Listen on it as usual. */
export function createLimitedServer(listener: RequestListener, limits: ConnectionLimits, log: Logger = defaultLogger): LimitedServer {
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.bodyTimeoutMs,
    connectionsCheckingInterval: Math.max(1, limits.connectionsCheckIntervalMs),
  });
  const resolver = createClientAddressResolver(limits.trustProxy);
  const perClientCap = limits.maxConnectionsPerClient;
  const fileLimit = openFileLimit();
  const totalCap = limits.maxConnectionsTotal === false ? false : Math.max(1, Math.min(limits.maxConnectionsTotal, fileLimit - RESERVED_FILES));
  const byPeer = new Map<string, number>();
  const inFlightByClient = new Map<string, number>();
  const refused = new WeakSet<Socket>();
  let open = 0;
  let lingering = 0;

  const release = (map: Map<string, number>, key: string) => {
    const left = (map.get(key) ?? 1) - 1;
    if (left > 0) map.set(key, left);
    else map.delete(key);
  };

  const refuse = (socket: Socket, code: string, message: string, peer: string) => {
    log.throttled('warn', code, 'connections refused', { client: peer, open });
    if (lingering >= MAX_LINGERING) {
      socket.destroy();
      return;
    }
    refused.add(socket);
    lingering++;
    const timer = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      lingering--;
    });
    socket.on('error', () => {});
    socket.end(rawErrorResponse(503, 'Service Unavailable', code, message, RETRY_AFTER_SECONDS));
  };

  // Runs after Node's own connection listener (which attached the HTTP parser): a refused socket is
  // answered and closed, and any request it still manages to send is ignored below.
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress === undefined ? '' : normalizeAddress(socket.remoteAddress);
    if (totalCap !== false && open >= totalCap) {
      return refuse(socket, 'server_busy', `The server holds all the connections it can; retry in ${RETRY_AFTER_SECONDS} s`, peer);
    }
    const counted = perClientCap !== false && !resolver.trustsPeer(peer);
    if (counted && (byPeer.get(peer) ?? 0) >= perClientCap) {
      return refuse(socket, 'too_many_connections', `Too many open connections from your address; retry in ${RETRY_AFTER_SECONDS} s`, peer);
    }
    open++;
    if (counted) byPeer.set(peer, (byPeer.get(peer) ?? 0) + 1);
    socket.once('close', () => {
      open--;
      if (counted) release(byPeer, peer);
    });
  });

  server.on('clientError', (error: Error & { code?: string }, socket: Socket) => {
    const inProgress = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    // The client went away (mid-request, or it reset): nobody to answer; the app logs a broken-off body.
    if (refused.has(socket) || !socket.writable || inProgress?.headersSent || CLIENT_GONE.has(error.code ?? '')) {
      socket.destroy();
      return;
    }
    let answer: [number, string, string, string];
    switch (error.code) {
      case 'ERR_HTTP_REQUEST_TIMEOUT':
        answer = [408, 'Request Timeout', 'request_timeout', 'The request took too long to arrive'];
        break;
      case 'HPE_HEADER_OVERFLOW':
        answer = [431, 'Request Header Fields Too Large', 'headers_too_large', 'The request headers are too large'];
        break;
      default:
        answer = [400, 'Bad Request', 'bad_request', 'The request is not valid HTTP'];
    }
    log.throttled('info', answer[2], 'malformed or slow requests closed', { status: answer[0], errorCode: error.code });
    socket.end(rawErrorResponse(...answer));
  });

  const trusting = perClientCap !== false && resolver.trusting;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (refused.has(req.socket)) return; // already answered 503 on the raw socket; it closes by itself
    if (trusting && resolver.trustsPeer(req.socket.remoteAddress)) {
      // A proxy's connection: cap the forwarded client's requests in flight instead of its connections.
      const client = clientAddressOf(req, resolver);
      if (client !== undefined) {
        if ((inFlightByClient.get(client) ?? 0) >= perClientCap) {
          log.throttled('warn', 'too_many_connections', 'requests refused', { client });
          res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'retry-after': String(RETRY_AFTER_SECONDS) });
          res.end(JSON.stringify(errorBody(503, 'too_many_connections', `Too many requests in progress from your address; retry in ${RETRY_AFTER_SECONDS} s`)));
          return;
        }
        inFlightByClient.set(client, (inFlightByClient.get(client) ?? 0) + 1);
        res.once('close', () => release(inFlightByClient, client));
      }
    }
    listener(req, res);
  });

  return {
    server,
    clientAddress: resolver,
    get openConnections() {
      return open;
    },
    maxConnectionsTotal: totalCap,
  };
}
