/**
 * A JSON-RPC proxy in front of a test node, to stage what a real node does badly: go away (refused
 * connections), answer errors (HTTP 500), hang, or hold one method (e.g. `eth_sendRawTransaction`,
 * to stop a service between signing a payout and broadcasting it); refuse an `eth_getLogs` wider
 * than a cap the way a provider words it (test/fixtures/getlogs-refusals.json); lag behind the
 * chain (its view frozen at a block); fail one method only (HTTP 500, so a client fails over for that
 * read alone); or not know given transactions (a node whose view has the nonce a transaction used but
 * not yet the transaction); or leave given transactions' logs out of `eth_getLogs` (a node whose log
 * index lacks them). It logs every raw transaction it forwards, so a test can tell how many
 * distinct transactions reached the node.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { keccak256, type Hex } from 'viem';

export type ProxyMode = 'pass' | 'down' | 'error' | 'hang';

/** How a provider refuses a query it finds too wide: a JSON-RPC error, a bare HTTP status, or no answer at all. */
export type LogRefusal = { code: number; message: string } | { http: number } | { timeout: true };

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
  /**
   * Requests that met a fault, by fault: answered HTTP 500 in `error` mode, left unanswered in `hang`
   * mode, or not answered because the node behind was gone. What a test waits on to know the service
   * has run into the fault it staged.
   */
  readonly faults: { error: number; hang: number; unreachable: number };
  /** From now on, answers an `eth_getLogs` spanning more than `maxRange` blocks with `refusal` (null: forwards all). */
  refuseLogs(refusal: LogRefusal | null, maxRange?: number): void;
  /** How many `eth_getLogs` were refused, and answered. */
  readonly logs: { refused: number; answered: number };
  /**
   * From now on, answers as a node stuck at block `head` would (null: as the node does): its latest
   * block is `head`, and it knows no block, log, receipt or transaction above it.
   */
  lag(head: number | null): void;
  /**
   * From now on, answers "not found" (null) to `eth_getTransactionReceipt` and `eth_getTransactionByHash`
   * of these hashes, alone or in a batch (null: knows every transaction again); everything else, the
   * sender's nonce included, as the node does.
   */
  hideTransactions(hashes: Iterable<string> | null): void;
  /**
   * From now on, leaves the logs of these transactions out of every `eth_getLogs` answer, as a node
   * whose log index lacks them would (null: answers them all again); their receipts and blocks, and
   * everything else, as the node does.
   */
  hideLogs(hashes: Iterable<string> | null): void;
  /**
   * From now on, answers the receipts of these hashes as a node on a fork that lost would: in a block
   * of the same height with another hash, reverted, no logs (null: as the node does).
   */
  forkReceipts(hashes: Iterable<string> | null): void;
  /** From now on, answers HTTP 500 to any request (alone or in a batch) that calls `method` (null: none). */
  failMethod(method: string | null): void;
  /**
   * From now on, answers each call (alone or in a batch) that `answer` makes up an answer for with it,
   * the rest as it would otherwise (null: none); an `{ http }` answer is the whole request's HTTP status.
   */
  override(answer: ((request: { method: string; params: unknown[] }) => ProxyAnswer | undefined) | null): void;
  close(): Promise<void>;
}

interface JsonRpcRequest {
  id?: unknown;
  method?: string;
  params?: unknown[];
}

/** A JSON-RPC answer the proxy makes up instead of forwarding: a result, or an error. */
type Answer = { result: unknown } | { error: { code: number; message: string } };

/** What a test makes the proxy answer to one call: a result, a JSON-RPC error, or an HTTP status for the whole request. */
export type ProxyAnswer = Answer | { http: number };

