/**
 * Following sent transactions: `receipt` says pending, success or reverted, with the confirmations
 * and the receipt's logs (what a payout really delivered); `receipts` does the same for a batch of
 * payouts in one JSON-RPC batch.
 *
 * With several nodes, one node's "no receipt" is not the chain's: a node that lags, or whose view
 * has the sender's nonce moved on but not yet the transaction, says so of a mined transaction. So
 * `receipts` asks every node before calling a transaction pending, and counts a receipt only in the
 * canonical block at its height.
 */
import { formatTransactionReceipt, numberToHex, type Hex, type Log, type RpcTransactionReceipt, type TransactionReceipt } from 'viem';
import { type ChainContext, lower } from './context.js';
import { EvmChainError, toChainError } from './errors.js';
import { askOtherNodes } from './rpc.js';
import { orNull } from './transfers.js';

/** A transaction's state on the chain. */
export type TransactionStatus =
  /** In no block: in a mempool, or unknown to this node (re-broadcast the stored raw transaction). */
  { status: 'pending' } | { status: 'success' | 'reverted'; blockNumber: number; blockHash: Hex; confirmations: number; gasUsed: bigint; logs: readonly Log[] };

/** A receipt (or none) as a transaction's state, with its confirmations below `head`. */
function statusOf(found: TransactionReceipt | null, head: number): TransactionStatus {
  if (!found) return { status: 'pending' };
  const blockNumber = Number(found.blockNumber);
  return {
    status: found.status === 'success' ? 'success' : 'reverted',
    blockNumber,
    blockHash: lower(found.blockHash),
    confirmations: Math.max(0, head - blockNumber + 1),
    gasUsed: found.gasUsed,
    logs: found.logs,
  };
}

/** A transaction's state: pending (no receipt), or mined with its confirmations, outcome and logs. `latest` saves a call when known. */
export async function receipt(ctx: ChainContext, txHash: Hex, latest?: number): Promise<TransactionStatus> {
  const found = await ctx.rpc.call('eth_getTransactionReceipt', (client) =>
    orNull(client.getTransactionReceipt({ hash: txHash }), 'TransactionReceiptNotFoundError'),
  );
  if (!found) return { status: 'pending' };
  return statusOf(found, latest ?? (await ctx.rpc.head()));
}

/**
 * The states of several transactions, their receipts read in one JSON-RPC batch; confirmations are
 * counted below `latest` (read before, so none is over-counted). Each settles on its own. Those the
 * node asked has no receipt of are asked of every node (one batch each) before they count as pending,
 * and a receipt counts only in the canonical block at its height (one more batch for those blocks).
 */
export async function receipts(ctx: ChainContext, txHashes: readonly Hex[], latest: number): Promise<Array<PromiseSettledResult<TransactionStatus>>> {
  const answers = await ctx.rpc.batch(
    'eth_getTransactionReceipt',
    txHashes.map((hash) => [hash]),
  );
  await receiptsElsewhere(ctx, txHashes, answers);
  const states = answers.map((answer): PromiseSettledResult<TransactionStatus> => {
    if (answer.status === 'rejected') return { status: 'rejected', reason: toChainError(answer.reason, 'eth_getTransactionReceipt') };
    try {
      const found = answer.value ? formatTransactionReceipt(answer.value as RpcTransactionReceipt) : null;
      return { status: 'fulfilled', value: statusOf(found, latest) };
    } catch (error) {
      return {
        status: 'rejected',
        reason: new EvmChainError('bad_response', 'eth_getTransactionReceipt: the node answered a malformed receipt', {
          method: 'eth_getTransactionReceipt',
          cause: error,
        }),
      };
    }
  });
  return canonicalOnly(ctx, states);
}

/**
 * Keeps a mined state only where its block is the canonical one at its height, as the preferred node
 * has it: a receipt from a node on a fork that lost (or read while a reorg is under way) would
 * otherwise end a payout by a block the chain does not have, and a reverted one would hand its funds
 * back. Such a transaction is pending again (its stored bytes go again: never a second payout); where
 * the canonical block cannot be read (no node that has reached it answers), its state is unknown for now.
 */
async function canonicalOnly(
  ctx: ChainContext,
  states: Array<PromiseSettledResult<TransactionStatus>>,
): Promise<Array<PromiseSettledResult<TransactionStatus>>> {
  const heights = [...new Set(states.flatMap((state) => (state.status === 'fulfilled' && state.value.status !== 'pending' ? [state.value.blockNumber] : [])))];
  if (heights.length === 0) return states;
  const method = 'eth_getBlockByNumber';
  // Only a node that has reached the highest of these blocks can say which is canonical at each height.
  let blocks: Array<PromiseSettledResult<unknown>>;
  try {
    blocks = await ctx.rpc.batch(
      method,
      heights.map((height) => [numberToHex(height), false]),
      { atLeast: Math.max(...heights) },
    );
  } catch (error) {
    blocks = heights.map((): PromiseRejectedResult => ({ status: 'rejected', reason: error }));
  }
  const canonical = new Map(heights.map((height, i) => [height, blocks[i]!]));
  return states.map((state): PromiseSettledResult<TransactionStatus> => {
    if (state.status === 'rejected' || state.value.status === 'pending') return state;
    const block = canonical.get(state.value.blockNumber)!;
    if (block.status === 'rejected') return { status: 'rejected', reason: toChainError(block.reason, method) };
    const hash = (block.value as { hash?: unknown } | null)?.hash;
    if (typeof hash !== 'string')
      return { status: 'rejected', reason: new EvmChainError('lagging', `${method}: the node has no block ${state.value.blockNumber} yet`, { method }) };
    return lower(hash) === state.value.blockHash ? state : { status: 'fulfilled', value: { status: 'pending' } };
  });
}

/**
 * Fills in `answers` (in place) the receipts one node had none of, from any other node that has them.
 * A node that does not answer cannot make a transaction look pending: its silence is not "none".
 */
async function receiptsElsewhere(ctx: ChainContext, txHashes: readonly Hex[], answers: Array<PromiseSettledResult<unknown>>): Promise<void> {
  const missing = answers.flatMap((answer, i) => (answer.status === 'fulfilled' && !answer.value ? [i] : []));
  await askOtherNodes(
    ctx.rpc,
    'eth_getTransactionReceipt',
    missing,
    (i) => [txHashes[i]],
    answers,
    (current, offered) => offered.status === 'fulfilled' && !!offered.value && !(current as PromiseFulfilledResult<unknown>).value,
  );
}
