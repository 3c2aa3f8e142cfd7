/**
 * The chain adapter: the only part of the service that talks to a blockchain. The service is
 * written against this interface; the built-in implementations are the sandbox (./sandbox.ts) and
 * the EVM chain (./evm/adapter.ts).
 *
 * An adapter is one of two kinds (`kind`), and the service asks which before it uses either:
 * - `sandbox`: no real funds move. A transfer is fabricated (`simulateIncomingTransfer`) and credited
 *   at once; a payout is direct (`sendPayout`).
 * - `real`: one or more EVM networks (`chains`, one per network), each with its own scanner input
 *   (`incoming`) and hot-wallet payouts (`outgoing`). The sessions room's scanner
 *   (../service/sessions/scanner.ts) reads each network's transfers block range by block range,
 *   follows their confirmations and credits each once through the same settlement
 *   (../service/sessions/settlement.ts), then follows it to finality. The payout worker
 *   (../service/payouts/) has a network prepare and sign one transaction per withdrawal (a batch of
 *   them at a time), stores each with its nonce before anything is sent, then broadcasts those stored
 *   transactions (again, after any crash) and follows their receipts.
 *
 * The adapter never touches the database: money moves in the service, in transactions, and
 * everything it stores about a network (cursor, nonces, finality) is keyed by the network's id.
 */
import type { AssetId } from '../../core/money.js';
import { KNOWN_NETWORKS, type AddNetworkParameters } from './evm/networks.js';

export type { AddNetworkParameters } from './evm/networks.js';

/** A network withdrawals and payments can use. More networks are configuration, not code. */
export interface Network {
  /** Canonical id, as the API returns it (`bsc`). */
  id: string;
  /** Human name (`BNB Smart Chain`). */
  name: string;
  /** Other spellings accepted on input, compared case-insensitively. */
  aliases: string[];
  /** Assets this network carries. */
  assets: AssetId[];
  /** EIP-155 chain id, where the network is a real EVM chain. */
  chainId?: number | undefined;
  /** Block explorer base without a trailing slash (a transaction is `${explorerUrl}/tx/${hash}`). */
  explorerUrl?: string | undefined;
  /** Each asset's ERC-20 contract (EIP-55) and its `decimals()`, where the chain has real tokens. */
  tokens?: Partial<Record<AssetId, { address: string; decimals: number }>> | undefined;
  /** What a browser wallet needs to add the network (EIP-3085 `wallet_addEthereumChain`), where known. */
  addNetwork?: AddNetworkParameters | undefined;
}


/** The chain facts of `assetId` on `network` that the public checkout API returns (nulls on the sandbox). */
export function assetChainFacts(network: Network | undefined, assetId: AssetId) {
  const token = network?.tokens?.[assetId];
  return {
    chainId: network?.chainId ?? null,
    tokenAddress: token?.address ?? null,
    decimals: token?.decimals ?? null,
    explorerUrl: network?.explorerUrl ?? null,
    addNetwork: network?.addNetwork ?? null,
  };
}

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

/** What the payout worker asks the chain to send. */
export interface PayoutRequest {
  /** The withdrawal's id: adapters use it to make a retried payout idempotent. */
  withdrawalId: string;
  blockchainId: string;
  assetId: AssetId;
  address: string;
  amount: string;
}

export interface PayoutResult {
  txHash: string;
  /** True when no real funds moved (the sandbox chain). */
  sandbox: boolean;
}

/** A payout the chain refused for good; `message` becomes the withdrawal's `failureReason`. */
export class PayoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayoutError';
  }
}

/**
 * The hot wallet cannot pay a transaction now: it lacks gas money (`gas`: the network's coin) or the
 * tokens it sends (`token`). Nothing is wrong with the payout: it waits, and goes once the hot wallet
 * is topped up (the same signed transaction, where one was signed).
 */
export class HotWalletShortError extends Error {
  constructor(
    readonly short: 'gas' | 'token',
    message: string,
  ) {
    super(message);
    this.name = 'HotWalletShortError';
  }
}

