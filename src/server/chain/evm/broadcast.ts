/**
 * Sending stored transactions: `broadcast` sends the exact signed bytes (again, as often as needed)
 * and maps the node's "already known", "nonce too low" and "replacement underpriced" to outcomes that
 * all mean "read the receipt" (./receipts.ts); `broadcastMany` does the same for a batch of payouts in
 * one JSON-RPC batch. A URL that refuses the call itself (a provider's plan without the method) has
 * the same bytes sent through the others.
 */
import { keccak256, type Hex } from 'viem';
import { type ChainContext, lower } from './context.js';
import { EvmChainError, nodeMessage, redact, toChainError } from './errors.js';
import { askOtherNodes } from './rpc.js';

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
  const refusedAt = answers.flatMap((answer, i) => (answer.status === 'rejected' && methodRefused(answer.reason) ? [i] : []));
  await askOtherNodes(
    ctx.rpc,
    'eth_sendRawTransaction',
    refusedAt,
    (i) => [rawTransactions[i]],
    answers,
    (current, offered) => current.status === 'rejected' && methodRefused(current.reason) && (offered.status === 'fulfilled' || !methodRefused(offered.reason)),
  );
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
