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
import {
  formatTransactionReceipt,
  keccak256,
  numberToHex,
  type Address,
  type Hex,
  type Log,
  type PublicClient,
  type RpcTransactionReceipt,
  type TransactionReceipt,
} from 'viem';
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
  { status: 'pending' } | { status: 'success' | 'reverted'; blockNumber: number; blockHash: Hex; confirmations: number; gasUsed: bigint; logs: readonly Log[] };

type Refusal = BroadcastOutcome | 'insufficient_funds' | 'fee_too_low' | 'nonce_too_high' | 'rejected';

/** A node's refusal of a raw transaction, as it words it (geth, BSC, erigon, nethermind, reth, anvil). */
export function classifyRefusal(message: string): Exclude<Refusal, 'sent'> | null {
  const text = message.toLowerCase();
  if (/already known|already imported|known transaction|alreadyknown|already exists|already in (the )?(tx)?pool/.test(text)) return 'already_known';
  if (/nonce too low|nonce is too low|oldnonce|nonce has already been used|nonce.*(lower|less) than (the )?(current|account|expected)/.test(text))
    return 'nonce_too_low';
  if (/replacement transaction underpriced|replacement.*underpriced|replacementnotallowed|could not replace existing/.test(text))
    return 'replacement_underpriced';
  if (/insufficient funds|insufficient balance for transfer|insufficientfunds/.test(text)) return 'insufficient_funds';
  if (/underpriced|fee too low|feetoolow|less than (the )?block base fee|gas price too low|max fee per gas less than|tip too low/.test(text))
    return 'fee_too_low';
  if (/nonce too high|nonce gap|noncegap/.test(text)) return 'nonce_too_high';
  if (/invalid (chain id|sender|signature|transaction)|intrinsic gas too low|exceeds block gas limit|gas limit reached|oversized|rlp/.test(text))
    return 'rejected';
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
  if (refusal === 'insufficient_funds')
    throw new EvmChainError('insufficient_funds', `${method}: the sender cannot pay for this transaction (${said})`, { method, cause });
  if (refusal === 'nonce_too_high')
    throw new EvmChainError('nonce_too_high', `${method}: an earlier nonce of the sender is not mined or pending yet (${said})`, { method, cause });
  if (refusal === 'fee_too_low') throw new EvmChainError('fee_too_low', `${method}: the fee is too low for the node now (${said})`, { method, cause });
  throw new EvmChainError('rejected', `${method}: the node refused the transaction (${said})`, { method, cause });
}

/** The hash a node answered for `txHash`'s raw transaction, checked. */
function sentAs(txHash: Hex, answered: unknown): BroadcastResult {
  if (typeof answered !== 'string' || lower(answered) !== txHash) {
    throw new EvmChainError('bad_response', `eth_sendRawTransaction: the node reported hash ${String(answered)} for ${txHash}`, {
      method: 'eth_sendRawTransaction',
    });
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
    if (error instanceof BroadcastRefusal) return refused(txHash, error.refusal, error.said, error.cause);
    if (ctx.rpc.nodes < 2 || !methodRefused(error)) throw error;
    const answers: Array<PromiseSettledResult<unknown>> = [{ status: 'rejected', reason: error }];
    await sendElsewhere(ctx, [rawTransaction], answers);
    return settleSent(txHash, answers[0]!);
  }
}

/** Whether a node refused the call itself (an HTTP 4xx, a plan or node without the method), not the transaction. */
function methodRefused(reason: unknown): boolean {
  if (classifyRefusal(nodeMessage(reason))) return false;
  const error = toChainError(reason, 'eth_sendRawTransaction');
  return error instanceof EvmChainError && error.code === 'unsupported';
}

/**
 * Sends again, to every other URL, the transactions a URL refused as a call (`methodRefused`): one
 * provider's plan without the method must not fail every payout. The first URL that answers one (its
 * hash, or a refusal of the transaction) speaks for it, in `answers` (in place). The same bytes, so
 * never a second transfer.
 */
