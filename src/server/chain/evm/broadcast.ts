/**
 * Sending stored transactions and following them: `broadcast` sends the exact signed bytes (again,
 * as often as needed) and maps the node's "already known", "nonce too low" and "replacement
 * underpriced" to outcomes that all mean "read the receipt"; `receipt` says pending, success or
 * reverted, with the confirmations and the receipt's logs (what a payout really delivered).
 * `broadcastMany` and `receipts` do the same for a batch of payouts in one JSON-RPC batch each.
 *
 * With several nodes, one node's "no receipt" is not the chain's: a node that lags, or whose view
 * has the sender's nonce moved on but not yet the transaction, says so of a mined transaction. So
 * `receipts` asks every node before calling a transaction pending, and giving a stored transaction
 * up is decided by every node together (`nonceReplaced`, `transactionKnown`), never by the first that
 * answers.
 */
import { formatTransactionReceipt, keccak256, numberToHex, type Address, type Hex, type Log, type PublicClient, type RpcTransactionReceipt, type TransactionReceipt } from 'viem';
import { type ChainContext, lower } from './context.js';
import { EvmChainError, nodeMessage, redact, toChainError } from './errors.js';
import { orNull } from './transfers.js';

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
  | { status: 'success' | 'reverted'; blockNumber: number; blockHash: Hex; confirmations: number; gasUsed: bigint; logs: readonly Log[] };

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

/** What a refusal the caller must act on becomes (`EvmChainError`), or the outcome that means "read the receipt". */
function refused(txHash: Hex, refusal: Exclude<Refusal, 'sent'>, words: string, cause: unknown): BroadcastResult {
  if (refusal === 'already_known' || refusal === 'nonce_too_low' || refusal === 'replacement_underpriced') return { outcome: refusal, txHash };
  const said = redact(words);
  const method = 'eth_sendRawTransaction';
  if (refusal === 'insufficient_funds') throw new EvmChainError('insufficient_funds', `${method}: the sender cannot pay for this transaction (${said})`, { method, cause });
  if (refusal === 'nonce_too_high') throw new EvmChainError('nonce_too_high', `${method}: an earlier nonce of the sender is not mined or pending yet (${said})`, { method, cause });
  if (refusal === 'fee_too_low') throw new EvmChainError('fee_too_low', `${method}: the fee is too low for the node now (${said})`, { method, cause });
  throw new EvmChainError('rejected', `${method}: the node refused the transaction (${said})`, { method, cause });
}

/** The hash a node answered for `txHash`'s raw transaction, checked. */
function sentAs(txHash: Hex, answered: unknown): BroadcastResult {
  if (typeof answered !== 'string' || lower(answered) !== txHash) {
    throw new EvmChainError('bad_response', `eth_sendRawTransaction: the node reported hash ${String(answered)} for ${txHash}`, { method: 'eth_sendRawTransaction' });
  }
  return { outcome: 'sent', txHash };
}

/**
 * Sends a signed transaction (`eth_sendRawTransaction`). Safe to repeat with the same raw
 * transaction: a repeat answers `already_known` or `nonce_too_low`, never a second transfer.
 * Refusals the caller must act on throw `EvmChainError`: `insufficient_funds` (top up the hot
 * wallet; retryable), `fee_too_low` (retryable), `nonce_too_high` (an earlier nonce is missing;
 * retryable once it is sent), `rejected` (the transaction can never go).
 */
export async function broadcast(ctx: ChainContext, rawTransaction: Hex): Promise<BroadcastResult> {
  const txHash = lower(keccak256(rawTransaction));
  try {
    const sent = await ctx.rpc.call('eth_sendRawTransaction', async (client) => {
      try {
        return await client.sendRawTransaction({ serializedTransaction: rawTransaction });
      } catch (error) {
        // Classify the node's refusals here, before they look like generic node errors.
        const refusal = classifyRefusal(nodeMessage(error));
        if (refusal) throw new BroadcastRefusal(refusal, nodeMessage(error), error);
        throw error;
      }
    });
    return sentAs(txHash, sent);
  } catch (error) {
    if (!(error instanceof BroadcastRefusal)) throw error;
    return refused(txHash, error.refusal, error.said, error.cause);
  }
}

