/**
 * What reconciliation reads of a real network: balances at past blocks and a block's transfers from
 * its receipts.
 */
import type { AssetId } from '../../core/money.js';
import type { ObservedTransfer } from './money-in.js';

/** A block's number, hash (lowercase) and time. */
export interface BlockHeader {
  number: number;
  hash: string;
  time: Date;
}

/** A token balance to read: `holder`'s balance of `assetId`. */
export interface BalanceQuery {
  assetId: AssetId;
  holder: string;
}

/**
 * What reconciliation reads of a network (../service/reconciliation/): balances at past blocks, many
 * at once, and a block's token transfers from its receipts rather than from the node's log index
 * (`eth_getLogs`), which a node behind a load balancer may answer incompletely. Every method may
 * throw while the node is down or slow; the run then fails and is tried again.
 */
export interface ReconcileChain {
  readonly blockchainId: string;
  /** How often the network is reconciled, in ms (`PAYLINK_EVM_RECONCILE_S`). */
  readonly intervalMs: number;
  /**
   * Each query's balance in the token's base units at block `block`, in the order of `queries`:
   * many per call (Multicall3 where the network has it, else JSON-RPC batches). A holder of a token
   * that had no code at that block holds 0.
   */
  balancesAt(block: number, queries: readonly BalanceQuery[]): Promise<bigint[]>;
  /** Canonical block `number`, or null when the node has none. */
  header(number: number): Promise<BlockHeader | null>;
  /**
   * The configured tokens' transfers to or from `holder` in canonical block `number`, read from the
   * block's receipts (successful transactions only), each with its ordinal and the block's time.
   */
  blockTransfers(number: number, holder: string): Promise<{ incoming: ObservedTransfer[]; outgoing: ObservedTransfer[] }>;
  /** Where transactions stand now, by their receipts (mined with its block, or not yet), read together. */
  outcomes(txHashes: readonly string[]): Promise<Array<{ status: 'pending' } | { status: 'success' | 'reverted'; blockNumber: number }>>;
}
