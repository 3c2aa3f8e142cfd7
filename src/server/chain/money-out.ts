/**
 * Money out, as the payout worker asks a family for it: direct payouts (the sandbox), or on real
 * networks transactions prepared, signed, stored, broadcast and followed to their confirmations.
 *
 * The seam between the payout worker (src/server/service/payouts/) and a family:
 *
 * - The worker owns what must survive a crash: which transactions were signed, with which place in
 *   the hot wallet's sequence, stored before they are sent (its `payout_*` tables, under one lock
 *   shared by every instance). It knows a sequence only as numbers that follow each other.
 * - The family owns what its chain means by that sequence, through `OutgoingChain.sequence`
 *   (`SenderSequence`): where the stored sequence starts (`next`), and whether a stored
 *   transaction's place was taken for good by another transaction, the one case where its payment
 *   may be signed again (`replaced`). The EVM family answers with the account's nonces.
 * - Whatever a family's nodes need besides (the EVM family has a local anvil node's stuck queue sent
 *   again, when it sees a payout stay in no block) it does inside its adapter, from the calls the
 *   worker makes anyway (`states`): the worker names no node and no node's quirk.
 *
 * A family whose transactions take no place in a sequence of their sender (Tron's expire after a
 * reference block; Bitcoin's spend outputs) has no `SenderSequence` to give: the worker's stages
 * would have to learn its way first (docs/adding-a-chain.md).
 */
import type { AssetId } from '../../core/money.js';

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

/** A transaction the chain prepared (fees and gas read from the node) and can sign for any place in the sequence. */
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
 * What a node said to a broadcast. `nonce_gap`: the node holds no transaction of an earlier place in
 * the sender's sequence yet (send this one again after it); every other outcome means "follow the
 * receipt". (The outcomes keep the EVM's words, which the payout worker and its logs use.)
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
 * What `SenderSequence.replaced` found: certain that another transaction took the place (`next`: the
 * place the chain takes next, at a final block), or why not.
 */
export type SequenceVerdict = { replaced: true; next: number } | { replaced: false; why: string; mined?: boolean | undefined };

/**
 * The hot wallet's sequence as its chain counts it: every transaction it sends takes the next place
 * (EVM: the account's nonce), each place is used once, and the service hands the places out itself,
 * from the stored sequence, under a database lock. What the payout worker asks the family about it.
 */
export interface SenderSequence {
  /**
   * The hot wallet's next place, counting what its nodes hold unmined (EVM: the pending nonce):
   * where the stored sequence starts, read once per network.
   */
  next(): Promise<number>;
  /**
   * Whether the hot wallet's place `place`, which the stored transaction `txHash` was signed for, is
   * used for good by another transaction: the one case where its payment may be signed again.
   * Certain (`replaced: true`, with the place the chain takes next, at a final block) only when the
   * place is used at a block that is final, no node has a receipt of `txHash` nor `txHash` itself,
   * and that held twice, `*_REPLACE_CONFIRM_MS` apart; otherwise `replaced: false` and why (`mined`:
   * a node has its receipt, the harmless case): leave the transaction as it is and ask again later. A
   * node that lags, or whose view has the sequence moved on but not the transaction, never makes it
   * look replaced.
   */
  replaced(place: number, txHash: string): Promise<SequenceVerdict>;
}

/**
 * Money out on a real chain: one hot wallet whose places in its sequence the service allocates under
 * a database lock (`sequence`). Preparing reads the node; signing never does, so a transaction is
 * signed and stored in the transaction that takes its place. Any error but `PayoutError` means "try
 * again later".
 */
export interface OutgoingChain {
  readonly blockchainId: string;
  /** The hot wallet (EIP-55): signs payouts and gas top-ups, owns the sequence. */
  readonly hotWallet: string;
  /** Confirmations before a payout counts as done (or as reverted). */
  readonly confirmations: number;
  /** The hot wallet's sequence, as the chain counts it (see `SenderSequence`). */
  readonly sequence: SenderSequence;
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
  preparePayouts(
    requests: readonly PayoutRequest[],
    early?: (drafts: ReadonlyArray<PreparedTransaction | undefined>) => void,
  ): Promise<Array<PromiseSettledResult<PreparedTransaction>>>;
  /** A native-coin (gas money) transfer of `value` wei from the hot wallet to `to`. */
  prepareGasTopUp(to: string, value: bigint): Promise<PreparedTransaction>;
  /**
   * A filler: the cheapest transaction of the hot wallet that takes a place and moves nothing of
   * account (EVM: 1 wei to itself). Fills the place of a transaction the node refused, so the places
   * after it do not wait behind a gap.
   */
  prepareFiller(): Promise<PreparedTransaction>;
  /** Signs `prepared` for `place` in the hot wallet's sequence (EVM: its nonce). Local: no node call. */
  sign(prepared: PreparedTransaction, place: number): Promise<SignedRawTransaction>;
  /**
   * Sends a stored transaction. Throws `PayoutError` when the node refuses it for good, and
   * `HotWalletShortError` when the hot wallet cannot pay it now (it goes once topped up).
   */
  broadcast(rawTransaction: string): Promise<BroadcastOutcome>;
  /**
   * Sends stored transactions together (one round trip where the node takes batches), in their
   * order: pass them lowest place first. Each settles as `broadcast` would.
   */
  broadcastMany(rawTransactions: readonly string[]): Promise<Array<PromiseSettledResult<BroadcastOutcome>>>;
  /** The highest latest block among the nodes: read once to count the confirmations of many transactions. */
  latestBlock(): Promise<number>;
  /** A stored transaction's state; with `payout`, also what its recipient received. */
  state(txHash: string, payout?: { assetId: AssetId; to: string }): Promise<TransactionState>;
  /**
   * The states of stored transactions, read together (one round trip where the node takes batches),
   * each as `state` would say, with confirmations counted below `latest` (read before them, so none
   * is over-counted). Each settles on its own. The worker asks it each round about the transactions
   * it follows: a family may look after its nodes from here (the EVM family releases what a local
   * anvil node queued for ever, once a transaction stays in no block).
   */
  states(
    transactions: ReadonlyArray<{ txHash: string; payout?: { assetId: AssetId; to: string } | undefined }>,
    latest: number,
  ): Promise<Array<PromiseSettledResult<TransactionState>>>;
}