async function sendElsewhere(ctx: ChainContext, rawTransactions: readonly Hex[], answers: Array<PromiseSettledResult<unknown>>): Promise<void> {
  if (ctx.rpc.nodes < 2) return;
  const refusedAt = answers.flatMap((answer, i) => (answer.status === 'rejected' && methodRefused(answer.reason) ? [i] : []));
  if (refusedAt.length === 0) return;
  const method = 'eth_sendRawTransaction';
  const nodes = await ctx.rpc.eachNode(method, (_client, batch) =>
    batch(
      method,
      refusedAt.map((i) => [rawTransactions[i]]),
    ),
  );
  for (const node of nodes) {
    if (node.status === 'rejected') continue;
    for (const [j, answer] of node.value.entries()) {
      const i = refusedAt[j]!;
      const now = answers[i]!;
      if (now.status === 'rejected' && methodRefused(now.reason) && (answer.status === 'fulfilled' || !methodRefused(answer.reason))) answers[i] = answer;
    }
  }
}

/** One answer to `eth_sendRawTransaction` as `broadcast` settles it: an outcome, or the error to throw. */
function settleSent(txHash: Hex, answer: PromiseSettledResult<unknown>): BroadcastResult {
  if (answer.status === 'fulfilled') return sentAs(txHash, answer.value);
  const refusal = classifyRefusal(nodeMessage(answer.reason));
  if (!refusal) throw toChainError(answer.reason, 'eth_sendRawTransaction');
  return refused(txHash, refusal, nodeMessage(answer.reason), answer.reason);
}

/**
 * Sends several signed transactions in one JSON-RPC batch, in their order (a batch of payouts,
 * lowest nonce first). Each settles as `broadcast` would; a node that did not answer the batch at
 * all (after failover) fails them all. Those a node refused as a call (an HTTP 4xx) go to the
 * other URLs (`sendElsewhere`).
 */
