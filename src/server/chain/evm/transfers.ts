/**
 * ERC-20 `Transfer` logs of the configured tokens: decoding them into transfers, naming each one for
 * good (its ordinal), re-checking a transfer seen earlier by its transaction's receipt (anvil does
 * not mark reorged logs `removed`, and neither does a node asked after the fact: only a re-check
 * tells), and reading from a receipt what a recipient really received (a fee-charging token
 * delivers less than the `transfer` call asked).
 */
import { erc20Abi, formatUnits, getAddress, parseEventLogs, type Address, type Hex, type Log } from 'viem';
import type { AssetId } from '../../../core/money.js';
import { type ChainContext, lower } from './context.js';
import { EvmChainError } from './errors.js';

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

/** The fields of a decoded Transfer log that matter here (viem's logs have more). */
export interface TransferLog {
  address: Address;
  args: { from: Address; to: Address; value: bigint };
  transactionHash: Hex | null;
  logIndex: number | null;
  blockNumber: bigint | null;
  blockHash: Hex | null;
  removed?: boolean;
}

/** The ERC-20 `Transfer` event, as viem's filters and decoders take it. */
export const TRANSFER_EVENT = erc20Abi.filter((item) => item.type === 'event' && item.name === 'Transfer');

/** A log of a configured token as a transfer; null for another contract's log or one not mined yet. */
export function toTransfer(ctx: ChainContext, log: TransferLog): EvmTransfer | null {
  const token = ctx.byToken.get(log.address.toLowerCase());
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
 * The transfers of `logs` (duplicates and `removed` logs dropped), oldest first, each with its
 * ordinal. A transaction's logs are all in one block and one query, so all of its transfers to one
 * address are in the list, in log order.
 */
export function transfersOf(ctx: ChainContext, logs: readonly TransferLog[]): EvmTransfer[] {
  const seen = new Set<string>();
  const transfers: EvmTransfer[] = [];
  for (const log of logs) {
    if (log.removed) continue;
    const key = `${log.blockHash}:${log.logIndex}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const transfer = toTransfer(ctx, log);
    if (transfer) transfers.push(transfer);
  }
  transfers.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
  const counts = new Map<string, number>();
  for (const transfer of transfers) {
    const key = `${transfer.txHash}:${transfer.token}:${transfer.to}`;
    transfer.ordinal = counts.get(key) ?? 0;
    counts.set(key, transfer.ordinal + 1);
  }
  return transfers;
}

/** The Transfer logs in a receipt's `logs` from `token` to `to`, in log order. */
function transfersTo(logs: readonly Log[], token: string, to: string) {
  return parseEventLogs({ abi: TRANSFER_EVENT, logs: logs as Log[], strict: true }).filter(
    (log) => log.address.toLowerCase() === token.toLowerCase() && log.args.to.toLowerCase() === to.toLowerCase(),
  );
}

/**
 * What `to` received of `token` in a receipt (base units): the sum of the token's Transfer logs to
 * it. A plain token delivers what the transfer asked; a fee-charging one less.
 */
export function receivedUnits(logs: readonly Log[], token: string, to: string): bigint {
  return transfersTo(logs, token, to).reduce((sum, log) => sum + log.args.value, 0n);
}

/** What `promise` resolves with, or null when it fails with viem's "not found" error `notFound`. */
export async function orNull<T>(promise: Promise<T>, notFound: string): Promise<T | null> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof Error && error.name === notFound) return null;
    throw error;
  }
}

/** The hash (lowercase) of canonical block `number`, or null when the node has no such block yet. */
export async function blockHashAt(ctx: ChainContext, number: number): Promise<Hex | null> {
  const block = await ctx.rpc.call('eth_getBlockByNumber', (client) => orNull(client.getBlock({ blockNumber: BigInt(number) }), 'BlockNotFoundError'));
  return block?.hash ? lower(block.hash) : null;
}

/**
 * Re-checks a transfer seen earlier by its transaction's receipt, whose block must be canonical.
 * `latestBlock` is the tip the caller judges by: only a node that has reached it is asked, so a
 * node lagging behind never makes a transfer look gone.
 */
export async function recheckTransfer(ctx: ChainContext, transfer: EvmTransfer, latestBlock: number): Promise<TransferCheck> {
  const at = { atLeast: latestBlock };
  const receipt = await ctx.rpc.call(
    'eth_getTransactionReceipt',
    (client) => orNull(client.getTransactionReceipt({ hash: transfer.txHash }), 'TransactionReceiptNotFoundError'),
    at,
  );
  if (!receipt) {
    const pending = await ctx.rpc.call(
      'eth_getTransactionByHash',
      (client) => orNull(client.getTransaction({ hash: transfer.txHash }), 'TransactionNotFoundError'),
      at,
    );
    return pending && pending.blockHash === null ? { status: 'pending' } : { status: 'gone' };
  }
  const blockNumber = Number(receipt.blockNumber);
  const canonical = await blockHashAt(ctx, blockNumber);
  if (canonical !== lower(receipt.blockHash)) {
    // The node's index and its chain disagree: a reorg is under way. Ask again later.
    throw new EvmChainError('node_error', `eth_getTransactionReceipt: ${transfer.txHash} points to a block that is not canonical (reorg under way)`, {
      method: 'eth_getTransactionReceipt',
    });
  }
  if (receipt.status !== 'success') return { status: 'gone' };
  const log = transfersTo(receipt.logs, transfer.token, transfer.to)[transfer.ordinal];
  const now = log ? toTransfer(ctx, log) : null;
  if (!now || now.amount !== transfer.amount || now.from !== getAddress(transfer.from)) return { status: 'gone' };
  now.ordinal = transfer.ordinal;
  const confirmations = Math.max(0, latestBlock - blockNumber + 1);
  return now.blockHash === lower(transfer.blockHash)
    ? { status: 'canonical', confirmations, transfer: now }
    : { status: 'moved', confirmations, transfer: now };
}
