/**
 * The connection to a network's nodes: one viem public client per node URL (HTTP(S) or WebSocket),
 * every call bounded (a timeout per attempt, a few retries with capped backoff for transient faults)
 * and every failure turned into an `EvmChainError`. viem's own retries are off: its backoff follows
 * a node's `Retry-After` without a cap, and the service must stay responsive while a node misbehaves.
 *
 * Several nodes (a comma-separated `*_RPC_URL`): a call goes to the first node that is neither
 * failing nor lagging, and fails over to the next on a fault (down, slow, erroring). `head()` asks
 * every node for its latest block at once and answers the highest: a node more than `LAG_BLOCKS`
 * behind it is lagging and asked last, and a call that reads a block range (`atLeast`) only goes to
 * a node known to have reached that block, so a lagging node never hides a transfer or makes one
 * look gone.
 *
 * Many calls of one method at once (a batch of payouts' estimates, broadcasts, receipts) go as
 * JSON-RPC batches (`batch`): one round trip instead of one per call. A node that refuses batches is
 * remembered and asked call by call from then on.
 *
 * A question whose answer must not come from whichever node answers first ("does any node have
 * this transaction?") goes to every node at once (`eachNode`), each answering for itself.
 *
 * `cacheTime: 0`: viem otherwise caches the block number for a polling interval, which makes
 * confirmation counts stale.
 */
import { createRequire } from 'node:module';
import { createPublicClient, http, HttpRequestError, RpcRequestError, webSocket, type PublicClient } from 'viem';
import { getHttpRpcClient, type HttpRpcClient } from 'viem/utils';
import { EvmChainError, RATE_LIMIT_CODES, TRANSIENT_CODES, toChainError } from './errors.js';

/**
 * Runs `run` on every item with at most `limit` in flight, started in the items' order, and
 * settles each on its own (one failure stops none of the others), in the items' order.
 */
async function settleEach<T, R>(items: readonly T[], run: (item: T) => Promise<R>, limit: number): Promise<Array<PromiseSettledResult<R>>> {
  const results: Array<PromiseSettledResult<R>> = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await run(items[index]!) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}

/** Limits of each call to the nodes. */
export interface RpcOptions {
  /** Per attempt, in ms (default 5000). */
  timeoutMs?: number | undefined;
  /** Further attempts after a transient fault, over all nodes (default 2). */
  retries?: number | undefined;
  /** First backoff, doubled per attempt and capped at 1 s (default 100 ms). */
  retryDelayMs?: number | undefined;
}

/** What one call may ask beyond the defaults. */
export interface CallOptions {
  /** Only nodes whose latest block is at least this are asked (their heads are refreshed once when none is known to be). */
  atLeast?: number | undefined;
  /** Overrides `RpcOptions.retries` for this call (0: one attempt per node, for a caller that handles refusals itself). */
  retries?: number | undefined;
}

/** Nodes connections whose calls fail only with `EvmChainError` (or a bug's own error). */
export interface EvmRpc {
  /** The preferred node's viem client; call through `call` so that faults are bounded and typed. */
  readonly client: PublicClient;
  /** How many node URLs there are. */
  readonly nodes: number;
  /** Runs `run(client)` on a node, failing over and retrying on transient faults; `method` names it in errors. */
  call<T>(method: string, run: (client: PublicClient) => Promise<T>, options?: CallOptions): Promise<T>;
  /**
   * Calls `method` once per entry of `params` (a batch of payouts' estimates, broadcasts or
   * receipts), as JSON-RPC batches of at most `BATCH_SIZE` calls in one HTTP request each: one
   * round trip instead of one per call. A node that does not take batches (and a WebSocket node) is
   * asked the calls one by one, a few at a time. Each answer settles on its own, in the order of
   * `params`: the node's result, or its error (a node's JSON-RPC error as viem's `RpcRequestError`,
   * for `toChainError` or the caller's own reading). A batch the node did not answer at all fails
   * over and is retried like `call`; then it throws. `options.atLeast` as for `call`.
   */
  batch(method: string, params: readonly unknown[][], options?: Pick<CallOptions, 'atLeast'>): Promise<Array<PromiseSettledResult<unknown>>>;
  /**
   * Runs `run` on every node at once, each with its own retries on transient faults and no failover:
   * one answer per node, in the order of the URLs. `run` gets the node's client and a `batch` that
   * asks that node alone (as `EvmRpc.batch` does). For what only all the nodes together can answer
   * (does any of them have this transaction?), where a lagging node must not speak for the others.
   */
  eachNode<T>(method: string, run: (client: PublicClient, batch: NodeBatch) => Promise<T>): Promise<Array<PromiseSettledResult<T>>>;
  /** The highest latest block among the nodes that answer; notes which nodes lag. */
  head(): Promise<number>;
  /** Closes WebSocket connections (no-op over HTTP). */
  close(): Promise<void>;
}

