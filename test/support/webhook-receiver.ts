/**
 * A merchant's webhook endpoint for tests: a real HTTP server on loopback that records every
 * delivery (headers and the raw body, byte for byte) and answers as the test says.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  body: string;
  /** `Date.now()` when it arrived. */
  at: number;
}

/** How to answer a delivery: a status, or a function that writes the response itself (or never does). */
export type Responder = (delivery: ReceivedDelivery, index: number, response: ServerResponse) => number | 'handled';

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** TCP connections accepted (a refused delivery must not even connect). */
  connections: number;
  respond: Responder;
  /** Resolves once `count` deliveries have arrived (fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => 200): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  const waiters = new Set<() => void>();
  const receiver: Receiver = {
    url: '',
    received,
    connections: 0,
    respond,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} deliveries, got ${received.length} in ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 50);
          waiters.add(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const delivery: ReceivedDelivery = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(delivery);
      for (const wake of waiters) wake();
      waiters.clear();
      const answer = receiver.respond(delivery, received.length - 1, response);
      if (answer !== 'handled') response.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
    });
  });
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
