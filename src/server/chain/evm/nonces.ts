/**
 * Whether a stored transaction's nonce went to another transaction for good, the one reason to give
 * it up and sign its payment again (`nonceReplaced`, with what it has proven so far kept in memory
 * by `nonceReplacement`), whether any node has a transaction at all (`transactionKnown`), and the
 * sender's transaction counts (`transactionCount`).
 *
 * With several nodes, one node's "no receipt" is not the chain's: a node that lags, or whose view
 * has the sender's nonce moved on but not yet the transaction, says so of a mined transaction. So
 * giving a stored transaction up is decided by every node together, never by the first that answers.
 */
import { numberToHex, type Address, type Hex, type PublicClient } from 'viem';
import { checkedAddress, type ChainContext, lower } from './context.js';
import { EvmChainError, nodeMessage, redact, toChainError } from './errors.js';
import type { FinalOnNode } from './finality.js';
import { orNull } from './transfers.js';

/** Whether a stored transaction's nonce is used for good by another transaction (`nonceReplaced`). */
export type NonceVerdict =
  /** Certain: the stored transaction can never be mined. `nextNonce`: the sender's transactions at a final block. */
  | { replaced: true; nextNonce: number }
  /**
   * Not certain (yet): leave the stored transaction as it is and ask again later; `why` says what is
   * missing. `mined`: a node has its receipt (the harmless case: it used its own nonce).
   */
  | { replaced: false; why: string; mined?: boolean };

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

/** `nonceReplaced` for one sender's stored transactions, with what it has proven so far kept here (in memory). */
export type NonceReplacement = (from: Address, nonce: number, txHash: Hex, finalOn: (client: PublicClient) => Promise<FinalOnNode>) => Promise<NonceVerdict>;

/**
 * `nonceReplaced` with its proofs remembered by stored transaction hash between calls, and forgotten
 * once a verdict is final (replaced, or mined after all); a proof must hold `*_REPLACE_CONFIRM_MS`
 * (`config.replaceAfterMs`) before it is believed.
 */
export function nonceReplacement(ctx: ChainContext, now: () => number = Date.now): NonceReplacement {
  const proofs = new Map<Hex, NonceProof>();
  return async (from, nonce, txHash, finalOn) => {
    if (proofs.size > 10_000) proofs.clear(); // a restart's worth of forgetting: only a longer wait
    const proof = proofs.get(txHash) ?? {};
    proofs.set(txHash, proof);
    const verdict = await nonceReplaced(ctx, from, nonce, txHash, finalOn, proof, { confirmAfterMs: ctx.config.replaceAfterMs, now });
    if (verdict.replaced || verdict.mined) proofs.delete(txHash);
    return verdict;
  };
}

/**
 * `address`'s transaction count: at the `latest` block (the next nonce the chain will accept), or
 * `pending`, counting what the nodes hold unmined.
 */
export async function transactionCount(ctx: ChainContext, address: string, blockTag: 'pending' | 'latest'): Promise<number> {
  const who = checkedAddress(address);
  return ctx.rpc.call('eth_getTransactionCount', (client) => client.getTransactionCount({ address: who, blockTag }));
}
