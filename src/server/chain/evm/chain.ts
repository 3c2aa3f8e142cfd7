/**
 * One EVM network as a library: a connected object (`EvmChain`, made by `connectEvmChain` of
 * ./connect.ts) with everything the service's scanner, payout worker and `paylink sweep` need, and
 * nothing that touches the database. It allocates no nonces and stores nothing: the caller owns
 * ordering and durability, under database locks, so that several instances never collide. Its parts,
 * each a module over one shared context (./context.ts):
 *
 * - ./rpc.ts: the nodes (several URLs fail over; a lagging node is not used for the head);
 * - ./finality.ts: which block is final on each node;
 * - ./scan.ts: money in, the Transfer logs over block ranges, narrowed to what the nodes accept;
 * - ./transfers.ts: decoding transfers, re-checking one seen earlier, what a receipt delivered;
 * - ./fees.ts, ./sign.ts, ./broadcast.ts, ./receipts.ts: money out, priced, signed without sending,
 *   sent (again, as often as needed) and followed by its receipt;
 * - ./nonces.ts: the hot wallet's nonces, and whether another transaction took a stored one's.
 *
 * Every call is bounded and fails with `EvmChainError` (see ./errors.ts), whose `retryable` tells an
 * outage from a refusal. Block numbers, log indexes, nonces and confirmations are JS numbers (all
 * far below 2^53); token amounts are exact decimal strings in the asset's units, and wei are bigints.
 */