/** What the hot wallet holds on a network, as the node says now. */
export interface HotWalletHoldings {
  /** Its gas money, in wei. */
  native: bigint;
  /** Its balance of each asset asked for, as an exact decimal string in the asset's units. */
  tokens: Partial<Record<AssetId, string>>;
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

/** A transaction the chain prepared (fees and gas read from the node) and can sign with any nonce. */
export interface PreparedTransaction {
  /** What it does, for logs: `transfer 12.5 USDT to 0x…`. */
  readonly description: string;
  /** The recipient of the transaction (a token contract for a token transfer). */
  readonly to: string;
}

/** A signed transaction: the exact bytes to store before broadcasting them. */
export interface SignedRawTransaction {
  /** `0x…` serialized transaction; broadcast it as often as needed. */
  rawTransaction: string;
  /** Lowercase; known before broadcast. */
  txHash: string;
}

/**
 * What a node said to a broadcast. `nonce_gap`: the node holds no transaction of an earlier nonce
 * of the sender yet (send this one again after it); every other outcome means "follow the receipt".
 */
export type BroadcastOutcome = 'sent' | 'already_known' | 'nonce_too_low' | 'replacement_underpriced' | 'nonce_gap';

/** A stored transaction's state on the chain. */
export type TransactionState =
  | { status: 'pending' }
  | {
      status: 'success' | 'reverted';
      blockNumber: number;
      confirmations: number;
      /**
       * For a token payout asked about with its recipient: what the recipient received according to
       * the receipt's Transfer logs (exact decimal string), which a fee-charging token makes less
       * than the amount sent.
       */
      received?: string | undefined;
    };

/**
 * Money out on a real chain: one hot wallet whose nonces the service allocates under a database
 * lock. Preparing reads the node; signing never does, so a transaction is signed and stored in the
 * transaction that takes its nonce. Any error but `PayoutError` means "try again later".
 */
export interface OutgoingChain {
  readonly blockchainId: string;
  /** The hot wallet (EIP-55): signs payouts and gas top-ups, owns the nonce sequence. */
  readonly hotWallet: string;
  /** Confirmations before a payout counts as done (or as reverted). */
  readonly confirmations: number;
  /** The hot wallet's next nonce, counting the node's mempool: where the stored sequence starts. */
  pendingNonce(): Promise<number>;
  /** The network's coin, which pays the gas (`BNB`, 18 decimals). */
  readonly nativeCurrency: { symbol: string; decimals: number };
  /**
   * How often the hot wallet is held against what the payouts owe (`PAYLINK_EVM_RECONCILE_S`), in ms;
   * it is also held against them whenever a payout waits for it.
   */
  readonly reconcileMs: number;
  /**
   * What the hot wallet holds now: its gas money and its balance of each of `assetIds`, read together
   * at the node's pending state (what the transactions it holds in its mempool leave; its latest block
   * where it has none).
   */
  holdings(assetIds: readonly AssetId[]): Promise<HotWalletHoldings>;
  /**
   * The least gas money the hot wallet should keep, in wei: `*_MIN_GAS`, else enough for 20 token
   * transfers at the current fee. Also says what one transfer costs now (`perTransfer`, wei).
   */
  gasFloor(): Promise<{ floor: bigint; perTransfer: bigint }>;
  /** The most `prepared` can cost the hot wallet in gas money and value, in wei (what a node checks before it takes it). */
  maxCost(prepared: PreparedTransaction): bigint;
  /**
   * Whether the hot wallet's `nonce`, which the stored transaction `txHash` was signed with, is used
   * for good by another transaction: the one case where its payment may be signed again. Certain
   * (`replaced: true`, with the hot wallet's transaction count at a final block) only when the nonce is
   * used at a block that is final, no node has a receipt of `txHash` nor `txHash` itself, and that held
   * twice, `*_REPLACE_CONFIRM_MS` apart; otherwise `replaced: false` and why (`mined`: a node has its
   * receipt, the harmless case): leave the transaction as it is and ask again later. A node that lags,
   * or whose view has the nonce moved on but not the transaction, never makes it look replaced.
   */
  nonceReplaced(nonce: number, txHash: string): Promise<{ replaced: true; nextNonce: number } | { replaced: false; why: string; mined?: boolean | undefined }>;
  /**
   * True when any node has `txHash`, in its mempool or in a block. Throws when a node does not answer:
   * then nobody can say that none has it.
   */
  transactionKnown(txHash: string): Promise<boolean>;
  /**
   * Fees and gas of payouts' token transfers: one fee quote for them all, the transfers estimated
   * together (one round trip where the node takes batches). Each settles on its own: rejected with
   * `PayoutError` when that transfer would revert now, with `HotWalletShortError` when the hot
   * wallet cannot pay its gas, with another error when the node did not answer. Throws (nothing
   * prepared) when the fees could not be read.
   *
   * `early`, when given, may be called once the fees are known and before the estimates are: with a
   * draft for each request it can guess the gas of (one per index, undefined for the others), so the
   * caller can sign them while the estimates run. A request whose estimate allows its draft resolves
   * with that very draft (the same object); any other with a transaction of its own.
   */
  preparePayouts(requests: readonly PayoutRequest[], early?: (drafts: ReadonlyArray<PreparedTransaction | undefined>) => void): Promise<Array<PromiseSettledResult<PreparedTransaction>>>;
  /** A native-coin (gas money) transfer of `value` wei from the hot wallet to `to`. */
  prepareGasTopUp(to: string, value: bigint): Promise<PreparedTransaction>;
  /** A transfer of nothing from the hot wallet to itself: fills a nonce whose transaction the node refused. */
  prepareNonceFiller(): Promise<PreparedTransaction>;
  /** Signs `prepared` with `nonce`. Local: no node call. */
  sign(prepared: PreparedTransaction, nonce: number): Promise<SignedRawTransaction>;
  /**
   * Sends a stored transaction. Throws `PayoutError` when the node refuses it for good, and
   * `HotWalletShortError` when the hot wallet cannot pay it now (it goes once topped up).
   */
  broadcast(rawTransaction: string): Promise<BroadcastOutcome>;
  /**
   * Sends stored transactions together (one round trip where the node takes batches), in their
   * order: pass them lowest nonce first. Each settles as `broadcast` would.
   */
  broadcastMany(rawTransactions: readonly string[]): Promise<Array<PromiseSettledResult<BroadcastOutcome>>>;
  /**
   * For a stored transaction sent a while ago that is in no block yet: on a local anvil node, the hot
   * wallet's transactions it queued for ever are sent again (the same bytes); elsewhere nothing (after
   * one call that tells which node it is). Resolves with how many were sent again.
   */
  releaseQueued(): Promise<number>;
  /** The highest latest block among the nodes: read once to count the confirmations of many transactions. */
  latestBlock(): Promise<number>;
  /** A stored transaction's state; with `payout`, also what its recipient received. */
  state(txHash: string, payout?: { assetId: AssetId; to: string }): Promise<TransactionState>;
  /**
   * The states of stored transactions, read together (one round trip where the node takes batches),
   * each as `state` would say, with confirmations counted below `latest` (read before them, so none
   * is over-counted). Each settles on its own.
   */
  states(transactions: ReadonlyArray<{ txHash: string; payout?: { assetId: AssetId; to: string } | undefined }>, latest: number): Promise<Array<PromiseSettledResult<TransactionState>>>;
}

/** What both kinds of adapter have. */
interface ChainAdapterBase {
  readonly networks: readonly Network[];
  /** The address a customer pays a checkout session at; distinct per session. */
  depositAddress(request: DepositAddressRequest): Promise<string>;
  /** Releases the node connections (the creator calls it after the service has stopped). */
  close?(): Promise<void>;
}

/** The sandbox: fabricated transfers credited at once, direct payouts, no real funds. */
export interface SandboxChainAdapter extends ChainAdapterBase {
  readonly kind: 'sandbox';
  readonly sandbox: true;
  /**
   * Sends a withdrawal's funds. Resolves with the transaction hash, throws `PayoutError` when the
   * payout failed for good (the funds are then returned to the balance). Any other error (or no
   * answer within the worker's `payoutTimeoutMs`) means "outcome unknown": the withdrawal stays
   * `processing` and the same request is sent again after the lease, so this must be idempotent per
   * `withdrawalId`.
   */
  sendPayout(request: PayoutRequest): Promise<PayoutResult>;
  /** Fabricates an incoming transfer to `toAddress`, as if a customer had paid (`simulate-payment`). */
  simulateIncomingTransfer(request: {
    blockchainId: string;
    assetId: AssetId;
    toAddress: string;
    amount: string;
    txHash?: string | undefined;
  }): Promise<IncomingTransfer>;
}

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

/** One network of a real adapter: what its scanner reads and what its payouts use. */
export interface NetworkChain {
  readonly blockchainId: string;
  readonly incoming: IncomingChain;
  /** Absent without a payout key: withdrawals on the network wait. */
  readonly outgoing: OutgoingChain | undefined;
  /** What reconciliation reads (absent on an adapter that cannot: its network is not reconciled). */
  readonly reconcile?: ReconcileChain | undefined;
}

/** Real EVM networks: transfers read from the chain, payouts as stored signed transactions. */
export interface RealChainAdapter extends ChainAdapterBase {
  readonly kind: 'real';
  readonly sandbox: false;
  /** One per network, in the order of `networks`. */
  readonly chains: readonly NetworkChain[];
  /** Releases every node connection (the creator calls it after the service has stopped). */
  close(): Promise<void>;
}

/** The chain the service runs on: the sandbox, or real networks. */
export type ChainAdapter = SandboxChainAdapter | RealChainAdapter;

/** The network `blockchainId` of a real adapter, or undefined (the sandbox, or a network not configured). */
export function networkChain(chain: ChainAdapter, blockchainId: string): NetworkChain | undefined {
  return chain.kind === 'real' ? chain.chains.find((c) => c.blockchainId === blockchainId) : undefined;
}

/** Finds the network named by an id or one of its aliases, case-insensitively. */
export function findNetwork(networks: readonly Network[], name: string): Network | undefined {
  const wanted = name.trim().toLowerCase();
  return networks.find((n) => n.id.toLowerCase() === wanted || n.aliases.some((a) => a.toLowerCase() === wanted));
}

/** BNB Smart Chain as the sandbox offers it (no real tokens): its default network. */
export const BSC: Network = {
  id: 'bsc',
  name: KNOWN_NETWORKS.bsc!.name,
  aliases: [...KNOWN_NETWORKS.bsc!.aliases],
  assets: ['USDT', 'CNGN'],
};
