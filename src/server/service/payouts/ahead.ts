/**
 * Payouts prepared ahead: the work of a payout that needs no nonce lock, done while its withdrawal is
 * still being recorded.
 *
 * A burst of withdrawals otherwise waits for its own payout in steps, one after another: recorded,
 * claimed, estimated (a dry run of each transfer: the node's slowest answer), signed (about a
 * millisecond of CPU each), stored, sent. The dry runs and the signatures need no lock and change
 * nothing, so they start as soon as the intake takes the requests, at the same time as the statement
 * that records them (`anticipate`); when the worker claims the withdrawals, it picks up what is ready
 * (`take`) and goes straight to the nonce lock.
 *
 * Nothing here is trusted further than that:
 * - a dry run is a dry run of that moment: one older than `AHEAD_TTL_MS` (or not done by then: the
 *   worker does not wait for a node that does not answer), or one that failed, is not used (the worker
 *   estimates afresh), and a transfer whose own estimate asks for more gas than its draft gets a
 *   transaction of its own, as in the worker's own batches;
 * - a signature made ahead carries the nonce the payout will most likely take (this instance's next,
 *   as far as it knows), and under the nonce lock it is used only for that very transaction with that
 *   very nonce (`signAndStore`); anything else is signed again there. A wrong guess costs a signature,
 *   never a wrong transaction;
 * - a request the intake then refuses leaves only an unused dry run and signature behind, dropped
 *   after `AHEAD_TTL_MS`.
 *
 * It costs the node one `eth_estimateGas` per request the intake takes (a refused one included), in
 * one JSON-RPC batch per turn of the intake: the worker's own estimate of those withdrawals is saved.
 */
import type { ChainAdapter, OutgoingChain, PayoutRequest, PreparedTransaction, SignedRawTransaction } from '../../chain/types.js';
import { compareDecimal } from '../../../core/money.js';
import type { Database } from '../../db/index.js';
import { peekNonce } from './repository.js';

/** How long a payout prepared ahead may wait for its claim before it is prepared again, in ms. */
export const AHEAD_TTL_MS = 5_000;

/** Transactions signed ahead of the nonce lock, by what they sign, with the nonce each was signed with. */
export type Presigned = Map<PreparedTransaction, { nonce: number; signed: SignedRawTransaction }>;

/**
 * Signs drafts with the nonces they will most likely take, `first` onwards in their order (a draft
 * left out keeps its place). Nothing is stored or sent: `signAndStore` takes a signature only where,
 * under the lock, the nonce taken is the one it was made with, and signs again otherwise.
 */
export async function presign(
  outgoing: OutgoingChain,
  drafts: ReadonlyArray<PreparedTransaction | undefined>,
  next: Promise<number | undefined>,
  into: Presigned,
): Promise<void> {
  const first = await next;
  if (first === undefined) return;
  // All asked at once: the signatures are made off this thread (the hot wallet's signing thread).
  await Promise.all(
    drafts.map(async (draft, i) => {
      if (!draft) return;
      try {
        into.set(draft, { nonce: first + i, signed: await outgoing.sign(draft, first + i) });
      } catch {
        // Signed again under the lock, where a failure counts.
      }
    }),
  );
}

/** One withdrawal's payout, prepared ahead. */
interface Prepared {
  /** `performance.now()` when its dry run started. */
  at: number;
  request: PayoutRequest;
  /** Its transaction (or why it cannot be sent), once the batch's dry runs and signatures are done. */
  result: Promise<PromiseSettledResult<PreparedTransaction>>;
  /** The batch's signatures made ahead (shared by the batch's payouts). */
  presigned: Presigned;
  /** The nonce its signature was made with, once known: the claimed batch is stored in this order. */
  nonce?: number;
}

/** What the worker finds prepared for a claimed withdrawal. */
export interface TakenAhead {
  result: PromiseSettledResult<PreparedTransaction>;
  presigned: Presigned;
  nonce: number | undefined;
}

export interface PayoutsAhead {
  /** Starts the dry runs and signatures of withdrawals the intake is recording (see the file's comment). */
  anticipate(requests: readonly PayoutRequest[]): void;
  /**
   * What was prepared ahead for `withdrawals` of `outgoing`'s network, by withdrawal id (those with
   * nothing fresh, or whose dry run failed, are left out: the worker prepares them itself). Each is
   * handed out once.
   */
  take(outgoing: OutgoingChain, withdrawals: readonly PayoutRequest[]): Promise<Map<string, TakenAhead>>;
  /** The sequence of `outgoing`'s network stood at `next` after this instance stored a batch: the next guesses start there. */
  stored(outgoing: OutgoingChain, next: number): void;
}

