/**
 * The EVM chain as a library: one connected object (`EvmChain`) with everything the service's
 * scanner, payout worker and `paylink sweep` need, and nothing that touches the database. It
 * allocates no nonces and stores nothing: the caller (phase 2's workers) owns ordering and
 * durability, under database locks, so that several instances never collide.
 *
 * - Money in: `latestBlock`, `blockHash`, `transfers` (the Transfer logs of the configured tokens
 *   to a set of deposit addresses over a block range) and `recheckTransfer` (is a seen transfer
 *   still where it was, did a reorg move it, or is it gone). Anvil does not mark reorged logs
 *   `removed`, and neither does a node asked after the fact: only a re-check tells.
 * - Money out: `signTokenTransfer` signs without sending (store the raw transaction first),
 *   `broadcast` sends a stored raw transaction and maps the node's "already known", "nonce too
 *   low" and "replacement underpriced" to outcomes, `receipt` says pending / success / reverted.
 * - Every call is bounded and fails with `EvmChainError` (see ./errors.ts), whose `retryable`
 *   tells an outage from a refusal.
 *
 * Block numbers, log indexes, nonces and confirmations are JS numbers (all far below 2^53);
 * token amounts are exact decimal strings in the asset's units, and wei are bigints.
 */
import {
  encodeFunctionData,
  erc20Abi,
  formatUnits,
  getAddress,
  keccak256,
  parseEventLogs,
  parseUnits,
  type Address,
  type Hex,
  type PrivateKeyAccount,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { AssetId } from '../../../core/money.js';
import { BSC, type Network } from '../types.js';
import { checkEvmAddress } from '../evm.js';
import { depositAddresses, type DepositAddresses } from './addresses.js';
import type { EvmConfig } from './config.js';
import { EvmChainError, nodeMessage, redact } from './errors.js';
import { createEvmRpc, type EvmRpc, type RpcOptions } from './rpc.js';

/** How the chain is used beyond DESIGN §7's settings. */
export interface EvmChainOptions extends RpcOptions {
  /** Largest block range of one `eth_getLogs` (default 2000; halved on a node's "too many results"). */
  maxBlockRange?: number | undefined;
  /** Most deposit addresses in one `eth_getLogs` (default 500). */
  maxAddressesPerQuery?: number | undefined;
  /**
   * `auto` (default): EIP-1559 fees when the latest block has a non-zero base fee, else a legacy
   * gas price (BNB Smart Chain's base fee is zero and its validators order by gas price).
   */
  feeMode?: 'auto' | 'eip1559' | 'legacy' | undefined;
  /** Gas limit = estimate × this, rounded up (default 1.25: storage costs differ at execution). */
  gasMargin?: number | undefined;
}

/** A configured token, with the decimals its contract reports. */
export interface EvmToken {
  assetId: AssetId;
  /** EIP-55. */
  address: Address;
  decimals: number;
}

/** An ERC-20 Transfer of a configured token to one of the watched addresses. */
export interface EvmTransfer {
  assetId: AssetId;
  /** The token contract, EIP-55. */
  token: Address;
  /** Sender, EIP-55. */
  from: Address;
  /** Recipient (a deposit address), EIP-55. */
  to: Address;
  /** Exact decimal string in the asset's units (`"12.5"`), all of the token's decimals kept. */
  amount: string;
  /** Lowercase `0x` + 64 hex. */
  txHash: Hex;
  /** Position of the log in its block; changes when a reorg moves the transaction. */
  logIndex: number;
  blockNumber: number;
  /** Lowercase `0x` + 64 hex: the block the log was seen in. */
  blockHash: Hex;
  /**
   * Position of this transfer among its transaction's transfers of the same token to the same
   * address (0 for the first, and almost always 0). Unlike `logIndex` it stays the same when a
   * reorg moves the transaction to another block, so `(txHash, token, to, ordinal)` names one
   * transfer for good.
   */
  ordinal: number;
}

/** Where a transfer seen earlier stands now. */
export type TransferCheck =
  /** Still in the block it was seen in, and that block is canonical. */
  | { status: 'canonical'; confirmations: number; transfer: EvmTransfer }
  /** Its transaction is now mined in another canonical block: `transfer` has the new position. */
  | { status: 'moved'; confirmations: number; transfer: EvmTransfer }
  /** Its transaction is back in the mempool, in no block: not yet a payment. */
  | { status: 'pending' }
  /** No longer on the chain: dropped by a reorg, or re-mined but reverted or changed. Never credit it. */
  | { status: 'gone' };

/** Fees of a transaction, from the node. */
export type FeeQuote =
  | { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  | { type: 'legacy'; gasPrice: bigint };

/** A signed, unsent transaction: store `rawTransaction` before broadcasting it. */
export interface SignedTransaction {
  /** The serialized signed transaction; `broadcast` it (again) as often as needed. */
  rawTransaction: Hex;
  /** keccak-256 of `rawTransaction`, lowercase. */
  txHash: Hex;
  from: Address;
  nonce: number;
  gas: bigint;
  fees: FeeQuote;
}

/** What the node said to a broadcast. Any of them means: watch `receipt(txHash)`. */
export type BroadcastOutcome =
  /** Accepted now. */
  | 'sent'
  /** The node already has this very transaction (a re-broadcast). */
  | 'already_known'
  /** The sender's nonce is used: this transaction, or another with its nonce, is mined. */
  | 'nonce_too_low'
  /** Another transaction with this nonce waits in the mempool with a higher fee. */
  | 'replacement_underpriced';

export interface BroadcastResult {
  outcome: BroadcastOutcome;
  txHash: Hex;
}

/** A transaction's state on the chain. */
export type TransactionStatus =
  /** In no block: in a mempool, or unknown to this node (re-broadcast the stored raw transaction). */
  | { status: 'pending' }
  | { status: 'success' | 'reverted'; blockNumber: number; blockHash: Hex; confirmations: number; gasUsed: bigint };

/** The fields of a decoded Transfer log that matter here (viem's logs have more). */
interface TransferLog {
  address: Address;
  args: { from: Address; to: Address; value: bigint };
  transactionHash: Hex | null;
  logIndex: number | null;
  blockNumber: bigint | null;
  blockHash: Hex | null;
  removed?: boolean;
}

const TRANSFER_EVENT = erc20Abi.filter((item) => item.type === 'event' && item.name === 'Transfer');

/** Gas of a plain native transfer to an externally owned account. */
export const NATIVE_TRANSFER_GAS = 21_000n;

/**
 * Connects to the node named by `config`: checks that it serves `config.chainId` (a mismatch throws
 * a non-retryable `EvmChainError('chain_mismatch')`), reads each token's `decimals()` (a token that
 * is not a contract throws `misconfigured`), and returns the connected chain. A node that is down
 * throws a retryable `EvmChainError`.
 */
export async function connectEvmChain(config: EvmConfig, options: EvmChainOptions = {}): Promise<EvmChain> {
  const rpc = createEvmRpc(config.rpcUrl, options);
  try {
    const nodeChainId = await rpc.call('eth_chainId', (client) => client.getChainId());
    if (nodeChainId !== config.chainId) {
      throw new EvmChainError(
        'chain_mismatch',
        `the node serves chain ${nodeChainId}, but PAYLINK_EVM_CHAIN_ID is ${config.chainId}: refusing to use it (wrong node, or wrong setting)`,
        { method: 'eth_chainId' },
      );
    }
    const tokens: EvmToken[] = [];
    for (const [assetId, address] of Object.entries(config.tokens) as Array<[AssetId, string]>) {
      tokens.push({ assetId, address: getAddress(address), decimals: await readDecimals(rpc, assetId, getAddress(address), config.chainId) });
    }
    return new EvmChain(config, rpc, tokens, options);
  } catch (error) {
    await rpc.close();
    throw error;
  }
}

async function readDecimals(rpc: EvmRpc, assetId: AssetId, address: Address, chainId: number): Promise<number> {
  const code = await rpc.call('eth_getCode', (client) => client.getCode({ address }));
  if (!code || code === '0x') {
    throw new EvmChainError('misconfigured', `PAYLINK_EVM_TOKENS: ${assetId} at ${address} is not a contract on chain ${chainId}`, { method: 'eth_getCode' });
  }
  let decimals: number;
  try {
    decimals = await rpc.call('decimals()', (client) => client.readContract({ address, abi: erc20Abi, functionName: 'decimals' }));
  } catch (error) {
    if (error instanceof EvmChainError && error.retryable) throw error;
    throw new EvmChainError('misconfigured', `PAYLINK_EVM_TOKENS: ${assetId} at ${address} does not answer decimals() like an ERC-20 token`, {
      method: 'decimals()',
      cause: error,
    });
  }
  if (decimals > 36) throw new EvmChainError('misconfigured', `PAYLINK_EVM_TOKENS: ${assetId} at ${address} reports ${decimals} decimals`, { method: 'decimals()' });
  return decimals;
}

function lower(hex: string): Hex {
  return hex.toLowerCase() as Hex;
}

/** Splits `items` into slices of at most `size`. */
function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Node answers that mean "ask for a smaller range or fewer addresses" (geth, erigon, BSC nodes and
 * hosted providers word it differently, and some send it as a -32005 "limit" error).
 */
const QUERY_TOO_LARGE = /more than \d+ (results|logs)|too many (results|logs|blocks|addresses)|block range|range (is )?too (large|wide|big)|too large|response size|exceed(s|ed)? (the )?(max|maximum|block|range|results|logs|response)|max(imum)? (block )?range/i;
/** Words of a plain rate limit, which a smaller query would not cure. */
const RATE_LIMIT = /rate|per second|requests? (per|limit)|too many requests|credits|capacity|throttl/i;

/** The connected EVM chain. Make one with `connectEvmChain`. */
export class EvmChain {
  /** The settings it was connected with. */
  readonly config: EvmConfig;
  /** The network as the service's API describes it (chain id, explorer, tokens with decimals). */
  readonly network: Network;
  /** The configured tokens and their decimals. */
  readonly tokens: readonly EvmToken[];
  /** The node connection (for callers that need a raw call; prefer the methods). */
  readonly rpc: EvmRpc;
  /** The hot wallet's address, when a payout key is configured. */
  readonly hotWallet: Address | undefined;

  readonly #options: EvmChainOptions;
  readonly #hotAccount: PrivateKeyAccount | undefined;
  readonly #deposits: DepositAddresses | undefined;
  readonly #byToken: Map<string, EvmToken>;

  constructor(config: EvmConfig, rpc: EvmRpc, tokens: readonly EvmToken[], options: EvmChainOptions = {}) {
    this.config = config;
    this.rpc = rpc;
    this.tokens = tokens;
    this.#options = options;
    this.#byToken = new Map(tokens.map((t) => [t.address.toLowerCase(), t]));
    this.#hotAccount = config.payoutKey ? privateKeyToAccount(config.payoutKey.reveal()) : undefined;
    this.hotWallet = this.#hotAccount?.address;
    this.#deposits = config.xpub ? depositAddresses(config.xpub) : undefined;
    this.network = {
      id: config.network,
      name: config.networkName,
      aliases: config.network === BSC.id ? [...BSC.aliases] : [],
      assets: tokens.map((t) => t.assetId),
      chainId: config.chainId,
      explorerUrl: config.explorerUrl,
      tokens: Object.fromEntries(tokens.map((t) => [t.assetId, { address: t.address, decimals: t.decimals }])),
    };
  }

  /** Confirmations before a transfer counts (`PAYLINK_EVM_CONFIRMATIONS`). */
  get confirmations(): number {
    return this.config.confirmations;
  }

  /** The token of `assetId`, or throws a `RangeError` when the asset is not configured. */
  token(assetId: AssetId): EvmToken {
    const token = this.tokens.find((t) => t.assetId === assetId);
    if (!token) throw new RangeError(`${assetId} is not configured on ${this.network.id} (PAYLINK_EVM_TOKENS)`);
    return token;
  }

  /** Deposit address n (m/44'/60'/0'/0/n of the configured xpub), EIP-55. Throws without an xpub. */
  depositAddress(index: number): Address {
    if (!this.#deposits) throw new Error('no deposit xpub is configured (PAYLINK_EVM_XPUB)');
    return this.#deposits.address(index);
  }

  // ── Money in ──────────────────────────────────────────────────────────────────────────────

  /** The number of the node's latest block. */
  async latestBlock(): Promise<number> {
    return Number(await this.rpc.call('eth_blockNumber', (client) => client.getBlockNumber({ cacheTime: 0 })));
  }

  /** The hash of canonical block `number` (lowercase), or null when the node has no such block yet. */
  async blockHash(number: number): Promise<Hex | null> {
    const block = await this.rpc.call('eth_getBlockByNumber', async (client) => {
      try {
        return await client.getBlock({ blockNumber: BigInt(number) });
      } catch (error) {
        if (error instanceof Error && error.name === 'BlockNotFoundError') return null;
        throw error;
      }
    });
    return block?.hash ? lower(block.hash) : null;
  }

  /**
   * The Transfer logs of the configured tokens to any of `addresses` in blocks `fromBlock` through
   * `toBlock` (inclusive), oldest first. Splits the range and the address list to the node's
   * limits. Empty when `addresses` is empty or `fromBlock > toBlock`. A `toBlock` past the node's
   * latest block fails (retryable: a lagging node behind a load balancer catches up).
   */
  async transfers(query: { fromBlock: number; toBlock: number; addresses: readonly string[] }): Promise<EvmTransfer[]> {
    const { fromBlock, toBlock } = query;
    if (!Number.isSafeInteger(fromBlock) || !Number.isSafeInteger(toBlock) || fromBlock < 0) {
      throw new RangeError(`block range must be whole numbers ≥ 0, not ${fromBlock}…${toBlock}`);
    }
    if (query.addresses.length === 0 || fromBlock > toBlock) return [];
    const addresses = [...new Set(query.addresses.map((a) => getAddress(a)))];
    const latest = await this.latestBlock();
    if (toBlock > latest) {
      throw new EvmChainError('node_error', `eth_getLogs: block ${toBlock} is past the node's latest block ${latest}`, { method: 'eth_getLogs' });
    }
    const maxRange = Math.max(1, this.#options.maxBlockRange ?? 2_000);
    const maxAddresses = Math.max(1, this.#options.maxAddressesPerQuery ?? 500);
    const logs: TransferLog[] = [];
    for (let start = fromBlock; start <= toBlock; start += maxRange) {
      const end = Math.min(toBlock, start + maxRange - 1);
      for (const slice of chunks(addresses, maxAddresses)) logs.push(...(await this.#logs(start, end, slice)));
    }
    const seen = new Set<string>();
    const transfers: EvmTransfer[] = [];
    for (const log of logs) {
      if (log.removed) continue;
      const key = `${log.blockHash}:${log.logIndex}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const transfer = this.#toTransfer(log);
      if (transfer) transfers.push(transfer);
    }
    transfers.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
    // Ordinals: a transaction's logs are all in one block and one address slice, so all of its
    // transfers to one address are in this list, in log order.
    const counts = new Map<string, number>();
    for (const transfer of transfers) {
      const key = `${transfer.txHash}:${transfer.token}:${transfer.to}`;
      transfer.ordinal = counts.get(key) ?? 0;
      counts.set(key, transfer.ordinal + 1);
    }
    return transfers;
  }

  /** One `eth_getLogs`, halving the range when the node says the answer would be too large. */
  async #logs(fromBlock: number, toBlock: number, to: Address[]): Promise<TransferLog[]> {
    try {
      return await this.rpc.call('eth_getLogs', (client) =>
        client.getLogs({
          address: this.tokens.map((t) => t.address),
          event: TRANSFER_EVENT[0],
          args: { to },
          fromBlock: BigInt(fromBlock),
          toBlock: BigInt(toBlock),
          strict: true,
        }),
      );
    } catch (error) {
      const tooLarge =
        error instanceof EvmChainError &&
        ['node_error', 'unsupported', 'bad_response', 'rate_limited'].includes(error.code) &&
        QUERY_TOO_LARGE.test(error.detail) &&
        !RATE_LIMIT.test(error.detail);
      if (!tooLarge) throw error;
      if (fromBlock < toBlock) {
        const middle = Math.floor((fromBlock + toBlock) / 2);
        return [...(await this.#logs(fromBlock, middle, to)), ...(await this.#logs(middle + 1, toBlock, to))];
      }
      if (to.length > 1) {
        const half = Math.ceil(to.length / 2);
        return [...(await this.#logs(fromBlock, toBlock, to.slice(0, half))), ...(await this.#logs(fromBlock, toBlock, to.slice(half)))];
      }
      throw error;
    }
  }

  #toTransfer(log: TransferLog): EvmTransfer | null {
    const token = this.#byToken.get(log.address.toLowerCase());
    if (!token || log.transactionHash === null || log.logIndex === null || log.blockNumber === null || log.blockHash === null) return null;
    return {
      assetId: token.assetId,
      token: token.address,
      from: getAddress(log.args.from),
      to: getAddress(log.args.to),
      amount: formatUnits(log.args.value, token.decimals),
      txHash: lower(log.transactionHash),
      logIndex: log.logIndex,
      blockNumber: Number(log.blockNumber),
      blockHash: lower(log.blockHash),
      ordinal: 0,
    };
  }

  /**
   * Re-checks a transfer seen earlier, before crediting it: by its transaction's receipt, whose
   * block must be canonical. `latestBlock` may be passed to save a call when checking many.
   */
  async recheckTransfer(transfer: EvmTransfer, context: { latestBlock?: number } = {}): Promise<TransferCheck> {
    const receipt = await this.rpc.call('eth_getTransactionReceipt', async (client) => {
      try {
        return await client.getTransactionReceipt({ hash: transfer.txHash });
      } catch (error) {
        if (error instanceof Error && error.name === 'TransactionReceiptNotFoundError') return null;
        throw error;
      }
    });
    if (!receipt) {
      const pending = await this.rpc.call('eth_getTransactionByHash', async (client) => {
        try {
          return await client.getTransaction({ hash: transfer.txHash });
        } catch (error) {
          if (error instanceof Error && error.name === 'TransactionNotFoundError') return null;
          throw error;
        }
      });
      return pending && pending.blockHash === null ? { status: 'pending' } : { status: 'gone' };
    }
    const blockNumber = Number(receipt.blockNumber);
    const canonical = await this.blockHash(blockNumber);
    if (canonical !== lower(receipt.blockHash)) {
      // The node's index and its chain disagree: a reorg is under way. Ask again later.
      throw new EvmChainError('node_error', `eth_getTransactionReceipt: ${transfer.txHash} points to a block that is not canonical (reorg under way)`, {
        method: 'eth_getTransactionReceipt',
      });
    }
    if (receipt.status !== 'success') return { status: 'gone' };
    const matching = parseEventLogs({ abi: TRANSFER_EVENT, logs: receipt.logs, strict: true }).filter(
      (log) => log.address.toLowerCase() === transfer.token.toLowerCase() && log.args.to.toLowerCase() === transfer.to.toLowerCase(),
    );
    const log = matching[transfer.ordinal];
    const now = log ? this.#toTransfer(log) : null;
    if (!now || now.amount !== transfer.amount || now.from !== getAddress(transfer.from)) return { status: 'gone' };
    now.ordinal = transfer.ordinal;
    const latest = context.latestBlock ?? (await this.latestBlock());
    const confirmations = Math.max(0, latest - blockNumber + 1);
    return now.blockHash === lower(transfer.blockHash)
      ? { status: 'canonical', confirmations, transfer: now }
      : { status: 'moved', confirmations, transfer: now };
  }

  // ── Money out ─────────────────────────────────────────────────────────────────────────────

  /** Current fees from the node: EIP-1559 where the chain has a base fee, a legacy gas price otherwise. */
  async feeQuote(): Promise<FeeQuote> {
    const mode = this.#options.feeMode ?? 'auto';
    if (mode === 'legacy') return { type: 'legacy', gasPrice: await this.#gasPrice() };
    const block = await this.rpc.call('eth_getBlockByNumber', (client) => client.getBlock({ blockTag: 'latest' }));
    const baseFee = block.baseFeePerGas;
    if (baseFee === null || (mode === 'auto' && baseFee === 0n)) {
      if (mode === 'eip1559') throw new EvmChainError('unsupported', 'the chain has no EIP-1559 base fee (use feeMode legacy)', { method: 'eth_getBlockByNumber' });
      return { type: 'legacy', gasPrice: await this.#gasPrice() };
    }
    let priority: bigint;
    try {
      priority = BigInt(await this.rpc.call('eth_maxPriorityFeePerGas', (client) => client.request({ method: 'eth_maxPriorityFeePerGas' })));
    } catch (error) {
      if (!(error instanceof EvmChainError) || error.code !== 'unsupported') throw error;
      const price = await this.#gasPrice();
      priority = price > baseFee ? price - baseFee : 0n;
    }
    // Twice the base fee: the transaction stays includable through several full blocks in a row.
    return { type: 'eip1559', maxFeePerGas: baseFee * 2n + priority, maxPriorityFeePerGas: priority };
  }

  async #gasPrice(): Promise<bigint> {
    return this.rpc.call('eth_gasPrice', (client) => client.getGasPrice());
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
    const account = this.#hot();
    const token = this.token(request.assetId);
    const to = this.#address(request.to);
    const units = this.#units(request.amount, token);
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, units] });
    return this.signCall({ account, to: token.address, data, nonce: request.nonce, fees: request.fees, gas: request.gas });
  }

  /**
   * Signs a native-coin transfer (gas money: BNB on BSC) of `value` wei from the hot wallet.
   * Sends nothing. Gas is 21,000 (a plain transfer to an account without code).
   */
  async signNativeTransfer(request: { nonce: number; to: string; value: bigint; fees?: FeeQuote | undefined }): Promise<SignedTransaction> {
    if (request.value <= 0n) throw new RangeError('a native transfer must move more than 0 wei');
    return this.signCall({ account: this.#hot(), to: this.#address(request.to), value: request.value, nonce: request.nonce, fees: request.fees, gas: NATIVE_TRANSFER_GAS });
  }

  /**
   * Signs any call from `account` (the hot wallet, or a deposit key in `paylink sweep`). Reads
   * fees and gas from the node when they are not given.
   */
  async signCall(request: {
    account: PrivateKeyAccount;
    to: Address;
    data?: Hex | undefined;
    value?: bigint | undefined;
    nonce: number;
    fees?: FeeQuote | undefined;
    gas?: bigint | undefined;
  }): Promise<SignedTransaction> {
    if (!Number.isSafeInteger(request.nonce) || request.nonce < 0) throw new RangeError(`nonce must be a whole number ≥ 0, not ${request.nonce}`);
    const fees = request.fees ?? (await this.feeQuote());
    const gas = request.gas ?? (await this.estimateGas({ from: request.account.address, to: request.to, data: request.data, value: request.value }));
    const common = { chainId: this.config.chainId, nonce: request.nonce, to: request.to, data: request.data, value: request.value ?? 0n, gas };
    const rawTransaction =
      fees.type === 'eip1559'
        ? await request.account.signTransaction({ ...common, type: 'eip1559', maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas })
        : await request.account.signTransaction({ ...common, type: 'legacy', gasPrice: fees.gasPrice });
    return { rawTransaction, txHash: lower(keccak256(rawTransaction)), from: request.account.address, nonce: request.nonce, gas, fees };
  }

  /**
   * The gas a call needs, with the configured margin. Throws `EvmChainError('reverted')` when the
   * call would revert now (e.g. the token is paused or the sender's balance is too low).
   */
  async estimateGas(call: { from: Address; to: Address; data?: Hex | undefined; value?: bigint | undefined }): Promise<bigint> {
    const estimate = await this.rpc.call('eth_estimateGas', (client) =>
      client.estimateGas({ account: call.from, to: call.to, data: call.data, value: call.value }),
    );
    const margin = this.#options.gasMargin ?? 1.25;
    return (estimate * BigInt(Math.round(margin * 1_000)) + 999n) / 1_000n;
  }

  /**
   * Sends a signed transaction (`eth_sendRawTransaction`). Safe to repeat with the same raw
   * transaction: a repeat answers `already_known` or `nonce_too_low`, never a second transfer.
   * Refusals the caller must act on throw `EvmChainError`: `insufficient_funds` (top up the hot
   * wallet; retryable), `fee_too_low` (retryable), `nonce_too_high` (an earlier nonce is missing;
   * retryable once it is sent), `rejected` (the transaction can never go).
   */
  async broadcast(rawTransaction: Hex): Promise<BroadcastResult> {
    const txHash = lower(keccak256(rawTransaction));
    try {
      const sent = await this.rpc.call('eth_sendRawTransaction', async (client) => {
        try {
          return await client.sendRawTransaction({ serializedTransaction: rawTransaction });
        } catch (error) {
          // Classify the node's refusals here, before they look like generic node errors.
          const refusal = classifyRefusal(nodeMessage(error));
          if (refusal) throw new BroadcastRefusal(refusal, nodeMessage(error), error);
          throw error;
        }
      });
      if (lower(sent) !== txHash) throw new EvmChainError('bad_response', `eth_sendRawTransaction: the node reported hash ${sent} for ${txHash}`, { method: 'eth_sendRawTransaction' });
      return { outcome: 'sent', txHash };
    } catch (error) {
      if (!(error instanceof BroadcastRefusal)) throw error;
      if (error.refusal === 'already_known' || error.refusal === 'nonce_too_low' || error.refusal === 'replacement_underpriced') {
        return { outcome: error.refusal, txHash };
      }
      const said = redact(error.said);
      if (error.refusal === 'insufficient_funds') throw new EvmChainError('insufficient_funds', `eth_sendRawTransaction: the sender cannot pay for this transaction (${said})`, { method: 'eth_sendRawTransaction', cause: error.cause });
      if (error.refusal === 'nonce_too_high') throw new EvmChainError('nonce_too_high', `eth_sendRawTransaction: an earlier nonce of the sender is not mined or pending yet (${said})`, { method: 'eth_sendRawTransaction', cause: error.cause });
      if (error.refusal === 'fee_too_low') throw new EvmChainError('fee_too_low', `eth_sendRawTransaction: the fee is too low for the node now (${said})`, { method: 'eth_sendRawTransaction', cause: error.cause });
      throw new EvmChainError('rejected', `eth_sendRawTransaction: the node refused the transaction (${said})`, { method: 'eth_sendRawTransaction', cause: error.cause });
    }
  }

  /** A transaction's state: pending (no receipt), or mined with its confirmations and outcome. */
  async receipt(txHash: Hex): Promise<TransactionStatus> {
    const receipt = await this.rpc.call('eth_getTransactionReceipt', async (client) => {
      try {
        return await client.getTransactionReceipt({ hash: txHash });
      } catch (error) {
        if (error instanceof Error && error.name === 'TransactionReceiptNotFoundError') return null;
        throw error;
      }
    });
    if (!receipt) return { status: 'pending' };
    const latest = await this.latestBlock();
    const blockNumber = Number(receipt.blockNumber);
    return {
      status: receipt.status === 'success' ? 'success' : 'reverted',
      blockNumber,
      blockHash: lower(receipt.blockHash),
      confirmations: Math.max(0, latest - blockNumber + 1),
      gasUsed: receipt.gasUsed,
    };
  }

  /** The next nonce counting the mempool (`pending`) of `address` (default: the hot wallet). */
  async pendingNonce(address?: string): Promise<number> {
    return this.#nonce(address, 'pending');
  }

  /** The number of mined transactions of `address` (default: the hot wallet): the next nonce the chain will accept. */
  async latestNonce(address?: string): Promise<number> {
    return this.#nonce(address, 'latest');
  }

  async #nonce(address: string | undefined, blockTag: 'pending' | 'latest'): Promise<number> {
    const who = address ? this.#address(address) : this.#hot().address;
    return this.rpc.call('eth_getTransactionCount', (client) => client.getTransactionCount({ address: who, blockTag }));
  }

  /** Native balance (gas money) of `address` in wei; `pending` counts the mempool where the node supports it. */
  async nativeBalance(address: string, blockTag: 'latest' | 'pending' = 'latest'): Promise<bigint> {
    const who = this.#address(address);
    return this.rpc.call('eth_getBalance', (client) => client.getBalance({ address: who, blockTag }));
  }

  /** Token balance of `address` in the token's smallest units. */
  async tokenUnits(assetId: AssetId, address: string): Promise<bigint> {
    const token = this.token(assetId);
    const who = this.#address(address);
    return this.rpc.call('balanceOf()', (client) => client.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [who] }));
  }

  /** Token balance of `address` as an exact decimal string in the asset's units. */
  async tokenBalance(assetId: AssetId, address: string): Promise<string> {
    return formatUnits(await this.tokenUnits(assetId, address), this.token(assetId).decimals);
  }

  /** Closes the node connection (WebSocket); the object is unusable afterwards. */
  async close(): Promise<void> {
    await this.rpc.close();
  }

  #address(input: string): Address {
    const check = checkEvmAddress(input);
    if (!check.ok) throw new TypeError(check.message);
    return check.address as Address;
  }

  #units(amount: string, token: EvmToken): bigint {
    if (!/^\d+(\.\d+)?$/.test(amount)) throw new RangeError(`amount must be a decimal string such as "12.5", not "${amount}"`);
    const fraction = amount.split('.')[1]?.replace(/0+$/, '') ?? '';
    if (fraction.length > token.decimals) throw new RangeError(`${token.assetId} has ${token.decimals} decimals; ${amount} has more`);
    const units = parseUnits(amount, token.decimals);
    if (units <= 0n) throw new RangeError('amount must be more than 0');
    return units;
  }
}

type Refusal = BroadcastOutcome | 'insufficient_funds' | 'fee_too_low' | 'nonce_too_high' | 'rejected';

/** A node's refusal of a raw transaction, as it words it (geth, BSC, erigon, nethermind, reth, anvil). */
export function classifyRefusal(message: string): Exclude<Refusal, 'sent'> | null {
  const text = message.toLowerCase();
  if (/already known|already imported|known transaction|alreadyknown|already exists|already in (the )?(tx)?pool/.test(text)) return 'already_known';
  if (/nonce too low|nonce is too low|oldnonce|nonce has already been used|nonce.*(lower|less) than (the )?(current|account|expected)/.test(text)) return 'nonce_too_low';
  if (/replacement transaction underpriced|replacement.*underpriced|replacementnotallowed|could not replace existing/.test(text)) return 'replacement_underpriced';
  if (/insufficient funds|insufficient balance for transfer|insufficientfunds/.test(text)) return 'insufficient_funds';
  if (/underpriced|fee too low|feetoolow|less than (the )?block base fee|gas price too low|max fee per gas less than|tip too low/.test(text)) return 'fee_too_low';
  if (/nonce too high|nonce gap|noncegap/.test(text)) return 'nonce_too_high';
  if (/invalid (chain id|sender|signature|transaction)|intrinsic gas too low|exceeds block gas limit|gas limit reached|oversized|rlp/.test(text)) return 'rejected';
  return null;
}

/** Internal: carries a classified refusal through the retry loop untouched. */
class BroadcastRefusal extends Error {
  constructor(
    readonly refusal: Exclude<Refusal, 'sent'>,
    readonly said: string,
    override readonly cause: unknown,
  ) {
    super(said);
    this.name = 'BroadcastRefusal';
  }
}
