/**
 * What only the process that sees it knows, for `/metrics`: how far a network's scanner is behind the
 * head, the node errors it met, the hot wallet's balances as last read, the webhook attempts it made.
 * The code that learns a value reports it here in one line (`runtimeMetrics.scannerLag(…)`); the service's metrics (./service.ts) read it at scrape time. Plain maps, no metrics library: a hook
 * costs a map write, with or without `/metrics` enabled, and this module loads anywhere.
 *
 * Labels stay bounded: networks are the configured ones (at most `MAX_NETWORKS` are kept), assets the
 * configured tokens, and a node error's kind is one of `NODE_ERROR_KINDS` (anything else is `other`).
 */

import { EVM_ERROR_CODES, type EvmErrorCode } from '../chain/evm/error-codes.js';

/** The kinds a node error is counted under: the EVM family's error codes, and `other`. */
export const NODE_ERROR_KINDS = [...EVM_ERROR_CODES, 'other'] as const;

/** One of `NODE_ERROR_KINDS`. */
export type NodeErrorKind = EvmErrorCode | 'other';

/** Networks past this many are not recorded: a label set must stay small whatever calls the hooks. */
export const MAX_NETWORKS = 32;
/** Assets per network past this many are not recorded. */
const MAX_ASSETS = 16;

const KINDS: ReadonlySet<string> = new Set(NODE_ERROR_KINDS);

/**
 * The kind of a node error: the code of a chain family's error (`EvmChainError`), `other` for a code
 * this list lacks; undefined for an error that is not the node's (the database's, a bug of ours).
 */
export function nodeErrorKind(error: unknown): NodeErrorKind | undefined {
  if (!(error instanceof Error) || error.name !== 'EvmChainError') return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && KINDS.has(code) ? (code as NodeErrorKind) : 'other';
}

/** A network's values, as the hooks last set them. */
export interface NetworkRuntime {
  /** Blocks between the head and the last block the scanner has read; undefined until its first round. */
  scannerLagBlocks?: number;
  /** When the scanner last finished reading (ms since the epoch). */
  scannerScannedAt?: number;
  /** Node errors so far, by kind. */
  nodeErrors: Map<NodeErrorKind, number>;
  /** The hot wallet's token balances (token units), by asset. */
  hotWalletTokens: Map<string, number>;
  /** The hot wallet's native coin (gas money), in whole coins (BNB, ETH, POL). */
  hotWalletNative?: number;
}

/** The values of this process (see the module comment). */
export class RuntimeMetrics {
  readonly #networks = new Map<string, NetworkRuntime>();
  readonly #webhookAttempts = { delivered: 0, failed: 0 };

  /** Webhook delivery attempts made by this process, by outcome. */
  get webhookAttempts(): Readonly<{ delivered: number; failed: number }> {
    return this.#webhookAttempts;
  }

  /** The networks reported so far, with their values. */
  get networks(): ReadonlyMap<string, Readonly<NetworkRuntime>> {
    return this.#networks;
  }

  #network(network: string): NetworkRuntime | undefined {
    let entry = this.#networks.get(network);
    if (!entry) {
      if (this.#networks.size >= MAX_NETWORKS || typeof network !== 'string' || network === '') return undefined;
      entry = { nodeErrors: new Map(), hotWalletTokens: new Map() };
      this.#networks.set(network, entry);
    }
    return entry;
  }

  /** The scanner of `network` finished a round `blocks` behind the head (0: caught up). */
  scannerLag(network: string, blocks: number): void {
    const entry = this.#network(network);
    if (!entry || !Number.isFinite(blocks)) return;
    entry.scannerLagBlocks = Math.max(0, blocks);
    entry.scannerScannedAt = Date.now();
  }

  /** A call to a node of `network` failed with `error` (counted under its kind, never its message); other errors are not the node's and are not counted. */
  nodeError(network: string, error: unknown): void {
    const kind = nodeErrorKind(error);
    const entry = kind && this.#network(network);
    if (!entry || !kind) return;
    entry.nodeErrors.set(kind, (entry.nodeErrors.get(kind) ?? 0) + 1);
  }

  /** The hot wallet of `network` holds `amount` of token `asset` (token units: a decimal string or a number). */
  hotWalletTokenBalance(network: string, asset: string, amount: string | number): void {
    const entry = this.#network(network);
    const value = Number(amount);
    if (!entry || !Number.isFinite(value) || (!entry.hotWalletTokens.has(asset) && entry.hotWalletTokens.size >= MAX_ASSETS)) return;
    entry.hotWalletTokens.set(asset, value);
  }

  /** The hot wallet of `network` holds `amount` of the native coin (whole coins: a decimal string or a number). */
  hotWalletNativeBalance(network: string, amount: string | number): void {
    const entry = this.#network(network);
    const value = Number(amount);
    if (entry && Number.isFinite(value)) entry.hotWalletNative = value;
  }

  /** A webhook delivery attempt ended: delivered (a 2xx answer) or not. */
  webhookAttempt(delivered: boolean): void {
    this.#webhookAttempts[delivered ? 'delivered' : 'failed']++;
  }

  /** Forgets everything (tests). */
  reset(): void {
    this.#networks.clear();
    this.#webhookAttempts.delivered = 0;
    this.#webhookAttempts.failed = 0;
  }
}

/** The process's values: what the hooks in the scanner, the payouts and the webhook worker write to. */
export const runtimeMetrics = new RuntimeMetrics();
