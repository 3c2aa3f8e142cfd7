/**
 * The connection to an EVM node: a viem public client over HTTP(S) or WebSocket, with every call
 * bounded (a timeout per attempt, a few retries with capped backoff for transient faults) and every
 * failure turned into an `EvmChainError`. viem's own retries are off: its backoff follows a node's
 * `Retry-After` without a cap, and the service must stay responsive while a node misbehaves.
 *
 * `cacheTime: 0`: viem otherwise caches the block number for a polling interval, which makes
 * confirmation counts stale.
 */
import { createRequire } from 'node:module';
import { createPublicClient, http, webSocket, type PublicClient } from 'viem';
import { EvmChainError, TRANSIENT_CODES, toChainError } from './errors.js';

/** Limits of each call to the node. */
export interface RpcOptions {
  /** Per attempt, in ms (default 5000). */
  timeoutMs?: number | undefined;
  /** Further attempts after a transient fault (default 2). */
  retries?: number | undefined;
  /** First backoff, doubled per attempt and capped at 1 s (default 100 ms). */
  retryDelayMs?: number | undefined;
}

/** A node connection whose calls fail only with `EvmChainError` (or a bug's own error). */
export interface EvmRpc {
  /** The viem client; call it through `call` so that faults are bounded and typed. */
  readonly client: PublicClient;
  /** Runs `run(client)` with retries on transient faults; `method` names it in errors. */
  call<T>(method: string, run: (client: PublicClient) => Promise<T>): Promise<T>;
  /** Closes a WebSocket connection (no-op over HTTP). */
  close(): Promise<void>;
}

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

/** Opens a connection to `url` (http, https, ws or wss). No request is made until the first call. */
export function createEvmRpc(url: string, options: RpcOptions = {}): EvmRpc {
  const timeout = options.timeoutMs ?? 5_000;
  const retries = options.retries ?? 2;
  const retryDelay = options.retryDelayMs ?? 100;
  const isSocket = /^wss?:/i.test(url);
  if (isSocket) ensureWebSocket();
  // Over WebSocket, viem's own reconnection gives up for good when the node is still down at its
  // first retry; a socket that failed is closed here instead and the next call opens a new one.
  const makeClient = () =>
    createPublicClient({
      transport: isSocket ? webSocket(url, { timeout, retryCount: 0, reconnect: false, keepAlive: { interval: 15_000 } }) : http(url, { timeout, retryCount: 0 }),
      cacheTime: 0,
      pollingInterval: 1_000,
    });
  let client = makeClient();
  const closeSocket = async (stale: PublicClient) => {
    try {
      const socket = await (stale.transport as { getRpcClient?: () => Promise<{ close(): void }> }).getRpcClient?.();
      socket?.close();
    } catch {
      // Never connected: nothing to close.
    }
  };

  return {
    get client() {
      return client;
    },
    async call(method, run) {
      for (let attempt = 0; ; attempt++) {
        const used = client;
        try {
          return await run(used);
        } catch (raw) {
          const error = toChainError(raw, method);
          if (isSocket && error instanceof EvmChainError && (error.code === 'unreachable' || error.code === 'timeout') && client === used) {
            client = makeClient();
            await closeSocket(used);
          }
          if (!(error instanceof EvmChainError) || !TRANSIENT_CODES.has(error.code) || attempt >= retries) throw error;
          await new Promise((resolve) => setTimeout(resolve, Math.min(retryDelay * 2 ** attempt, 1_000)));
        }
      }
    },
    async close() {
      if (isSocket) await closeSocket(client);
    },
  };
}