/** `EvmRpc.batch` on one node: each call's answer settled on its own, in the order of `params`. */
export type NodeBatch = (method: string, params: readonly unknown[][]) => Promise<Array<PromiseSettledResult<unknown>>>;

/**
 * Asks every node again (one batch each, `EvmRpc.eachNode`) the calls at `indexes` of a batch that
 * one node answered (`answers`, in the order of the batch; `paramsAt(i)`: the params of call i), and
 * puts a node's answer in `answers` (in place) wherever `better(current, offered)` says it is. A node
 * that does not answer changes nothing. With one node, there is nobody else to ask.
 */
export async function askOtherNodes(
  rpc: EvmRpc,
  method: string,
  indexes: readonly number[],
  paramsAt: (i: number) => unknown[],
  answers: Array<PromiseSettledResult<unknown>>,
  better: (current: PromiseSettledResult<unknown>, offered: PromiseSettledResult<unknown>) => boolean,
): Promise<void> {
  if (rpc.nodes < 2 || indexes.length === 0) return;
  const nodes = await rpc.eachNode(method, (_client, batch) => batch(method, indexes.map(paramsAt)));
  for (const node of nodes) {
    if (node.status === 'rejected') continue;
    for (const [j, offered] of node.value.entries()) {
      const i = indexes[j]!;
      if (better(answers[i]!, offered)) answers[i] = offered;
    }
  }
}

/** Most calls in one JSON-RPC batch (providers cap batches; 50 is below every cap known). */
export const BATCH_SIZE = 50;
/** Most calls in flight at once where a node is asked them one by one. */
const IN_FLIGHT = 16;

/** A node this many blocks behind the highest head is lagging: asked only when no other answers. */
export const LAG_BLOCKS = 3;
/** How long a node that failed is asked only after the others. */
const FAILED_FOR_MS = 5_000;
/** How long `head()` waits for slower nodes once one has answered. */
const HEAD_GRACE_MS = 250;

/**
 * Node 20 has no global WebSocket, and viem then takes whatever `ws` package its helper (isows)
 * resolves first, which in some dependency trees is an old major that viem cannot construct.
 * Before the first socket is opened, give the process the `ws` that viem itself depends on.
 * Node 22 and later have a native WebSocket and are left alone.
 */
function ensureWebSocket() {
  if (typeof (globalThis as { WebSocket?: unknown }).WebSocket !== 'undefined') return;
  const require = createRequire(import.meta.url);
  const fromViem = createRequire(require.resolve('viem/package.json'));
  const ws = fromViem('ws') as { WebSocket: unknown };
  (globalThis as { WebSocket?: unknown }).WebSocket = ws.WebSocket;
}

/** One node: its client (replaced after a socket fault), its last known head and its last failure. */
class Node {
  client: PublicClient;
  head = -1;
  failedAt = 0;
  readonly isSocket: boolean;
  /** Whether the node takes JSON-RPC batches: false once it refused one (then it is asked call by call). */
  batches: boolean;
  #batchClient: HttpRpcClient | undefined;

  constructor(
    readonly url: string,
    readonly timeout: number,
  ) {
    this.isSocket = /^wss?:/i.test(url);
    if (this.isSocket) ensureWebSocket();
    this.client = this.makeClient();
    this.batches = !this.isSocket;
  }

  /** The node's HTTP JSON-RPC client, for batches. */
  get batchClient(): HttpRpcClient {
    this.#batchClient ??= getHttpRpcClient(this.url, { timeout: this.timeout });
    return this.#batchClient;
  }

  // Over WebSocket, viem's own reconnection gives up for good when the node is still down at its
  // first retry; a socket that failed is closed here instead and the next call opens a new one.
  makeClient(): PublicClient {
    const transport = this.isSocket
      ? webSocket(this.url, { timeout: this.timeout, retryCount: 0, reconnect: false, keepAlive: { interval: 15_000 } })
      : http(this.url, { timeout: this.timeout, retryCount: 0 });
    return createPublicClient({ transport, cacheTime: 0, pollingInterval: 1_000 });
  }

