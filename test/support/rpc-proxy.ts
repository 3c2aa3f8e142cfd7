/**
 * A JSON-RPC proxy in front of a test node, to stage what a real node does badly: go away (refused
 * connections), answer errors (HTTP 500), hang, or hold one method (e.g. `eth_sendRawTransaction`,
 * to stop a service between signing a payout and broadcasting it). It logs every raw transaction it
 * forwards, so a test can tell how many distinct transactions reached the node.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { keccak256, type Hex } from 'viem';

export type ProxyMode = 'pass' | 'down' | 'error' | 'hang';

export interface RpcProxy {
  url: string;
  port: number;
  /** How it answers from now on. `down` closes the listening socket (connections are refused). */
  setMode(mode: ProxyMode): Promise<void>;
  /** Methods whose requests are held (never forwarded, never answered) until `release`. */
  hold(method: string): void;
  /** Stops holding `method`; held requests are dropped (their sockets destroyed), never forwarded. */
  release(method: string): void;
  /** How many requests of `method` are held now. */
  held(method: string): number;
  /** Hashes of the raw transactions forwarded to the node, in order (repeats included). */
  readonly forwardedTransactions: string[];
  close(): Promise<void>;
}

interface JsonRpcRequest {
  method?: string;
  params?: unknown[];
}

/** Starts a proxy on a free loopback port that forwards to `target` (an http JSON-RPC URL). */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  let mode: ProxyMode = 'pass';
  const holding = new Set<string>();
  const heldRequests = new Map<string, ServerResponse[]>();
  const forwardedTransactions: string[] = [];
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (mode === 'hang') return; // never answered; the socket is destroyed on close
    if (mode === 'error') {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('node failing');
      return;
    }
    let parsed: JsonRpcRequest | JsonRpcRequest[] = {};
    try {
      parsed = JSON.parse(body);
    } catch {
      // Forwarded as it is: the node answers.
    }
    const requests = Array.isArray(parsed) ? parsed : [parsed];
    const heldMethod = requests.map((r) => r.method).find((m) => m !== undefined && holding.has(m));
    if (heldMethod) {
      const list = heldRequests.get(heldMethod) ?? [];
      list.push(res);
      heldRequests.set(heldMethod, list);
      return;
    }
    for (const request of requests) {
      if (request.method === 'eth_sendRawTransaction' && typeof request.params?.[0] === 'string') forwardedTransactions.push(keccak256(request.params[0] as Hex));
    }
    try {
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(await answer.text());
    } catch {
      res.socket?.destroy();
    }
  };

  const listen = (onPort: number) =>
    new Promise<void>((resolve, reject) => {
      server = createServer((req, res) => void handle(req, res));
      server.on('connection', (socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      server.once('error', reject);
      server.listen(onPort, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });

  await listen(0);
  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    async setMode(next) {
      if (next === mode) return;
      if (mode === 'down') await listen(port);
      if (next === 'down') await stop();
      else if (mode === 'hang') for (const socket of sockets) socket.destroy();
      mode = next;
    },
    hold: (method) => void holding.add(method),
    release(method) {
      holding.delete(method);
      for (const res of heldRequests.get(method) ?? []) res.socket?.destroy();
      heldRequests.delete(method);
    },
    held: (method) => heldRequests.get(method)?.length ?? 0,
    forwardedTransactions,
    async close() {
      if (mode !== 'down') await stop();
    },
  };
}