import { erc20Abi, formatUnits, type Address, type Hex, type Log, type PrivateKeyAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { AssetId } from '../../../core/money.js';
import { defaultLogger } from '../../log.js';
import type { Network } from '../types.js';
import { depositAddresses, type DepositAddresses } from './addresses.js';
import { broadcast, broadcastMany, type BroadcastResult } from './broadcast.js';
import type { EvmConfig } from './config.js';
import { chainContext, checkedAddress, tokenOf, type ChainContext, type EvmChainOptions, type EvmToken } from './context.js';
import { queueRelease, type ReleaseQueued } from './dev-node.js';
import { estimateGas, estimateGasMany, feeQuote, type FeeQuote } from './fees.js';
import { finalBlockReader, type FinalBlockReader } from './finality.js';
import { nonceReplacement, transactionCount, transactionKnown, type NonceReplacement, type NonceVerdict } from './nonces.js';
import { receipt, receipts, type TransactionStatus } from './receipts.js';
import type { EvmRpc } from './rpc.js';
import { LogRangeMemory, scanTransfers } from './scan.js';
import { signCall, signNativeTransfer, signTokenTransfer, tokenTransferCall, type CallToSign, type SignedTransaction } from './sign.js';
import { createThreadSigner } from './signer-thread.js';
import { blockHashAt, recheckTransfer, receivedUnits, type EvmTransfer, type TransferCheck } from './transfers.js';

export type { BroadcastOutcome, BroadcastResult } from './broadcast.js';
export type { EvmChainOptions, EvmToken } from './context.js';
export { NATIVE_TRANSFER_GAS, type FeeQuote } from './fees.js';
export type { NonceVerdict } from './nonces.js';
export type { TransactionStatus } from './receipts.js';
export type { SignedTransaction } from './sign.js';
export type { EvmTransfer, TransferCheck } from './transfers.js';

/** The newest block that cannot be reorged any more, as the chain says it. */
export interface FinalizedBlock {
  number: number;
  /** Lowercase. */
  hash: Hex;
}

/**
 * The hot wallet's account, its signatures made on a thread of their own (./signer-thread.ts): the
 * same bytes as on the main thread, without holding it.
 */
function threadSigned(key: Hex, network: string): PrivateKeyAccount & { closeSigner(): Promise<void> } {
  const account = privateKeyToAccount(key);
  const signer = createThreadSigner(account, key, (error) =>
    defaultLogger.warn('signing_thread_failed', 'the payout signing thread failed: payouts are signed on the main thread (the same signatures, more slowly)', {
      blockchainId: network,
      error,
    }),
  );
  return { ...account, signTransaction: (transaction) => signer.signTransaction(transaction), closeSigner: () => signer.close() };
}

/** One connected EVM network. Make one with `connectEvmChain`. */
export class EvmChain {
  /** The settings it was connected with. */
  readonly config: EvmConfig;
  /** The network as the service's API describes it (chain id, explorer, tokens with decimals). */
  readonly network: Network;
  /** The configured tokens and their decimals. */
  readonly tokens: readonly EvmToken[];
  /** The node connections (for callers that need a raw call; prefer the methods). */
  readonly rpc: EvmRpc;
  /** The hot wallet's address, when a payout key is configured. */
  readonly hotWallet: Address | undefined;
  /** The widest `eth_getLogs` range the nodes accept, as learned from their refusals. */
  readonly logRange: LogRangeMemory;

  readonly #ctx: ChainContext;
  readonly #hotAccount: (PrivateKeyAccount & { closeSigner(): Promise<void> }) | undefined;
  readonly #deposits: DepositAddresses | undefined;
  /** The final block on a node (./finality.ts). */
  readonly #finalized: FinalBlockReader;
  /** Whether a stored transaction's nonce went elsewhere, with what is proven so far (./nonces.ts). */
  readonly #nonceReplaced: NonceReplacement;
  /** Releases what a local anvil node queued for ever (./dev-node.ts). */
  readonly #release: ReleaseQueued;

  constructor(config: EvmConfig, rpc: EvmRpc, tokens: readonly EvmToken[], options: EvmChainOptions = {}) {
    this.config = config;
    this.rpc = rpc;
    this.tokens = tokens;
    this.#ctx = chainContext(config, rpc, tokens, options);
    this.#release = queueRelease(this.#ctx);
    this.#finalized = finalBlockReader(this.#ctx);
    this.#nonceReplaced = nonceReplacement(this.#ctx);
    this.logRange = new LogRangeMemory(options.maxBlockRange ?? 2_000);
    this.#hotAccount = config.payoutKey ? threadSigned(config.payoutKey.reveal(), config.network) : undefined;
    this.hotWallet = this.#hotAccount?.address;
    this.#deposits = config.xpub ? depositAddresses(config.xpub) : undefined;
    this.network = {
      id: config.network,
      name: config.networkName,
      aliases: [...(config.aliases ?? [])],
      assets: tokens.map((t) => t.assetId),
      chainId: config.chainId,
      explorerUrl: config.explorerUrl,
      tokens: Object.fromEntries(tokens.map((t) => [t.assetId, { address: t.address, decimals: t.decimals }])),
      addNetwork: config.addNetwork,
    };
  }

  /** Confirmations before a transfer counts (`PAYLINK_EVM_CONFIRMATIONS`). */
  get confirmations(): number {
    return this.config.confirmations;
  }

  /** The token of `assetId`, or throws a `RangeError` when the asset is not configured. */
  token(assetId: AssetId): EvmToken {
    return tokenOf(this.#ctx, assetId);
  }

  /** Deposit address n (m/44'/60'/0'/0/n of the configured xpub), EIP-55. Throws without an xpub. */
  depositAddress(index: number): Address {
    if (!this.#deposits) throw new Error('no deposit xpub is configured (PAYLINK_EVM_XPUB)');
    return this.#deposits.address(index);
  }

  // ── Money in ──────────────────────────────────────────────────────────────────────────────

  /** The highest latest block among the nodes (a lagging node's is not used). */
  async latestBlock(): Promise<number> {
    return this.rpc.head();
  }

  /** The hash of canonical block `number` (lowercase), or null when the node has no such block yet. */
  blockHash(number: number): Promise<Hex | null> {
    return blockHashAt(this.#ctx, number);
  }

  /**
   * The newest final block: the nodes' `finalized` tag where they have it, else the block
   * `finalityDepth` below `latest` (the head when not given) (./finality.ts).
   */
  async finalizedBlock(latest?: number): Promise<FinalizedBlock> {
    const { number, hash } = await this.#finalized(
      (method, run) => this.rpc.call(method, run),
      async () => latest ?? (await this.latestBlock()),
    );
    return { number, hash };
  }

  /**
   * The Transfer logs of the configured tokens to any of `addresses` in blocks `fromBlock` through
   * `toBlock` (inclusive), oldest first, in ranges the nodes accept (./scan.ts). Empty when
   * `addresses` is empty or `fromBlock > toBlock`. A `toBlock` no node has reached fails (retryable).
   */
  transfers(query: { fromBlock: number; toBlock: number; addresses: readonly string[] }): Promise<EvmTransfer[]> {
    return scanTransfers(this.#ctx, this.logRange, query);
  }

  /**
   * Re-checks a transfer seen earlier, before crediting it: by its transaction's receipt, whose
   * block must be canonical. `latestBlock` may be passed to save a call when checking many.
   */
  async recheckTransfer(transfer: EvmTransfer, context: { latestBlock?: number } = {}): Promise<TransferCheck> {
    return recheckTransfer(this.#ctx, transfer, context.latestBlock ?? (await this.latestBlock()));
  }

  // ── Money out ─────────────────────────────────────────────────────────────────────────────

  /** Current fees from the node: EIP-1559 where the chain has a base fee, a legacy gas price otherwise. */
  feeQuote(): Promise<FeeQuote> {
    return feeQuote(this.#ctx);
  }

  #hot(): PrivateKeyAccount {
    if (!this.#hotAccount) throw new Error('no payout key is configured (PAYLINK_EVM_PAYOUT_KEY_FILE or PAYLINK_EVM_PAYOUT_KEY)');
    return this.#hotAccount;
  }

  /**
   * Signs an ERC-20 transfer of `amount` (decimal string in the asset's units) of `assetId` from
   * the hot wallet to `to`, with the caller's `nonce`. Sends nothing. `fees` and `gas` are read
   * from the node when omitted; with both given no call is made, so a payout can be signed and
   * stored while the node is down. Estimating the gas of a transfer that would revert throws
   * `EvmChainError('reverted')` (not retryable): nothing was signed or spent.
   */
  async signTokenTransfer(request: {
    nonce: number;
    assetId: AssetId;
    to: string;
    amount: string;
    fees?: FeeQuote | undefined;
    gas?: bigint | undefined;
  }): Promise<SignedTransaction> {
    return signTokenTransfer(this.#ctx, this.#hot(), request);
  }

  /**
   * The gas of ERC-20 transfers from the hot wallet (`amount` of `assetId` to `to` each), estimated
   * in one JSON-RPC batch, with the configured margin: a dry run that signs nothing. Each settles on
   * its own: `EvmChainError('reverted')` for a transfer that would revert now, a `RangeError` or
   * `TypeError` for an amount or address that cannot be sent.
   */
  async estimateTokenTransfers(requests: ReadonlyArray<{ assetId: AssetId; to: string; amount: string }>): Promise<Array<PromiseSettledResult<bigint>>> {
    const from = this.#hot().address;
    const calls = requests.map((request): PromiseSettledResult<{ from: Address; to: Address; data: Hex }> => {
      try {
        return { status: 'fulfilled', value: { from, ...tokenTransferCall(this.#ctx, request) } };
      } catch (reason) {
        return { status: 'rejected', reason };
      }
    });
    const valid = calls.flatMap((call) => (call.status === 'fulfilled' ? [call.value] : []));
    const estimates = await estimateGasMany(this.#ctx, valid);
    let next = 0;
    return calls.map((call) => (call.status === 'fulfilled' ? estimates[next++]! : call));
  }

  /**
   * Signs a native-coin transfer (gas money: BNB on BSC) of `value` wei from the hot wallet.
   * Sends nothing. Gas is 21,000 (a plain transfer to an account without code).
   */
  async signNativeTransfer(request: { nonce: number; to: string; value: bigint; fees?: FeeQuote | undefined }): Promise<SignedTransaction> {
    return signNativeTransfer(this.#ctx, this.#hot(), request);
  }

  /** Signs any call from `account` (the hot wallet, or a deposit key in `paylink sweep`). Reads fees and gas from the node when not given. */
  signCall(request: CallToSign): Promise<SignedTransaction> {
    return signCall(this.#ctx, request);
  }

  /**
   * The gas a call needs, with the configured margin. Throws `EvmChainError('reverted')` when the
   * call would revert now (e.g. the token is paused or the sender's balance is too low).
   */
  estimateGas(call: { from: Address; to: Address; data?: Hex | undefined; value?: bigint | undefined }): Promise<bigint> {
    return estimateGas(this.#ctx, call);
  }

  /** Sends a signed transaction; a repeat answers `already_known` or `nonce_too_low`, never a second transfer (./broadcast.ts). */
  broadcast(rawTransaction: Hex): Promise<BroadcastResult> {
    return broadcast(this.#ctx, rawTransaction);
  }

  /** Sends several signed transactions in one JSON-RPC batch, in their order; each settles as `broadcast` would (./broadcast.ts). */
  broadcastMany(rawTransactions: readonly Hex[]): Promise<Array<PromiseSettledResult<BroadcastResult>>> {
    return broadcastMany(this.#ctx, rawTransactions);
  }

  /**
   * The hot wallet's transactions a local anvil node queued for ever, sent again with the same bytes
   * (./dev-node.ts); resolves with how many (0 on any other node, or when none is stuck). Asked about
   * a payout that is in no block a while after it was sent.
   */
  async releaseQueued(): Promise<number> {
    if (!this.hotWallet) return 0;
    const sent = await this.#release(this.hotWallet);
    if (sent > 0) {
      defaultLogger.warn(
        'dev_node_queue_released',
        'the local anvil node held a transaction of the hot wallet queued for ever: its queue was dropped and the same transactions sent again',
        { blockchainId: this.config.network, resent: sent },
      );
    }
    return sent;
  }

  /** A transaction's state: pending (no receipt), or mined with its confirmations, outcome and logs. */
  receipt(txHash: Hex, latest?: number): Promise<TransactionStatus> {
    return receipt(this.#ctx, txHash, latest);
  }

  /** The states of several transactions, their receipts read in one JSON-RPC batch, confirmations counted below `latest`. */
  receipts(txHashes: readonly Hex[], latest: number): Promise<Array<PromiseSettledResult<TransactionStatus>>> {
    return receipts(this.#ctx, txHashes, latest);
  }

  /**
   * Whether the hot wallet's `nonce` is used for good by a transaction other than `txHash`, judged by
   * every node, a recent block's count made final by each node's finalized block (`finalizedBlock`'s
   * rule, the one the credits' finality follows, applied on that node), and believed only when found
   * again `replaceAfterMs` later (./nonces.ts `nonceReplaced`; what is proven so far is kept in
   * memory). Only `replaced: true` allows signing its payment again.
   */
  async nonceReplaced(nonce: number, txHash: Hex): Promise<NonceVerdict> {
    let head: Promise<number> | undefined;
    const highest = () => (head ??= this.latestBlock());
    // Each node by its own finalized block: one that lags or failed a moment ago must not hold the others back.
    return this.#nonceReplaced(this.#hot().address, nonce, txHash, (client) => this.#finalized((_method, run) => run(client), highest));
  }

  /** True when any node has `txHash` (mempool or block); throws when a node does not answer (./nonces.ts). */
  transactionKnown(txHash: Hex): Promise<boolean> {
    return transactionKnown(this.#ctx, txHash);
  }

  /** What `to` received of `assetId` according to a receipt's Transfer logs, as an exact decimal string. */
  receivedAmount(logs: readonly Log[], assetId: AssetId, to: string): string {
    const token = this.token(assetId);
    return formatUnits(receivedUnits(logs, token.address, to), token.decimals);
  }

  /** The next nonce counting the mempool (`pending`) of `address` (default: the hot wallet). */
  async pendingNonce(address?: string): Promise<number> {
    return transactionCount(this.#ctx, address ?? this.#hot().address, 'pending');
  }

  /** The number of mined transactions of `address` (default: the hot wallet): the next nonce the chain will accept. */
  async latestNonce(address?: string): Promise<number> {
    return transactionCount(this.#ctx, address ?? this.#hot().address, 'latest');
  }

  /** Native balance (gas money) of `address` in wei; `pending` counts the mempool where the node supports it. */
  async nativeBalance(address: string, blockTag: 'latest' | 'pending' = 'latest'): Promise<bigint> {
    const who = checkedAddress(address);
    return this.rpc.call('eth_getBalance', (client) => client.getBalance({ address: who, blockTag }));
  }

  /** Token balance of `address` in the token's smallest units; `pending` counts the mempool where the node supports it. */
  async tokenUnits(assetId: AssetId, address: string, blockTag: 'latest' | 'pending' = 'latest'): Promise<bigint> {
    const token = this.token(assetId);
    const who = checkedAddress(address);
    return this.rpc.call('balanceOf()', (client) =>
      client.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [who], blockTag }),
    );
  }

  /** Token balance of `address` as an exact decimal string in the asset's units; `pending` as for `tokenUnits`. */
  async tokenBalance(assetId: AssetId, address: string, blockTag: 'latest' | 'pending' = 'latest'): Promise<string> {
    return formatUnits(await this.tokenUnits(assetId, address, blockTag), this.token(assetId).decimals);
  }

  /** Closes the node connections (WebSocket); the object is unusable afterwards. */
  async close(): Promise<void> {
    await this.#hotAccount?.closeSigner();
    await this.rpc.close();
  }
}