  async reopen(stale: PublicClient): Promise<void> {
    if (!this.isSocket || this.client !== stale) return;
    this.client = this.makeClient();
    await closeSocket(stale);
  }
}

async function closeSocket(stale: PublicClient) {
  try {
    const socket = await (stale.transport as { getRpcClient?: () => Promise<{ close(): void }> }).getRpcClient?.();
    socket?.close();
  } catch {
    // Never connected: nothing to close.
  }
}

/** Opens connections to `urls` (one URL or several; http, https, ws or wss). No request is made until the first call. */
export function createEvmRpc(urls: string | readonly string[], options: RpcOptions = {}): EvmRpc {
  const list = typeof urls === 'string' ? [urls] : [...urls];
  if (list.length === 0) throw new RangeError('createEvmRpc needs at least one node URL');
  const timeout = options.timeoutMs ?? 5_000;
  const defaultRetries = options.retries ?? 2;
  const retryDelay = options.retryDelayMs ?? 100;
  const nodes = list.map((url) => new Node(url, timeout));
  let highest = -1;

  /** Nodes in the order to ask them: healthy and current first, then lagging, then recently failed. */
  const ordered = (atLeast: number | undefined): Node[] => {
    const now = Date.now();
    const rank = (node: Node) => (now - node.failedAt < FAILED_FOR_MS ? 2 : node.head >= 0 && node.head < highest - LAG_BLOCKS ? 1 : 0);
    const eligible = atLeast === undefined ? nodes : nodes.filter((node) => node.head >= atLeast);
    return eligible
      .map((node, i) => ({ node, i, r: rank(node) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map((x) => x.node);
  };

  const headOf = async (node: Node): Promise<number> => {
    const used = node.client;
    try {
      const head = Number(await used.getBlockNumber({ cacheTime: 0 }));
      node.head = head;
      if (head > highest) highest = head;
      return head;
    } catch (raw) {
      node.failedAt = Date.now();
      const error = toChainError(raw, 'eth_blockNumber');
      if (error instanceof EvmChainError && (error.code === 'unreachable' || error.code === 'timeout')) await node.reopen(used);
      throw error;
    }
  };

  /** Runs `run` on the first of `candidates` that answers, retrying on transient faults (see `EvmRpc.call`). */
  const tryNodes = async <T>(method: string, candidates: readonly Node[], run: (node: Node) => Promise<T>, retries: number): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      let last: unknown;
      for (const node of candidates) {
        const used = node.client;
        try {
          return await run(node);
        } catch (raw) {
          const error = toChainError(raw, method);
          if (!(error instanceof EvmChainError) || !TRANSIENT_CODES.has(error.code)) throw error;
          // eth_getLogs refusals say the range is too wide, not that the node is failing (./scan.ts narrows it).
          if (method !== 'eth_getLogs') node.failedAt = Date.now();
          if (error.code === 'unreachable' || error.code === 'timeout') await node.reopen(used);
          last = error;
        }
      }
      if (attempt >= retries) throw last;
      await new Promise((resolve) => setTimeout(resolve, Math.min(retryDelay * 2 ** attempt, 1_000)));
    }
  };

  /** Runs `run` on a node, failing over and retrying on transient faults (see `EvmRpc.call`). */
  const onNode = async <T>(method: string, run: (node: Node) => Promise<T>, callOptions: CallOptions = {}): Promise<T> => {
    let candidates = ordered(callOptions.atLeast);
    if (candidates.length === 0) {
      await rpc.head().catch(() => undefined);
      candidates = ordered(callOptions.atLeast);
      if (candidates.length === 0) {
        throw new EvmChainError('lagging', `${method}: no node has reached block ${callOptions.atLeast} yet (the nodes lag)`, { method });
      }
    }
    return tryNodes(method, candidates, run, callOptions.retries ?? defaultRetries);
  };

  /** The calls of one batch on `node`: one HTTP request where it takes batches, else one by one. */
  const batchOn = async (node: Node, method: string, params: readonly unknown[][]): Promise<Array<PromiseSettledResult<unknown>>> => {
    if (node.batches && params.length > 1) {
      const body = params.map((p, id) => ({ id, method, params: p }));
      let answers: Array<{ id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } }> | undefined;
      try {
        answers = (await node.batchClient.request({ body })) as typeof answers;
      } catch (error) {
        // Refused as a request (an HTTP 4xx but 429, or a JSON-RPC error but a rate limit), or answered
        // with fewer answers than calls: this node takes no batches. Anything else is an outage.
        const status = error instanceof HttpRequestError || error instanceof RpcRequestError ? error.status : undefined;
        const refused =
          error instanceof RpcRequestError
            ? !RATE_LIMIT_CODES.has(error.code) && (status === undefined || (status < 500 && status !== 429 && status !== 408))
            : (error instanceof HttpRequestError && error.cause instanceof Error && /^Expected \d+ responses/.test(error.cause.message)) ||
              (status !== undefined && status < 500 && status !== 429 && status !== 408);
        if (!refused) throw error;
      }
      // One error for the whole batch (viem hands it to every call, without an id): a rate limit is an
      // outage for now; any other says "no batches here".
      const whole = answers?.every((answer) => answer?.id === undefined || answer?.id === null) ? answers[0]?.error : undefined;
      if (whole && RATE_LIMIT_CODES.has(whole.code)) throw new RpcRequestError({ body, error: whole, url: '<rpc-url>' });
      if (answers && !whole) {
        const byId = new Map(answers.map((answer) => [answer?.id, answer]));
        return body.map(({ id }): PromiseSettledResult<unknown> => {
          const answer = byId.get(id);
          if (answer?.error) return { status: 'rejected', reason: new RpcRequestError({ body: body[id]!, error: answer.error, url: '<rpc-url>' }) };
          if (!answer || !('result' in answer))
            return {
              status: 'rejected',
              reason: new EvmChainError('bad_response', `${method}: the node's batch answer has no answer for call ${id}`, { method }),
            };
          return { status: 'fulfilled', value: answer.result };
        });
      }
      node.batches = false;
    }
    return settleEach(params, (p) => node.client.request({ method, params: p } as never), IN_FLIGHT);
  };

  /** `params` on `node` alone, in batches of at most `BATCH_SIZE`. */
  const batchOnNode = async (node: Node, method: string, params: readonly unknown[][]): Promise<Array<PromiseSettledResult<unknown>>> => {
    const answers: Array<PromiseSettledResult<unknown>> = [];
    for (let start = 0; start < params.length; start += BATCH_SIZE) answers.push(...(await batchOn(node, method, params.slice(start, start + BATCH_SIZE))));
    return answers;
  };

  const rpc: EvmRpc = {
    get client() {
      return ordered(undefined)[0]!.client;
    },
    nodes: nodes.length,
    call: (method, run, callOptions) => onNode(method, (node) => run(node.client), callOptions),
    async batch(method, params, options) {
      const answers: Array<PromiseSettledResult<unknown>> = [];
      for (let start = 0; start < params.length; start += BATCH_SIZE) {
        answers.push(...(await onNode(method, (node) => batchOn(node, method, params.slice(start, start + BATCH_SIZE)), options)));
      }
      return answers;
    },
    eachNode(method, run) {
      return Promise.allSettled(nodes.map((node) => tryNodes(method, [node], (n) => run(n.client, (m, params) => batchOnNode(n, m, params)), defaultRetries)));
    },
    async head() {
      if (nodes.length === 1) return rpc.call('eth_blockNumber', () => headOf(nodes[0]!));
      // Every node at once; the answer waits a moment for the slower ones, never for a hung one.
      return new Promise<number>((resolve, reject) => {
        let pending = nodes.length;
        let best = -1;
        let timer: NodeJS.Timeout | undefined;
        let lastError: unknown;
        const settle = () => {
          if (timer) clearTimeout(timer);
          if (best >= 0) resolve(best);
          else reject(lastError);
        };
        for (const node of nodes) {
          headOf(node).then(
            (head) => {
              best = Math.max(best, head);
              timer ??= setTimeout(settle, HEAD_GRACE_MS);
              if (--pending === 0) settle();
            },
            (error: unknown) => {
              lastError = error;
              if (--pending === 0) settle();
            },
          );
        }
      });
    },
    async close() {
      await Promise.all(nodes.filter((node) => node.isSocket).map((node) => closeSocket(node.client)));
    },
  };
  return rpc;
}
