/**
 * Clients for the attack tests (test/server/attack/*.test.ts, test/hard/): raw sockets that send as
 * little as they like, and event streams, each from a chosen loopback address (the whole 127/8 range is
 * the loopback on Linux), so an attacker (127.0.0.2…) and a customer (127.0.0.1) are different clients.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import net from 'node:net';

/** A raw TCP connection and what came back on it. */
export interface RawConnection {
  socket: net.Socket;
  /** Resolves when the connection closes: everything received, and how long it stayed open. */
  closed: Promise<{ data: string; ms: number; error?: string }>;
}

/** Opens a TCP connection to `url`'s port from `localAddress`, writing `text` once connected. */
export function rawConnection(url: string, localAddress: string, text?: string): RawConnection {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  const socket = net.connect({ host: hostname, port: Number(port), localAddress });
  let data = '';
  let error: string | undefined;
  socket.setEncoding('utf8');
  socket.on('connect', () => {
    if (text !== undefined) socket.write(text);
  });
  socket.on('data', (chunk: string) => (data += chunk));
  socket.on('error', (cause: Error & { code?: string }) => (error = cause.code ?? cause.message));
  const closed = new Promise<{ data: string; ms: number; error?: string }>((resolve) =>
    socket.on('close', () => resolve({ data, ms: Date.now() - started, ...(error ? { error } : {}) })),
  );
  return { socket, closed };
}

/** The status line and JSON body of a raw HTTP answer (the first one on the connection). */
export function parseRawAnswer(data: string): { status: number; headers: Record<string, string>; body: any } {
  const [head = '', ...rest] = data.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  let body: unknown = rest.join('\r\n\r\n');
  try {
    body = JSON.parse(body as string);
  } catch {
    // Not JSON: the test sees the text.
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body };
}

/** An open event stream (or the refusal that answered it instead). */
export interface EventStreamClient {
  status: number;
  headers: IncomingMessage['headers'];
  /** The body of a refusal (JSON), when `status` is not 200. */
  body: any;
  /** `status` events received and not yet taken by `next()`, parsed. */
  events: any[];
  /** `status` events received in all. */
  readonly received: number;
  /** Heartbeat comments received so far. */
  heartbeats: number;
  /** Resolves with the next `status` event (rejects after `timeoutMs`). */
  next(timeoutMs?: number): Promise<any>;
  /** True once the server ended the stream. */
  readonly ended: boolean;
  close(): void;
}

/** Opens `path` as an event stream from `localAddress`. */
export function openEventStreamFrom(
  baseUrl: string,
  path: string,
  localAddress = '127.0.0.1',
  headers: Record<string, string> = {},
): Promise<EventStreamClient> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL(path, baseUrl), { headers: { accept: 'text/event-stream', ...headers }, localAddress, agent: false }, (response) => {
      const events: any[] = [];
      const waiting: Array<(event: any) => void> = [];
      let buffer = '';
      let ended = false;
      let heartbeats = 0;
      let received = 0;
      const client: EventStreamClient = {
        status: response.statusCode ?? 0,
        headers: response.headers,
        body: undefined,
        events,
        get heartbeats() {
          return heartbeats;
        },
        get received() {
          return received;
        },
        next(timeoutMs = 5000) {
          if (events.length > 0) return Promise.resolve(events.shift());
          return new Promise((resolveNext, rejectNext) => {
            const timer = setTimeout(() => rejectNext(new Error(`no event within ${timeoutMs} ms`)), timeoutMs);
            waiting.push((event) => {
              clearTimeout(timer);
              resolveNext(event);
            });
          });
        },
        get ended() {
          return ended;
        },
        close: () => request.destroy(),
      } as EventStreamClient;
      response.setEncoding('utf8');
      if (client.status !== 200) {
        let text = '';
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          try {
            client.body = JSON.parse(text);
          } catch {
            client.body = text;
          }
          resolve(client);
        });
        return;
      }
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let at: number;
        while ((at = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          if (block.startsWith(':')) {
            heartbeats++;
            continue;
          }
          const data = block
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trim())
            .join('\n');
          if (!data) continue;
          const event = JSON.parse(data);
          received++;
          const waiter = waiting.shift();
          if (waiter) waiter(event);
          else events.push(event);
        }
      });
      response.on('end', () => (ended = true));
      response.on('error', () => (ended = true));
      resolve(client);
    });
    request.on('error', reject);
    request.end();
  });
}

export { sleep, until } from './wait.js';