/**
 * Sends several signed transactions in one JSON-RPC batch, in their order (a batch of payouts,
 * lowest nonce first). Each settles as `broadcast` would; a node that did not answer the batch at
 * all (after failover) fails them all.
 */
export async function broadcastMany(ctx: ChainContext, rawTransactions: readonly Hex[]): Promise<Array<PromiseSettledResult<BroadcastResult>>> {
  const answers = await ctx.rpc.batch('eth_sendRawTransaction', rawTransactions.map((raw) => [raw]));
  return answers.map((answer, i) => {
    const txHash = lower(keccak256(rawTransactions[i]!));
    try {
      if (answer.status === 'fulfilled') return { status: 'fulfilled', value: sentAs(txHash, answer.value) };
      const refusal = classifyRefusal(nodeMessage(answer.reason));
      if (!refusal) throw toChainError(answer.reason, 'eth_sendRawTransaction');
      return { status: 'fulfilled', value: refused(txHash, refusal, nodeMessage(answer.reason), answer.reason) };
    } catch (reason) {
      return { status: 'rejected', reason };
    }
  });
}

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
  const found = await ctx.rpc.call('eth_getTransactionReceipt', (client) => orNull(client.getTransactionReceipt({ hash: txHash }), 'TransactionReceiptNotFoundError'));
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
  const answers = await ctx.rpc.batch('eth_getTransactionReceipt', txHashes.map((hash) => [hash]));
  await receiptsElsewhere(ctx, txHashes, answers);
  const states = answers.map((answer): PromiseSettledResult<TransactionStatus> => {
    if (answer.status === 'rejected') return { status: 'rejected', reason: toChainError(answer.reason, 'eth_getTransactionReceipt') };
    try {
      const found = answer.value ? formatTransactionReceipt(answer.value as RpcTransactionReceipt) : null;
      return { status: 'fulfilled', value: statusOf(found, latest) };
    } catch (error) {
      return { status: 'rejected', reason: new EvmChainError('bad_response', 'eth_getTransactionReceipt: the node answered a malformed receipt', { method: 'eth_getTransactionReceipt', cause: error }) };
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
async function canonicalOnly(ctx: ChainContext, states: Array<PromiseSettledResult<TransactionStatus>>): Promise<Array<PromiseSettledResult<TransactionStatus>>> {
  const heights = [...new Set(states.flatMap((state) => (state.status === 'fulfilled' && state.value.status !== 'pending' ? [state.value.blockNumber] : [])))];
  if (heights.length === 0) return states;
  const method = 'eth_getBlockByNumber';
  // Only a node that has reached the highest of these blocks can say which is canonical at each height.
  let blocks: Array<PromiseSettledResult<unknown>>;
  try {
    blocks = await ctx.rpc.batch(method, heights.map((height) => [numberToHex(height), false]), { atLeast: Math.max(...heights) });
  } catch (error) {
    blocks = heights.map((): PromiseRejectedResult => ({ status: 'rejected', reason: error }));
  }
  const canonical = new Map(heights.map((height, i) => [height, blocks[i]!]));
  return states.map((state): PromiseSettledResult<TransactionStatus> => {
    if (state.status === 'rejected' || state.value.status === 'pending') return state;
    const block = canonical.get(state.value.blockNumber)!;
    if (block.status === 'rejected') return { status: 'rejected', reason: toChainError(block.reason, method) };
    const hash = (block.value as { hash?: unknown } | null)?.hash;
    if (typeof hash !== 'string') return { status: 'rejected', reason: new EvmChainError('lagging', `${method}: the node has no block ${state.value.blockNumber} yet`, { method }) };
    return lower(hash) === state.value.blockHash ? state : { status: 'fulfilled', value: { status: 'pending' } };
  });
}

/** Fills in `answers` (in place) the receipts one node had none of, from any other node that has them. */
async function receiptsElsewhere(ctx: ChainContext, txHashes: readonly Hex[], answers: Array<PromiseSettledResult<unknown>>): Promise<void> {
  if (ctx.rpc.nodes < 2) return;
  const missing = answers.flatMap((answer, i) => (answer.status === 'fulfilled' && !answer.value ? [i] : []));
  if (missing.length === 0) return;
  const method = 'eth_getTransactionReceipt';
  const nodes = await ctx.rpc.eachNode(method, (_client, batch) => batch(method, missing.map((i) => [txHashes[i]])));
  for (const node of nodes) {
    if (node.status === 'rejected') continue; // it cannot make a transaction look pending: its silence is not "none"
    for (const [j, answer] of node.value.entries()) {
      const i = missing[j]!;
      if (answer.status === 'fulfilled' && answer.value && !(answers[i] as PromiseFulfilledResult<unknown>).value) answers[i] = answer;
    }
  }
}

/** Whether a stored transaction's nonce is used for good by another transaction (`nonceReplaced`). */
export type NonceVerdict =
  /** Certain: the stored transaction can never be mined. `nextNonce`: the sender's transactions in the finalized block. */
  | { replaced: true; nextNonce: number }
  /** Not certain (yet): leave the stored transaction as it is and ask again later; `why` says what is missing. */
  | { replaced: false; why: string };

/**
 * Whether `from`'s `nonce` is used for good by a transaction other than `txHash`: the one reason to
 * give `txHash` up and sign its payment again. Every node is asked, each in this order: its finalized
 * block (`finalOn`, on that node), `from`'s transaction count at that block (by its hash, canonical),
 * then the receipt of `txHash`.
 *
 * Certain when some node has a finalized block with `nonce` used in it, and no node has a receipt of
 * `txHash`. That node had the block when it was asked for the receipt (in that order), so had
 * `txHash` used the nonce, in that block or before it, the node would have its receipt; a final block
 * is not reorged, so the nonce stays used by the other transaction. Any node with a receipt (of any
 * block, even one a reorg may take back), or a node that does not answer (its receipt is unheard),
 * leaves it uncertain; so does a nonce not yet used at any node's finalized block.
 */
export async function nonceReplaced(
  ctx: ChainContext,
  from: Address,
  nonce: number,
  txHash: Hex,
  finalOn: (client: PublicClient) => Promise<{ number: number; hash: Hex }>,
): Promise<NonceVerdict> {
  const answers = await ctx.rpc.eachNode('eth_getTransactionReceipt', async (client) => {
    let used: { count: number; block: number } | undefined;
    try {
      const final = await finalOn(client);
      const count = await client.request({ method: 'eth_getTransactionCount', params: [from, { blockHash: final.hash, requireCanonical: true }] });
      used = { count: Number(count), block: final.number };
    } catch {
      // No finalized block, or no state by its hash, on this node (it lags, or fails): it proves nothing.
    }
    const mined = await orNull(client.getTransactionReceipt({ hash: txHash }), 'TransactionReceiptNotFoundError');
    return { used, mined: mined !== null };
  });
  const of = `of ${answers.length}`;
  const withReceipt = answers.findIndex((answer) => answer.status === 'fulfilled' && answer.value.mined);
  if (withReceipt >= 0) return { replaced: false, why: `node ${withReceipt + 1} ${of} has its receipt` };
  const silent = answers.findIndex((answer) => answer.status === 'rejected');
  if (silent >= 0) return { replaced: false, why: `node ${silent + 1} ${of} did not answer` };
  const proofs = answers.flatMap((answer) => (answer.status === 'fulfilled' && answer.value.used ? [answer.value.used] : []));
  const next = Math.max(0, ...proofs.map((proof) => proof.count));
  if (next <= nonce) {
    const newest = Math.max(-1, ...proofs.map((proof) => proof.block));
    return { replaced: false, why: newest < 0 ? 'no node could read its finalized block' : `its nonce is not used at the finalized block ${newest} yet` };
  }
  return { replaced: true, nextNonce: next };
}

/**
 * True when any node has `txHash`, in its mempool or in a block. Throws when a node does not answer:
 * then nobody can say that no node has it.
 */
export async function transactionKnown(ctx: ChainContext, txHash: Hex): Promise<boolean> {
  const answers = await ctx.rpc.eachNode('eth_getTransactionByHash', (client) => orNull(client.getTransaction({ hash: txHash }), 'TransactionNotFoundError'));
  if (answers.some((answer) => answer.status === 'fulfilled' && answer.value !== null)) return true;
  const silent = answers.find((answer): answer is PromiseRejectedResult => answer.status === 'rejected');
  if (silent) throw silent.reason;
  return false;
}