/** Starts a proxy on a free loopback port that forwards to `target` (an http JSON-RPC URL). */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  let mode: ProxyMode = 'pass';
  const holding = new Set<string>();
  const heldRequests = new Map<string, ServerResponse[]>();
  const forwardedTransactions: string[] = [];
  const faults = { error: 0, hang: 0, unreachable: 0 };
  const sockets = new Set<Socket>();
  let logRule: { refusal: LogRefusal; maxRange: number } | null = null;
  const logs = { refused: 0, answered: 0 };
  let frozenAt: number | null = null;
  let hidden = new Set<string>();
  let hiddenLogs = new Set<string>();
  let forked = new Set<string>();
  let failing: string | null = null;
  let overriding: ((request: { method: string; params: unknown[] }) => ProxyAnswer | undefined) | null = null;
  let server: Server;
  let port = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (mode === 'hang') {
      faults.hang++;
      return; // never answered; the socket is destroyed on close
    }
    if (mode === 'error') {
      faults.error++;
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
    if (failing !== null && requests.some((r) => r.method === failing)) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('node failing');
      return;
    }
    const heldMethod = requests.map((r) => r.method).find((m) => m !== undefined && holding.has(m));
    if (heldMethod) {
      const list = heldRequests.get(heldMethod) ?? [];
      list.push(res);
      heldRequests.set(heldMethod, list);
      return;
    }
    for (const request of requests) {
      if (request.method === 'eth_sendRawTransaction' && typeof request.params?.[0] === 'string')
        forwardedTransactions.push(keccak256(request.params[0] as Hex));
    }
    if (!Array.isArray(parsed) && parsed.method === 'eth_getLogs') {
      const filter = (parsed.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string };
      const span = Number(filter.toBlock) - Number(filter.fromBlock) + 1;
      if (logRule && !(span <= logRule.maxRange)) {
        logs.refused++;
        const refusal = logRule.refusal;
        if ('timeout' in refusal) return; // never answered
        if ('http' in refusal) {
          res.writeHead(refusal.http, { 'content-type': 'text/plain' }).end('Request Entity Too Large');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: parsed.id, error: refusal }));
        return;
      }
      logs.answered++;
    }
    const made = overriding ? requests.map((request) => overriding!({ method: request.method ?? '', params: request.params ?? [] })) : [];
    const status = made.find((answer): answer is { http: number } => answer !== undefined && 'http' in answer);
    if (status) {
      res.writeHead(status.http, { 'content-type': 'text/plain' }).end('refused');
      return;
    }
    if (frozenAt !== null || hidden.size > 0 || hiddenLogs.size > 0 || forked.size > 0 || overriding) {
      // Each call answered as this node sees it (a batch call by call), the rest forwarded.
      try {
        const answers = await Promise.all(
          requests.map(async (request, i) => ({
            jsonrpc: '2.0',
            id: request.id,
            ...((made[i] as Answer | undefined) ?? (await viewOf(request)) ?? (await forwardOne(request))),
          })),
        );
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
      } catch {
        res.socket?.destroy();
      }
      return;
    }
    try {
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(await answer.text());
    } catch {
      faults.unreachable++;
      res.socket?.destroy();
    }
  };

  /** What this node answers to `request` where its view differs from the node's (lagging, or not knowing a transaction), else undefined. */
  const viewOf = async (request: JsonRpcRequest): Promise<Answer | undefined> => {
    const asked = request.params?.[0];
    if (
      (request.method === 'eth_getTransactionReceipt' || request.method === 'eth_getTransactionByHash') &&
      typeof asked === 'string' &&
      hidden.has(asked.toLowerCase())
    ) {
      return { result: null };
    }
    if (request.method === 'eth_getTransactionReceipt' && typeof asked === 'string' && forked.has(asked.toLowerCase())) {
      const receipt = (await ask(request)) as Record<string, unknown> | null;
      return { result: receipt && { ...receipt, blockHash: `0x${'ee'.repeat(32)}`, status: '0x0', logs: [] } };
    }
    if (request.method === 'eth_getLogs' && hiddenLogs.size > 0) {
      const answer = frozenAt === null ? await forwardOne(request) : ((await lagging(request, frozenAt)) ?? (await forwardOne(request)));
      if (!('result' in answer) || !Array.isArray(answer.result)) return answer;
      return { result: answer.result.filter((log: { transactionHash?: string }) => !hiddenLogs.has(String(log.transactionHash).toLowerCase())) };
    }
    if (frozenAt === null) return undefined;
    const result = await lagging(request, frozenAt);
    return result === undefined ? undefined : result;
  };

  /** The node's whole answer (result or error) to one call. */
  const forwardOne = async (request: JsonRpcRequest): Promise<Answer> => {
    const answer = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: request.method, params: request.params ?? [] }),
    });
    const parsed = (await answer.json()) as { result?: unknown; error?: { code: number; message: string } };
    return parsed.error ? { error: parsed.error } : { result: parsed.result ?? null };
  };

  /** The node's answer to `request`. */
  const ask = async (request: JsonRpcRequest): Promise<unknown> => {
    const answer = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...request }),
    });
    return ((await answer.json()) as { result?: unknown }).result;
  };
  const hex = (n: number) => `0x${n.toString(16)}`;
  const above = (value: unknown, head: number) =>
    value !== null &&
    typeof value === 'object' &&
    Number((value as { blockNumber?: string; number?: string }).blockNumber ?? (value as { number?: string }).number) > head;

  /** What a node stuck at `head` answers, or undefined to forward the request as it is. */
  const lagging = async (request: JsonRpcRequest, head: number): Promise<Answer | undefined> => {
    const params = request.params ?? [];
    const notFound: Answer = { error: { code: -32001, message: 'Resource not found' } };
    switch (request.method) {
      case 'eth_blockNumber':
        return { result: hex(head) };
      case 'eth_getBlockByNumber': {
        const tag = params[0];
        const number =
          tag === 'latest' || tag === 'pending' ? head : tag === 'safe' ? head - 32 : tag === 'finalized' ? head - 64 : tag === 'earliest' ? 0 : Number(tag);
        if (number > head) return { result: null };
        return { result: await ask({ method: 'eth_getBlockByNumber', params: [hex(Math.max(0, number)), params[1] ?? false] }) };
      }
      case 'eth_getBlockByHash':
      case 'eth_getTransactionReceipt':
      case 'eth_getTransactionByHash': {
        const result = await ask(request);
        return { result: above(result, head) ? null : result };
      }
      case 'eth_getTransactionCount':
      case 'eth_getBalance': {
        // Account state as of the block asked (a tag means this node's own head), never above `head`.
        const block = params[1];
        if (block !== null && typeof block === 'object' && 'blockHash' in block) {
          const known = await ask({ method: 'eth_getBlockByHash', params: [(block as { blockHash: string }).blockHash, false] });
          if (!known || above(known, head)) return notFound;
          return undefined;
        }
        const number = typeof block === 'string' && block.startsWith('0x') ? Number(block) : head;
        if (number > head) return { error: { code: -32602, message: `BlockOutOfRangeError: block height is ${head} but requested was ${number}` } };
        return { result: await ask({ method: request.method, params: [params[0], hex(number)] }) };
      }
      case 'eth_getLogs': {
        const filter = { ...(params[0] as { fromBlock: string; toBlock: string }) };
        if (Number(filter.fromBlock) > head) return { result: [] };
        if (Number(filter.toBlock) > head) filter.toBlock = hex(head);
        return { result: await ask({ method: 'eth_getLogs', params: [filter] }) };
      }
      default:
        return undefined;
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
    faults,
    refuseLogs(refusal, maxRange = 0) {
      logRule = refusal ? { refusal, maxRange } : null;
      logs.refused = 0;
      logs.answered = 0;
    },
    logs,
    lag(head) {
      frozenAt = head;
    },
    hideTransactions(hashes) {
      hidden = new Set([...(hashes ?? [])].map((hash) => hash.toLowerCase()));
    },
    hideLogs(hashes) {
      hiddenLogs = new Set([...(hashes ?? [])].map((hash) => hash.toLowerCase()));
    },
    forkReceipts(hashes) {
      forked = new Set([...(hashes ?? [])].map((hash) => hash.toLowerCase()));
    },
    failMethod(method) {
      failing = method;
    },
    override(answer) {
      overriding = answer;
    },
    async close() {
      if (mode !== 'down') await stop();
    },
  };
}