export async function broadcastMany(ctx: ChainContext, rawTransactions: readonly Hex[]): Promise<Array<PromiseSettledResult<BroadcastResult>>> {
  const answers = await ctx.rpc.batch(
    'eth_sendRawTransaction',
    rawTransactions.map((raw) => [raw]),
  );
  await sendElsewhere(ctx, rawTransactions, answers);
  return answers.map((answer, i) => {
    const txHash = lower(keccak256(rawTransactions[i]!));
    try {
      return { status: 'fulfilled', value: settleSent(txHash, answer) };
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

/** Fills in `answers` (in place) the receipts one node had none of, from any other node that has them. */
async function receiptsElsewhere(ctx: ChainContext, txHashes: readonly Hex[], answers: Array<PromiseSettledResult<unknown>>): Promise<void> {
  if (ctx.rpc.nodes < 2) return;
  const missing = answers.flatMap((answer, i) => (answer.status === 'fulfilled' && !answer.value ? [i] : []));
  if (missing.length === 0) return;
  const method = 'eth_getTransactionReceipt';
  const nodes = await ctx.rpc.eachNode(method, (_client, batch) =>
    batch(
      method,
      missing.map((i) => [txHashes[i]]),
    ),
  );
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
  /** Certain: the stored transaction can never be mined. `nextNonce`: the sender's transactions at a final block. */
  | { replaced: true; nextNonce: number }
  /**
   * Not certain (yet): leave the stored transaction as it is and ask again later; `why` says what is
   * missing. `mined`: a node has its receipt (the harmless case: it used its own nonce).
   */
  | { replaced: false; why: string; mined?: boolean };

/** A node's finalized block, and whether the node named it (`finalized` tag) or it was counted by depth. */
export interface FinalOnNode {
  number: number;
  hash: Hex;
  byTag: boolean;
}

/**
 * What `nonceReplaced` keeps of one stored transaction between its calls (in memory: a restart only
 * starts the wait again, the safe direction).
 */
export interface NonceProof {
  /** A recent block where a node counted the nonce used: a proof once it is final and still canonical. */
  anchor?: { number: number; hash: Hex; count: number } | undefined;
  /** The first verdict that found the proof final: when (ms), and the finalized block it saw. */
  first?: { at: number; finalized: number } | undefined;
}

/** How sure `nonceReplaced` must be: how long the first proof must hold before it is believed. */
export interface NonceProofRules {
  /** The least time between the first final proof and the one that confirms it, in ms. */
  confirmAfterMs: number;
  /** The clock (ms). */
  now: () => number;
}

/** One node's answers, in the order they are read (see `nonceReplaced`). */
interface NodeView {
  /** The node's latest block and the sender's transaction count there (or why it could not be read). */
  recent: { number: number; hash: Hex; count?: number | undefined; error?: string | undefined };
  final?: FinalOnNode | undefined;
  finalError?: string | undefined;
  /** The hash of the block at the remembered anchor's height, on this node (null: it has none). */
  anchorHash?: Hex | null | undefined;
  mined: boolean;
  known: boolean;
}

/**
 * `from`'s transaction count at `block`, read by its hash where the node takes that form, else by its
 * number with the block's hash checked again afterwards (some providers refuse the by-hash form).
 */
async function countAt(client: PublicClient, from: Address, block: { number: number; hash: Hex }): Promise<number> {
  try {
    return Number(await client.request({ method: 'eth_getTransactionCount', params: [from, { blockHash: block.hash, requireCanonical: true }] }));
  } catch (byHash) {
    const error = toChainError(byHash, 'eth_getTransactionCount');
    if (error instanceof EvmChainError && error.retryable) throw byHash;
    const count = Number(await client.request({ method: 'eth_getTransactionCount', params: [from, numberToHex(block.number)] }));
    const again = await client.getBlock({ blockNumber: BigInt(block.number) });
    if (lower(again.hash ?? '0x') !== block.hash)
      throw new EvmChainError('lagging', `eth_getTransactionCount: block ${block.number} changed while it was read`, { method: 'eth_getTransactionCount' });
    return count;
  }
}

/** A node's error, short and without its URL, for a reason the operator reads. */
function said(error: unknown): string {
  return redact(nodeMessage(error)).split('\n')[0]!.slice(0, 200);
}

/**
 * Whether `from`'s `nonce` is used for good by a transaction other than `txHash`: the one reason to
 * give `txHash` up and sign its payment again. Every node is asked, each in this order: its latest
 * block B and `from`'s transaction count there (by B's hash: recent state, which every node keeps),
 * its finalized block (`finalOn`), the block at the remembered anchor's height, then the receipt of
 * `txHash` and `txHash` itself.
 *
 * A node that counts the nonce used at B, and (asked after) has no receipt, makes B the anchor
 * (`proof.anchor`). It proves the nonce used for good once a node's finalized block has reached B and
 * that node still has B at its height (the anchor is dropped when a node shows another block there).
 * Where any node names its finalized block by the `finalized` tag, only such nodes count.
 *
 * One URL is not one node (a provider balances it over backends that may be a block apart), so one
 * such proof is not believed at once: it is remembered (`proof.first`) and the transaction counts as
 * replaced only when a later verdict, at least `rules.confirmAfterMs` later and with a newer finalized
 * block, again finds no node with a receipt of `txHash` nor `txHash` itself. Any node with either, or
 * a node that does not answer (its error in `why`), leaves it uncertain and starts that wait again.
 */
export async function nonceReplaced(
  ctx: ChainContext,
  from: Address,
  nonce: number,
  txHash: Hex,
  finalOn: (client: PublicClient) => Promise<FinalOnNode>,
  proof: NonceProof,
  rules: NonceProofRules,
): Promise<NonceVerdict> {
  const anchor = proof.anchor;
  const answers = await ctx.rpc.eachNode('eth_getTransactionReceipt', async (client): Promise<NodeView> => {
    const latest = await client.getBlock({ blockTag: 'latest' });
    const recent: NodeView['recent'] = { number: Number(latest.number), hash: lower(latest.hash ?? '0x') };
    try {
      recent.count = await countAt(client, from, recent);
    } catch (error) {
      recent.error = said(error);
    }
    const view: NodeView = { recent, mined: false, known: false };
    try {
      view.final = await finalOn(client);
    } catch (error) {
      view.finalError = said(error);
    }
    if (anchor) {
      const block = await orNull(client.getBlock({ blockNumber: BigInt(anchor.number) }), 'BlockNotFoundError');
      view.anchorHash = block?.hash ? lower(block.hash) : null;
    }
    view.mined = (await orNull(client.getTransactionReceipt({ hash: txHash }), 'TransactionReceiptNotFoundError')) !== null;
    view.known = view.mined || (await orNull(client.getTransaction({ hash: txHash }), 'TransactionNotFoundError')) !== null;
    return view;
  });
  const of = `of ${answers.length}`;
  const views = answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value] : []));
  const withReceipt = answers.findIndex((answer) => answer.status === 'fulfilled' && answer.value.mined);
  if (withReceipt >= 0) {
    proof.first = undefined;
    return { replaced: false, why: `node ${withReceipt + 1} ${of} has its receipt`, mined: true };
  }
  const withTransaction = answers.findIndex((answer) => answer.status === 'fulfilled' && answer.value.known);
  if (withTransaction >= 0) {
    proof.first = undefined;
    return { replaced: false, why: `node ${withTransaction + 1} ${of} has the transaction (not mined)` };
  }
  const silent = answers.findIndex((answer) => answer.status === 'rejected');
  if (silent >= 0) {
    proof.first = undefined;
    return { replaced: false, why: `node ${silent + 1} ${of} did not answer: ${said((answers[silent] as PromiseRejectedResult).reason)}` };
  }

  // A node showing another block at the anchor's height: the anchor was on a fork; look for a new one.
  if (anchor && views.some((view) => view.anchorHash && view.anchorHash !== anchor.hash)) {
    proof.anchor = undefined;
    proof.first = undefined;
  }
  if (!proof.anchor) {
    const used = views.find((view) => view.recent.count !== undefined && view.recent.count > nonce);
    if (used) proof.anchor = { number: used.recent.number, hash: used.recent.hash, count: used.recent.count! };
    else {
      const errors = views.flatMap((view, i) => (view.recent.error ? [`node ${i + 1} ${of} could not count the nonce: ${view.recent.error}`] : []));
      if (errors.length === views.length) return { replaced: false, why: errors.join('; ') };
      const newest = Math.max(...views.map((view) => view.recent.number));
      return { replaced: false, why: `its nonce is not used at block ${newest} yet${errors.length ? ` (${errors.join('; ')})` : ''}` };
    }
  }
  const proven = proof.anchor!;
  const byTag = views.some((view) => view.final?.byTag);
  const finals = views.flatMap((view) => (view.final && (view.final.byTag || !byTag) ? [{ view, final: view.final }] : []));
  const settled = finals.filter(({ view, final }) => final.number >= proven.number && view.anchorHash === proven.hash);
  if (settled.length === 0) {
    const finalErrors = views.flatMap((view, i) => (view.finalError ? [`node ${i + 1} ${of} could not read its finalized block: ${view.finalError}`] : []));
    const newest = Math.max(-1, ...finals.map(({ final }) => final.number));
    const where = newest < 0 ? 'no node has a finalized block' : `the finalized block is ${newest}`;
    return {
      replaced: false,
      why: `its nonce is used at block ${proven.number} by a transaction no node has, which is not final yet: ${where}${finalErrors.length ? ` (${finalErrors.join('; ')})` : ''}`,
    };
  }
  const finalized = Math.max(...settled.map(({ final }) => final.number));
  const now = rules.now();
  if (!proof.first) {
    proof.first = { at: now, finalized };
    return {
      replaced: false,
      why: `its nonce is used for good at block ${proven.number} (finalized block ${finalized}) by a transaction no node has: to be confirmed in ${rules.confirmAfterMs} ms at a newer finalized block`,
    };
  }
  if (now - proof.first.at < rules.confirmAfterMs || finalized <= proof.first.finalized) {
    return {
      replaced: false,
      why: `its nonce is used for good at block ${proven.number} by a transaction no node has (first seen at finalized block ${proof.first.finalized}): waiting to confirm it`,
    };
  }
  return { replaced: true, nextNonce: proven.count };
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