/** What `promise` settles to within `ms`, or undefined. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  if (ms <= 0) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether two requests pay the same (the database keeps the amount at its own scale, the address as it came). */
const same = (a: PayoutRequest, b: PayoutRequest) =>
  a.blockchainId === b.blockchainId &&
  a.assetId === b.assetId &&
  a.address.toLowerCase() === b.address.toLowerCase() &&
  compareDecimal(a.amount, b.amount) === 0;

/** Payouts prepared ahead on `chain`'s networks with a hot wallet; nothing on the sandbox. `ttlMs`: default `AHEAD_TTL_MS`. */
export function createPayoutsAhead(deps: { db: Database; chain: ChainAdapter }, options: { ttlMs?: number } = {}): PayoutsAhead {
  const ttl = options.ttlMs ?? AHEAD_TTL_MS;
  const prepared = new Map<string, Prepared>();
  /**
   * Per network, the nonce this instance expects its next payout to take (after the payouts it
   * prepared ahead), and when it last learned it: older than `ttl`, the sequence is read again.
   */
  const expected = new Map<string, { next: number; at: number }>();

  const drop = (now: number) => {
    for (const [id, entry] of prepared) if (now - entry.at > ttl) prepared.delete(id);
  };

  /** The first nonce of a batch of `count` prepared now: the sequence's next, after what this instance prepared before. */
  const guess = async (outgoing: OutgoingChain, count: number): Promise<number | undefined> => {
    const known = expected.get(outgoing.blockchainId);
    const first =
      known && performance.now() - known.at <= ttl ? known.next : await peekNonce(deps.db, outgoing.blockchainId, outgoing.hotWallet).catch(() => undefined);
    if (first === undefined) return undefined;
    const later = expected.get(outgoing.blockchainId);
    // Another batch may have been guessed meanwhile (while the sequence was read): the later of the two stands.
    expected.set(outgoing.blockchainId, { next: Math.max(later?.next ?? 0, first + count), at: performance.now() });
    return first;
  };

  return {
    anticipate(requests) {
      if (deps.chain.kind !== 'real') return;
      const now = performance.now();
      drop(now);
      const fresh = requests.filter((request) => !prepared.has(request.withdrawalId));
      for (const network of deps.chain.chains) {
        const outgoing = network.outgoing;
        const batch = fresh.filter((request) => request.blockchainId === network.blockchainId);
        if (!outgoing || batch.length === 0) continue;
        const presigned: Presigned = new Map();
        const entries: Prepared[] = [];
        let presigning: Promise<void> | undefined;
        const next = guess(outgoing, batch.length).then((first) => {
          if (first !== undefined) for (const [i, entry] of entries.entries()) entry.nonce = first + i;
          return first;
        });
        const results = outgoing
          .preparePayouts(batch, (drafts) => {
            presigning = presign(outgoing, drafts, next, presigned);
          })
          .catch((error: unknown) => batch.map((): PromiseSettledResult<PreparedTransaction> => ({ status: 'rejected', reason: error })))
          .then(async (settled) => {
            await presigning;
            return settled;
          });
        for (const [i, request] of batch.entries()) {
          const entry: Prepared = { at: now, request, result: results.then((settled) => settled[i]!), presigned };
          entries.push(entry); // before `next` settles: it gives each its nonce
          prepared.set(request.withdrawalId, entry);
        }
      }
    },

    async take(outgoing, withdrawals) {
      const now = performance.now();
      const found: Array<[string, Prepared]> = [];
      for (const withdrawal of withdrawals) {
        const entry = prepared.get(withdrawal.withdrawalId);
        if (!entry) continue;
        prepared.delete(withdrawal.withdrawalId);
        if (now - entry.at <= ttl && entry.request.blockchainId === outgoing.blockchainId && same(entry.request, withdrawal))
          found.push([withdrawal.withdrawalId, entry]);
      }
      const taken = new Map<string, TakenAhead>();
      for (const [id, entry] of found) {
        // Waited for no longer than its time: a preparation that hangs (a node that does not answer)
        // must not hold the worker up; the worker prepares that withdrawal itself.
        const result = await within(entry.result, entry.at + ttl - performance.now());
        // A dry run that failed is run again by the worker: the refusal it reports must be of now.
        if (result?.status === 'fulfilled' && performance.now() - entry.at <= ttl) taken.set(id, { result, presigned: entry.presigned, nonce: entry.nonce });
      }
      return taken;
    },

    stored(outgoing, next) {
      // Guesses handed out for payouts still to come stand; past them, the sequence as it now is.
      const outstanding = [...prepared.values()].some((entry) => entry.request.blockchainId === outgoing.blockchainId);
      const known = expected.get(outgoing.blockchainId);
      expected.set(outgoing.blockchainId, { next: outstanding && known ? Math.max(known.next, next) : next, at: performance.now() });
    },
  };
}
