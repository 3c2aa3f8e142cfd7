/**
 * Money in, as the service asks a family for it: a deposit address per session, the transfers the
 * family sees arriving there, and (on real networks) what the money-in scanner reads block range by
 * block range.
 */
import type { AssetId } from '../../core/money.js';

/** A transfer the chain saw arriving at a deposit address, as settlement credits it. */
export interface IncomingTransfer {
  blockchainId: string;
  /** Lowercase `0x` + 64 hex. */
  txHash: string;
  /**
   * The transfer's log index in its block (real chains; absent on the sandbox). A transfer is
   * credited once per network + transaction hash + log index; on the sandbox, once per hash.
   */
  logIndex?: number | undefined;
  assetId: AssetId;
  /** The deposit address it reached. */
  toAddress: string;
  /** Decimal string with at most the asset's digits (6). */
  amount: string;
  /** True when no real funds moved (the sandbox chain). */
  sandbox: boolean;
  /**
   * When the customer paid (real chains: the time of the block that first held the transfer).
   * A transfer that arrived before its session expired counts as paid in time, however long its
   * confirmations took. Default: the moment it is settled.
   */
  arrivedAt?: Date | undefined;
}

/** What the service asks for a new checkout session's deposit address. */
export interface DepositAddressRequest {
  sessionId: string;
  blockchainId: string;
  assetId: AssetId;
  /**
   * The session's deposit index, from the database's `deposit_index_seq`: never given twice.
   * Real chains derive the address from it (child 0/n of the deposit xpub); the sandbox ignores it.
   */
  index: number;
}

/** An ERC-20 Transfer to a deposit address, as a real chain's scanner reads it. */
export interface ObservedTransfer {
  blockchainId: string;
  assetId: AssetId;
  /** The token contract (EIP-55). */
  token: string;
  /** Sender and recipient (the deposit address), EIP-55. */
  from: string;
  to: string;
  /** Exact decimal string with ALL of the token's digits (an 18-decimal token keeps 18). */
  amount: string;
  /** Lowercase `0x` + 64 hex. */
  txHash: string;
  /** Position of the log in its block: changes when a reorg moves the transaction. */
  logIndex: number;
  /**
   * Position among the transaction's transfers of this token to this address (almost always 0):
   * stays the same when a reorg moves the transaction, so `(txHash, token, to, ordinal)` names the
   * transfer for good.
   */
  ordinal: number;
  blockNumber: number;
  /** Lowercase. */
  blockHash: string;
  /** The block's timestamp: when the customer paid. */
  blockTime: Date;
}

/** Where a transfer seen earlier stands now (see `IncomingChain.recheck`). */
export type ObservedTransferCheck =
  /** In a canonical block: the one it was seen in, or (`moved: true`) another, with its new position. */
  | { status: 'mined'; moved: boolean; confirmations: number; transfer: ObservedTransfer }
  /** Its transaction is back in the mempool: not a payment yet. */
  | { status: 'pending' }
  /** No longer on the chain (reorged out, or re-mined reverted or changed): never credit it. */
  | { status: 'gone' };

/**
 * Money in on a real chain: what the scanner reads. Every method may throw while the node is down
 * or slow; the scanner then keeps what it has and tries again.
 */
export interface IncomingChain {
  /** The network these transfers are on (`Network.id`). */
  readonly blockchainId: string;
  /** Confirmations before a transfer is credited (`PAYLINK_EVM_CONFIRMATIONS`). */
  readonly confirmations: number;
  /** How often to look for new blocks, in ms (`PAYLINK_EVM_POLL_MS`). */
  readonly pollMs: number;
  /** The EIP-155 chain id the nodes serve (checked at connect; stored with the network's data). */
  readonly chainId: number;
  /** The highest latest block among the nodes (a lagging node's is not used). */
  latestBlock(): Promise<number>;
  /** The newest block that cannot be reorged any more (the `finalized` tag, else a configured depth below `latest`). */
  finalizedBlock(latest: number): Promise<{ number: number; hash: string }>;
  /** The hash (lowercase) of canonical block `number`, or null when the node has none yet. */
  blockHash(number: number): Promise<string | null>;
  /** The configured tokens' transfers to any of `addresses` in blocks `fromBlock`…`toBlock`, oldest first. */
  transfers(query: { fromBlock: number; toBlock: number; addresses: readonly string[] }): Promise<ObservedTransfer[]>;
  /**
   * How many blocks one `transfers` query spans at most on these nodes now (what their `eth_getLogs`
   * accepts, as learned from their refusals): the scanner sizes its re-reads in such ranges.
   */
  logRangeWidth(): number;
  /** Re-checks a transfer seen earlier by its transaction's receipt, in a canonical block. */
  recheck(transfer: ObservedTransfer, context?: { latestBlock?: number }): Promise<ObservedTransferCheck>;
}
