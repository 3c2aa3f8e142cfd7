/**
 * One EVM network as a library: a connected object (`EvmChain`) with everything the service's
 * scanner, payout worker and `paylink sweep` need, and nothing that touches the database. It
 * allocates no nonces and stores nothing: the caller owns ordering and durability, under database
 * locks, so that several instances never collide. Its parts, each a module over one shared context
 * (./context.ts):
 *
 * - ./rpc.ts: the nodes (several URLs fail over; a lagging node is not used for the head);
 * - ./scan.ts: money in, the Transfer logs over block ranges, narrowed to what the nodes accept;
 * - ./transfers.ts: decoding transfers, re-checking one seen earlier, what a receipt delivered;
 * - ./fees.ts, ./sign.ts, ./broadcast.ts: money out, priced, signed without sending, then sent
 *   (again, as often as needed) and followed by its receipt.
 *
 * Every call is bounded and fails with `EvmChainError` (see ./errors.ts), whose `retryable` tells an
 * outage from a refusal. Block numbers, log indexes, nonces and confirmations are JS numbers (all
 * far below 2^53); token amounts are exact decimal strings in the asset's units, and wei are bigints.
 */
import { erc20Abi, formatUnits, getAddress, type Address, type Hex, type Log, type PrivateKeyAccount, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { AssetId } from '../../../core/money.js';
import { defaultLogger } from '../../log.js';
import type { Network } from '../types.js';
import { depositAddresses, type DepositAddresses } from './addresses.js';
import {
  broadcast,
  broadcastMany,
  nonceReplaced,
  receipt,
  receipts,
  transactionKnown,
  type BroadcastResult,
  type FinalOnNode,
  type NonceProof,
  type NonceVerdict,
  type TransactionStatus,
} from './broadcast.js';
import type { EvmConfig } from './config.js';
import { chainContext, checkedAddress, lower, tokenOf, type ChainContext, type EvmChainOptions, type EvmToken } from './context.js';
import { queueRelease, type ReleaseQueued } from './dev-node.js';
import { EvmChainError, nodeMessage, toChainError } from './errors.js';
import { estimateGas, estimateGasMany, feeQuote, type FeeQuote } from './fees.js';
import { createEvmRpc, type EvmRpc } from './rpc.js';
import { LogRangeMemory, scanTransfers } from './scan.js';
import { signCall, signNativeTransfer, signTokenTransfer, tokenTransferCall, type CallToSign, type SignedTransaction } from './sign.js';
import { createThreadSigner } from './signer-thread.js';
import { blockHashAt, orNull, recheckTransfer, receivedUnits, type EvmTransfer, type TransferCheck } from './transfers.js';

export type { BroadcastOutcome, BroadcastResult, NonceVerdict, TransactionStatus } from './broadcast.js';
export { classifyRefusal } from './broadcast.js';
export type { EvmChainOptions, EvmToken } from './context.js';
export { NATIVE_TRANSFER_GAS, type FeeQuote } from './fees.js';
export type { SignedTransaction } from './sign.js';
export type { EvmTransfer, TransferCheck } from './transfers.js';

/** The newest block that cannot be reorged any more, as the chain says it. */
export interface FinalizedBlock {
  number: number;
  /** Lowercase. */
  hash: Hex;
}

/**
 * Connects to the nodes named by `config`: checks that they serve `config.chainId` (a mismatch
 * throws a non-retryable `EvmChainError('chain_mismatch')`), reads each token's `decimals()` (a
 * token that is not a contract throws `misconfigured`), and returns the connected chain. Nodes that
 * are down throw a retryable `EvmChainError`.
 */
export async function connectEvmChain(config: EvmConfig, options: EvmChainOptions = {}): Promise<EvmChain> {
  const rpc = createEvmRpc(config.rpcUrls?.length ? config.rpcUrls : [config.rpcUrl], options);
  try {
    const nodeChainId = await rpc.call('eth_chainId', (client) => client.getChainId());
    const prefix = config.settingPrefix ?? 'PAYLINK_EVM_';
    if (nodeChainId !== config.chainId) {
      throw new EvmChainError(
        'chain_mismatch',
        `the node serves chain ${nodeChainId}, but ${prefix}CHAIN_ID is ${config.chainId}: refusing to use it (wrong node, or wrong setting)`,
        { method: 'eth_chainId' },
      );
    }
    const tokens: EvmToken[] = [];
    for (const [assetId, address] of Object.entries(config.tokens) as Array<[AssetId, string]>) {
      tokens.push({
        assetId,
        address: getAddress(address),
        decimals: await readDecimals(rpc, `${prefix}TOKENS`, assetId, getAddress(address), config.chainId),
      });
    }
    return new EvmChain(config, rpc, tokens, options);
  } catch (error) {
    await rpc.close();
    throw error;
  }
}

async function readDecimals(rpc: EvmRpc, setting: string, assetId: AssetId, address: Address, chainId: number): Promise<number> {
  const code = await rpc.call('eth_getCode', (client) => client.getCode({ address }));
  if (!code || code === '0x') {
    throw new EvmChainError('misconfigured', `${setting}: ${assetId} at ${address} is not a contract on chain ${chainId}`, { method: 'eth_getCode' });
  }
  let decimals: number;
  try {
    decimals = await rpc.call('decimals()', (client) => client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }));
  } catch (error) {
    if (error instanceof EvmChainError && error.retryable) throw error;
    throw new EvmChainError('misconfigured', `${setting}: ${assetId} at ${address} does not answer decimals() like an ERC-20 token`, {
      method: 'decimals()',
      cause: error,
    });
  }
  if (decimals > 36) throw new EvmChainError('misconfigured', `${setting}: ${assetId} at ${address} reports ${decimals} decimals`, { method: 'decimals()' });
  return decimals;
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
  /** Nodes (by client) that said they do not know the `finalized` block tag: their final block is counted by depth. */
  readonly #noFinalizedTag = new WeakSet<PublicClient>();
  /** Whether any node answered the `finalized` tag: then a depth-counted final block of another is not used. */
  #finalizedTagSeen = false;
  /** What `nonceReplaced` has proven so far, by stored transaction hash. */
  readonly #nonceProofs = new Map<Hex, NonceProof>();
  /** Releases what a local anvil node queued for ever (./dev-node.ts). */
  readonly #release: ReleaseQueued;

  constructor(config: EvmConfig, rpc: EvmRpc, tokens: readonly EvmToken[], options: EvmChainOptions = {}) {
    this.config = config;
    this.rpc = rpc;
    this.tokens = tokens;
    this.#ctx = chainContext(config, rpc, tokens, options);
    this.#release = queueRelease(this.#ctx);
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
   * `finalityDepth` below `latest` (the head when not given).
   */
  async finalizedBlock(latest?: number): Promise<FinalizedBlock> {
    const { number, hash } = await this.#finalized(
      (method, run) => this.rpc.call(method, run),
      async () => latest ?? (await this.latestBlock()),
    );
    return { number, hash };
  }

  /**
   * `finalizedBlock`'s rule, its calls made by `ask` (through any node, or on one node alone); `head`
   * for the depth. Each node is asked for its `finalized` block; one that says it does not know the tag
   * (and only that: a refusal, an outage or an access error is not an answer about the tag) has its final
   * block counted `finalityDepth` below the head from then on, unless another node has the tag: then it
   * is passed over (a transient fault, so `ask` fails over to another node where it can).
   */
  async #finalized(ask: <T>(method: string, run: (client: PublicClient) => Promise<T>) => Promise<T>, head: () => Promise<number>): Promise<FinalOnNode> {
    const method = 'eth_getBlockByNumber';
    const tagged = await ask(method, async (client) => {
      if (this.#noFinalizedTag.has(client)) {
        if (this.#finalizedTagSeen) throw new EvmChainError('node_error', `${method}: this node has no finalized block tag, other nodes have`, { method });
        return undefined;
      }
      try {
        const block = await client.getBlock({ blockTag: 'finalized' });
        this.#finalizedTagSeen = true;
        if (block.number === null || !block.hash)
          throw new EvmChainError('bad_response', `${method}: the node's finalized block has no number or hash`, { method });
        return { number: Number(block.number), hash: lower(block.hash), byTag: true };
      } catch (raw) {
        // A node that knows the tag but has no finalized block (a chain without finality, or one that
        // has not reached it yet) answers null: its final block is counted by depth this time.
        const none = raw instanceof Error && raw.name === 'BlockNotFoundError';
        if (!none && !unknownBlockTag(raw)) throw raw;
        if (!none) this.#noFinalizedTag.add(client);
        if (this.#finalizedTagSeen)
          throw new EvmChainError('node_error', `${method}: this node has no finalized block tag, other nodes have`, { method, cause: raw });
        return undefined;
      }
    });
    if (tagged) return tagged;
    const number = Math.max(0, (await head()) - this.config.finalityDepth);
    const block = await ask(method, (client) => orNull(client.getBlock({ blockNumber: BigInt(number) }), 'BlockNotFoundError'));
    if (!block?.hash) throw new EvmChainError('lagging', `${method}: the node has no block ${number} yet`, { method });
    return { number, hash: lower(block.hash), byTag: false };
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
   * again `replaceAfterMs` later (./broadcast.ts `nonceReplaced`; what is proven so far is kept here, in
   * memory). Only `replaced: true` allows signing its payment again.
   */
  async nonceReplaced(nonce: number, txHash: Hex): Promise<NonceVerdict> {
    const from = this.#hot().address;
    let head: Promise<number> | undefined;
    const highest = () => (head ??= this.latestBlock());
    if (this.#nonceProofs.size > 10_000) this.#nonceProofs.clear(); // a restart's worth of forgetting: only a longer wait
    const proof = this.#nonceProofs.get(txHash) ?? {};
    this.#nonceProofs.set(txHash, proof);
    // Each node by its own finalized block: one that lags or failed a moment ago must not hold the others back.
    const verdict = await nonceReplaced(this.#ctx, from, nonce, txHash, (client) => this.#finalized((_method, run) => run(client), highest), proof, {
      confirmAfterMs: this.config.replaceAfterMs,
      now: Date.now,
    });
    if (verdict.replaced || verdict.mined) this.#nonceProofs.delete(txHash);
    return verdict;
  }

  /** True when any node has `txHash` (mempool or block); throws when a node does not answer (./broadcast.ts). */
  transactionKnown(txHash: Hex): Promise<boolean> {
    return transactionKnown(this.#ctx, txHash);
  }

  /** What `to` received of `assetId` according to a receipt's Transfer logs, as an exact decimal string. */
  receivedAmount(logs: readonly Log[], assetId: AssetId, to: string): string {
    const token = this.token(assetId);
    return formatUnits(receivedUnits(logs, token.address, to), token.decimals);
  }

  /** The next nonce counting the mempool (`pending`) of `address` (default: the hot wallet). */
  pendingNonce(address?: string): Promise<number> {
    return this.#nonce(address, 'pending');
  }

  /** The number of mined transactions of `address` (default: the hot wallet): the next nonce the chain will accept. */
  latestNonce(address?: string): Promise<number> {
    return this.#nonce(address, 'latest');
  }

  async #nonce(address: string | undefined, blockTag: 'pending' | 'latest'): Promise<number> {
    const who = address ? checkedAddress(address) : this.#hot().address;
    return this.rpc.call('eth_getTransactionCount', (client) => client.getTransactionCount({ address: who, blockTag }));
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

/**
 * Whether a node's error says it does not know a block tag (an older or non-Ethereum client asked for
 * `finalized`), as geth, erigon, nethermind, besu and hosted providers word it.
 */
export function unknownBlockTag(error: unknown): boolean {
  const text = nodeMessage(error).toLowerCase();
  return /(unknown|invalid|unsupported|unrecognized|unexpected) (block )?(tag|number|identifier)|block tag|finalized.*(not (supported|found|available)|unsupported|unknown)|(unknown|unsupported|invalid).*finalized|hex string without 0x prefix|cannot unmarshal (string|"finalized")/.test(
    text,
  );
}
