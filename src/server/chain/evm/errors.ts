/**
 * One error type for everything the EVM chain can answer badly, so that the service can tell
 * "try again later" (the node is down, slow, rate-limiting or failing) from "this will never work"
 * (wrong chain, a transfer that reverts, a token that is not a contract) with one `instanceof` and
 * one flag. Messages never carry the RPC URL: node URLs often embed a provider's API key.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  ExecutionRevertedError,
  HttpRequestError,
  RpcRequestError,
  SocketClosedError,
  TimeoutError,
  WebSocketRequestError,
} from 'viem';
import { EVM_ERROR_RETRYABLE, type EvmErrorCode } from './error-codes.js';

export type { EvmErrorCode } from './error-codes.js';

/** Codes that a repeat of the same request, a moment later, can cure on its own. */
export const TRANSIENT_CODES: ReadonlySet<EvmErrorCode> = new Set(['unreachable', 'timeout', 'rate_limited', 'node_error', 'bad_response']);

/**
 * A failed chain call. `retryable` is true when the same operation may succeed later without being
 * changed (node back up, rate limit lifted, hot wallet topped up): keep the work pending and retry.
 * False means retrying the same request is pointless (wrong chain, a revert, a malformed request).
 */
export class EvmChainError extends Error {
  readonly code: EvmErrorCode;
  readonly retryable: boolean;
  /** The JSON-RPC method or operation that failed (`eth_getLogs`, `estimateGas`, …). */
  readonly method: string | undefined;
  /** The node's own words, URLs removed (empty when the node said nothing). */
  readonly detail: string;

  constructor(code: EvmErrorCode, message: string, options: { method?: string | undefined; cause?: unknown; detail?: string | undefined } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EvmChainError';
    this.code = code;
    this.retryable = EVM_ERROR_RETRYABLE[code];
    this.method = options.method;
    this.detail = options.detail ?? '';
  }
}

/** True when `error` is a chain error worth retrying later. */
export function isRetryableChainError(error: unknown): boolean {
  return error instanceof EvmChainError && error.retryable;
}

/** JSON-RPC codes of "too many requests" across nodes and providers. */
export const RATE_LIMIT_CODES = new Set([-32005, -32007, 429]);

/** The node's own words (`details`) of a viem error, or its message. */
export function nodeMessage(error: unknown): string {
  if (error instanceof BaseError) {
    const rpc = error.walk((e) => e instanceof RpcRequestError);
    if (rpc instanceof RpcRequestError) return rpc.details || rpc.shortMessage;
    return error.details || error.shortMessage;
  }
  return error instanceof Error ? error.message : String(error);
}

/** `error` and its chain of causes. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = error; e !== undefined && chain.length < 20; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/** Strips anything URL-shaped: the node's URL may hold an API key. */
export function redact(text: string): string {
  return text.replace(/\b(?:https?|wss?):\/\/\S+/gi, '<rpc-url>');
}

/**
 * Turns whatever a viem call threw into an `EvmChainError`. Errors that are not about the chain
 * (a TypeError from a bug of ours) come back unchanged, so they are not mistaken for an outage.
 */
export function toChainError(error: unknown, method: string): unknown {
  if (error instanceof EvmChainError) return error;
  if (!(error instanceof BaseError)) return error;
  const said = redact(nodeMessage(error));
  const timeout = error.walk((e) => e instanceof TimeoutError);
  if (timeout instanceof TimeoutError)
    return new EvmChainError('timeout', `${method}: the node did not answer in time`, { method, cause: error, detail: said });
  const socket = error.walk((e) => e instanceof SocketClosedError || e instanceof WebSocketRequestError);
  if (socket) return new EvmChainError('unreachable', `${method}: the node's socket is closed (${said})`, { method, cause: error, detail: said });
  // The EVM ran the call and it failed (a revert, or no contract code to answer): the same call fails again.
  const execution = error.walk(
    (e) => e instanceof ExecutionRevertedError || e instanceof ContractFunctionRevertedError || e instanceof ContractFunctionZeroDataError,
  );
  if (execution) return new EvmChainError('reverted', `${method}: execution reverted (${said})`, { method, cause: error, detail: said });
  const rpc = error.walk((e) => e instanceof RpcRequestError);
  if (rpc instanceof RpcRequestError) {
    if (RATE_LIMIT_CODES.has(rpc.code))
      return new EvmChainError('rate_limited', `${method}: the node is rate-limiting (${said})`, { method, cause: error, detail: said });
    if (rpc.code === -32601 || rpc.code === -32004)
      return new EvmChainError('unsupported', `${method}: the node does not serve this method (${said})`, { method, cause: error, detail: said });
    if (rpc.code === -32602 || rpc.code === -32600)
      return new EvmChainError('unsupported', `${method}: the node refused the request (${said})`, { method, cause: error, detail: said });
    if (/execution reverted|revert/i.test(said))
      return new EvmChainError('reverted', `${method}: execution reverted (${said})`, { method, cause: error, detail: said });
    return new EvmChainError('node_error', `${method}: the node answered with an error (${said})`, { method, cause: error, detail: said });
  }
  const http = error.walk((e) => e instanceof HttpRequestError);
  if (http instanceof HttpRequestError) {
    const status = http.status;
    if (causes(error).some((e) => e instanceof SyntaxError)) {
      return new EvmChainError('bad_response', `${method}: the node's answer is not JSON-RPC${status ? ` (HTTP ${status})` : ''}`, {
        method,
        cause: error,
        detail: said,
      });
    }
    if (status === undefined)
      return new EvmChainError('unreachable', `${method}: the node is unreachable (${redact(http.details || 'no connection')})`, {
        method,
        cause: error,
        detail: said,
      });
    if (status === 429) return new EvmChainError('rate_limited', `${method}: the node is rate-limiting (HTTP 429)`, { method, cause: error, detail: said });
    if (status === 408 || status >= 500)
      return new EvmChainError('node_error', `${method}: the node answered HTTP ${status}`, { method, cause: error, detail: said });
    if (status === 200) return new EvmChainError('bad_response', `${method}: the node's answer is not JSON-RPC`, { method, cause: error, detail: said });
    return new EvmChainError('unsupported', `${method}: the node refused the request (HTTP ${status})`, { method, cause: error, detail: said });
  }
  if (/revert/i.test(error.name) || /execution reverted/i.test(said)) {
    return new EvmChainError('reverted', `${method}: execution reverted (${said})`, { method, cause: error, detail: said });
  }
  return new EvmChainError('bad_response', `${method}: ${said}`, { method, cause: error, detail: said });
}
