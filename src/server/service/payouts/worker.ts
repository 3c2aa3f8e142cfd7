/**
 * The payout worker: sends the funds of pending withdrawals through the chain adapter.
 *
 * Each round claims a batch in one statement (`… FOR UPDATE SKIP LOCKED`), marking it
 * `processing`, so any number of workers on any number of instances share one queue without
 * ever claiming the same withdrawal twice. Each claimed withdrawal is then paid out and finished
 * in its own transaction:
 * - success: `status = 'success'`, `txHash` set, ledger `withdrawal_payout` (pending − amount);
 * - failure, only on a `PayoutError` (the chain refused the payout for good): `status = 'failed'`,
 *   `failureReason` set, ledger `withdrawal_release` (pending − amount, available + amount): the
 *   funds are back;
 * - any other error (a timeout, a lost RPC connection: the payout may or may not have gone out):
 *   nothing is recorded; the withdrawal stays `processing` and is claimed again after the lease.
 * The finishing UPDATE only applies to a row still `processing`, and the ledger has a unique
 * (withdrawal, kind) index, so a withdrawal is finished, and its money moved, once. A failure is
 * also fenced by the claim's `attempts`: once the lease has run out and another worker has claimed
 * the withdrawal again, only that attempt may fail it (an older attempt's refusal says nothing about
 * the newer attempt, which may be paying right now). A success is recorded from any attempt: the
 * funds went out either way.
 *
 * A withdrawal left `processing` by a crashed instance (or by an unclear error) is claimed again
 * after `leaseMs`; adapters therefore make payouts idempotent per withdrawal id (the sandbox derives
 * the hash from the id). `sendPayout` is given `payoutTimeoutMs` (well under the lease), after which
 * the attempt is abandoned unrecorded, so a hung chain call neither outlives its lease nor holds
 * `stop()`.
 *
 * That is the sandbox's way (`chain.sendPayout`). A real chain (`chain.outgoing`) pays through
 * stored signed transactions instead (./round.ts): the claim is the same, then each withdrawal gets
 * one nonce and one signed transaction, stored before it is broadcast (the batch signed and stored
 * together, per network), and succeeds (or fails) once its transaction has its confirmations. There a
 * payout held up says why (`stalledReason`), nothing is claimed on a network whose payouts are halted,
 * and after each round the worker holds the hot wallets against what the payouts owe when that is due
 * (./hot-wallet.ts: at start, every `PAYLINK_EVM_RECONCILE_S`, when a payout starts or stops waiting
 * for one), so payouts held for a hot wallet go once it is topped up.
 *
 * New withdrawals wake the worker at once, not at the next poll: once a burst of them is recorded
 * (../withdrawals/intake.ts), this instance's worker by `kick()` and every instance's by a NOTIFY
 * (`WITHDRAWAL_CHANNEL`), so one round signs the burst as one batch. A round that moved anything is
 * followed by another straight away, so what arrives while a round runs is claimed by the next. The
 * poll goes on whatever happens to the LISTEN: a lost listening connection is replaced by the
 * database layer (the worker then runs a round), and a subscription that fails is tried again with
 * backoff.
 */
import { PayoutError, type ChainAdapter } from '../../chain/types.js';
import type { Database } from '../../db/index.js';
import { defaultLogger, type Logger } from '../../log.js';
import { createWakeUp } from '../../wake-up.js';
import { payoutsHalted } from '../alerts/index.js';
import { WITHDRAWAL_CHANNEL } from '../events/index.js';
import { assetAmount } from '../ledger/index.js';
import { claimDue, type ClaimedWithdrawal } from '../withdrawals/index.js';
import type { PayoutsAhead } from './ahead.js';
import { finishPayout, type PayoutOutcome } from './finish.js';
import { createHotWalletWatch } from './hot-wallet.js';
import { countUnfinished, nextFollowDueIn } from './repository.js';
import { payingNetworks, type StoredPayoutOptions } from './context.js';
import { haltedNetworks, processStoredPayouts } from './round.js';

export interface PayoutWorkerOptions {
  /** How often an idle worker looks for work, in ms (default 1000). `kick()` wakes it sooner. */
  pollIntervalMs?: number;
  /** Withdrawals claimed per round (default 100). */
  batchSize?: number;
  /** After how long a `processing` withdrawal is presumed abandoned and claimed again, in ms (default 5 min). */
  leaseMs?: number;
  /**
   * How long one `sendPayout` may take before the attempt is abandoned (left `processing`, retried
   * after the lease), in ms. Default: a fifth of `leaseMs`, at most 60 s. Keep it well under `leaseMs`.
   */
  payoutTimeoutMs?: number;
  /** Real chains: how often each unfinished transaction's receipt is read, in ms (default 1000). */
  checkMs?: number;
  /** Real chains: how long a sent transaction without a receipt waits before it is broadcast again (default 15 s). */
  rebroadcastMs?: number;
  /**
   * Real chains: while payouts are held for the hot wallet (no gas money, too few tokens), how often
   * its holdings are read again, so they go once it is topped up, in ms (default 10 s; at most the
   * network's `PAYLINK_EVM_RECONCILE_S`).
   */
  holdingsRecheckMs?: number;
}

const DEFAULT_LEASE_MS = 5 * 60 * 1000;

function defaultPayoutTimeout(leaseMs: number): number {
  return Math.min(60_000, Math.floor(leaseMs / 5));
}

export interface PayoutWorker {
  /** Look for work now (after a withdrawal was created on this instance). */
  kick(): void;
  /** One round: claims and finishes a batch; resolves with how many it handled. */
  runOnce(): Promise<number>;
  /** Stops claiming, waits for the payouts in flight to finish (each at most `payoutTimeoutMs`). */
  stop(): Promise<void>;
}

/**
 * Claims up to `batchSize` withdrawals for this worker; on real networks only those it can pay (a
 * network with a hot wallet, whose payouts are not `halted`): the others wait, pending. The claim is
 * one statement, atomic on its own: no transaction around it (BEGIN and COMMIT would be two more
 * round trips before a burst's first payout is prepared).
 */
export async function claimWithdrawals(
  db: Database,
  batchSize: number,
  leaseMs: number,
  now: Date,
  chain?: ChainAdapter,
  halted: ReadonlySet<string> = new Set(),
): Promise<ClaimedWithdrawal[]> {
  const networks = chain?.kind === 'real' ? chain.chains.filter((c) => c.outgoing && !halted.has(c.blockchainId)).map((c) => c.blockchainId) : undefined;
  return claimDue(db, batchSize, leaseMs, now, networks);
}

class PayoutTimeoutError extends Error {
  constructor(ms: number) {
    super(`The payout did not complete within ${ms} ms`);
    this.name = 'PayoutTimeoutError';
  }
}

/** `promise`, or a `PayoutTimeoutError` after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PayoutTimeoutError(ms)), ms);
  });
  // The abandoned call may still settle later: nobody waits for it then, so it must not go unhandled.
  promise.catch(() => {});
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Pays one claimed withdrawal out and records the outcome. An error that is not a `PayoutError`
 * (the timeout included) records nothing: the payout may have gone out, so the withdrawal stays
 * `processing` and is claimed again (and paid idempotently) after the lease.
 */
async function payOut(db: Database, chain: ChainAdapter, now: () => Date, withdrawal: ClaimedWithdrawal, payoutTimeoutMs: number, log: Logger): Promise<void> {
  const amount = assetAmount(withdrawal.amount);
  let outcome: PayoutOutcome;
  try {
    const request = {
      withdrawalId: withdrawal.id,
      blockchainId: withdrawal.blockchain_id,
      assetId: withdrawal.asset_id,
      address: withdrawal.address,
      amount,
    };
    if (chain.kind !== 'sandbox') throw new Error('this chain has no direct payouts (it pays through stored transactions)');
    const result = await withTimeout(
      Promise.resolve().then(() => chain.sendPayout(request)),
      payoutTimeoutMs,
    );
    outcome = { ok: true, txHash: result.txHash, sandbox: result.sandbox };
  } catch (error) {
    if (!(error instanceof PayoutError)) {
      log.error('payout_outcome_unknown', 'payout outcome unknown; retried after the lease', { withdrawalId: withdrawal.id, error });
      return;
    }
    outcome = { ok: false, reason: (error.message || 'The payout failed').slice(0, 500) };
  }
  await db.transaction((tx) => finishPayout(tx, withdrawal, outcome, now()));
}

/**
 * What the payout worker works with; `log` is where its error lines go, and what the operator must
 * know (a payout that delivered less than it sent): default stderr, `server/log.ts`.
 */
export interface PayoutDeps {
  db: Database;
  chain: ChainAdapter;
  now: () => Date;
  log?: Logger | undefined;
  /** What the intake prepares ahead of the claims (./ahead.ts): the same one the app's intake feeds. */
  ahead?: PayoutsAhead | undefined;
}

/**
 * One round of payouts: claims a batch and finishes each; resolves with how many it handled. On a
 * real chain, `onHotWallet` hears of each network where a payout started or stopped waiting for the
 * hot wallet.
 */
export async function processPayouts(
  deps: PayoutDeps,
  options: Pick<PayoutWorkerOptions, 'batchSize' | 'leaseMs' | 'payoutTimeoutMs' | 'checkMs' | 'rebroadcastMs'> & Pick<StoredPayoutOptions, 'onHotWallet'> = {},
): Promise<number> {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const payoutTimeoutMs = options.payoutTimeoutMs ?? defaultPayoutTimeout(leaseMs);
  if (deps.chain.kind === 'real') {
    // Payouts on a halted network are neither claimed nor sent: its withdrawals say so (./round.ts).
    const halted = await haltedNetworks(deps.db, deps.chain);
    const claimed = await claimWithdrawals(deps.db, options.batchSize ?? 100, leaseMs, deps.now(), deps.chain, halted);
    const stored: StoredPayoutOptions = {
      checkMs: options.checkMs,
      rebroadcastMs: options.rebroadcastMs,
      logger: deps.log,
      halted,
      onHotWallet: options.onHotWallet,
    };
    return processStoredPayouts(deps, claimed, stored);
  }
  const claimed = await claimWithdrawals(deps.db, options.batchSize ?? 100, leaseMs, deps.now(), deps.chain);
  const log = deps.log ?? defaultLogger;
  await Promise.all(
    claimed.map((withdrawal) =>
      payOut(deps.db, deps.chain, deps.now, withdrawal, payoutTimeoutMs, log).catch((error) =>
        // Left `processing`: claimed again after the lease.
        log.error('payout_unrecorded', 'payout could not be recorded', { withdrawalId: withdrawal.id, error }),
      ),
    ),
  );
  return claimed.length;
}

/** Backoff of a failed LISTEN's next try, in ms: from the first delay, doubling, up to the last. */
const RELISTEN_FIRST_MS = 100;
const RELISTEN_MAX_MS = 30_000;
/** Shortest sleep of an idle worker with something due, in ms. */
const MIN_IDLE_MS = 20;
/** Longest the first round waits for the first LISTEN, in ms (less when the poll interval is shorter). */
const FIRST_LISTEN_WAIT_MS = 5_000;

/** Starts a worker loop; it runs until `stop()`. */
export function startPayoutWorker(deps: PayoutDeps, options: PayoutWorkerOptions = {}): PayoutWorker {
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const batchSize = options.batchSize ?? 100;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const payoutTimeoutMs = options.payoutTimeoutMs ?? defaultPayoutTimeout(leaseMs);
  let running = true;
  const alarm = createWakeUp();
  const kick = () => alarm.wake();
  // Subscribed to the NOTIFY of new withdrawals; a subscription that fails is tried again with backoff
  // while the worker polls (a lost listening connection is the database layer's to replace).
  let unlisten: (() => Promise<void>) | undefined;
  let relisten: NodeJS.Timeout | undefined;
  let relistenDelay = RELISTEN_FIRST_MS;
  const subscribe = (): Promise<void> =>
    deps.db.listen(WITHDRAWAL_CHANNEL, kick, kick).then(
      (stop) => {
        if (!running) return void stop().catch(() => {});
        unlisten = stop;
        // Notifications sent before it listened are lost: a round looks for what they announced.
        kick();
      },
      (error: unknown) => {
        if (!running) return;
        (deps.log ?? defaultLogger).warn('payout_listen_failed', 'the payout worker could not LISTEN for new withdrawals: it polls meanwhile and tries again', {
          error,
          retryInMs: relistenDelay,
        });
        relisten = setTimeout(() => {
          relisten = undefined;
          void subscribe();
        }, relistenDelay);
        relisten.unref();
        relistenDelay = Math.min(relistenDelay * 2, RELISTEN_MAX_MS);
      },
    );
  const listening = subscribe();

  // The hot wallets held against what the payouts owe: at start, every PAYLINK_EVM_RECONCILE_S, when a
  // payout starts or stops waiting for one, and often while payouts are held for one (./hot-wallet.ts).
  const watch = createHotWalletWatch(deps, { recheckMs: options.holdingsRecheckMs });
  const runOnce = async () => {
    const handled = await processPayouts(deps, {
      batchSize,
      leaseMs,
      payoutTimeoutMs,
      checkMs: options.checkMs,
      rebroadcastMs: options.rebroadcastMs,
      onHotWallet: watch.soon,
    });
    await watch.due();
    return handled;
  };

  /**
   * How long an idle round's worker sleeps: a poll, or less when something is due sooner: a stored
   * transaction to be followed (every `checkMs`), a hot wallet to be held against what it owes.
   */
  const idleFor = async (): Promise<number> => {
    if (deps.chain.kind !== 'real') return pollIntervalMs;
    const wallets = payingNetworks(deps.chain).map((outgoing) => ({ blockchainId: outgoing.blockchainId, fromAddress: outgoing.hotWallet }));
    const dueIn = async (of: typeof wallets) => (await nextFollowDueIn(deps.db, of, options.checkMs ?? 1_000).catch(() => undefined)) ?? Infinity;
    let followIn = await dueIn(wallets);
    // A halted network's transactions are not followed: asked about only when one would wake the worker
    // before its poll (an idle worker with nothing unfinished costs one query a poll).
    if (followIn < pollIntervalMs) {
      const halted = await haltedNetworks(deps.db, deps.chain).catch(() => new Set<string>());
      if (halted.size > 0) followIn = await dueIn(wallets.filter((wallet) => !halted.has(wallet.blockchainId)));
    }
    // Never a busy loop: a transaction due now that another instance holds waits a little.
    return Math.min(pollIntervalMs, Math.max(MIN_IDLE_MS, Math.min(followIn, watch.dueIn())));
  };

  const loop = (async () => {
    // Listening before the first claim (a withdrawal that round misses is one it hears of), but not
    // waiting longer than a poll for a LISTEN that hangs: the poll is what guarantees progress.
    await Promise.race([listening, new Promise((resolve) => setTimeout(resolve, Math.min(pollIntervalMs, FIRST_LISTEN_WAIT_MS)).unref())]);
    for (const network of deps.chain.kind === 'real' ? deps.chain.chains : []) {
      const outgoing = network.outgoing;
      if (!outgoing) continue;
      // The first round follows every unfinished transaction: what a crash or an outage left behind.
      const unfinished = await countUnfinished(deps.db, outgoing.blockchainId, outgoing.hotWallet).catch(() => 0);
      if (unfinished > 0) {
        (deps.log ?? defaultLogger).info(
          'payouts_resuming',
          'payouts resume: the stored transactions a stop left unfinished are followed to their end (never signed again)',
          {
            blockchainId: outgoing.blockchainId,
            unfinished,
          },
        );
      }
    }
    while (running) {
      let handled = 0;
      try {
        alarm.reset();
        handled = await runOnce();
      } catch (error) {
        if (running) (deps.log ?? defaultLogger).error('payout_round_failed', 'payout round failed', { error });
      }
      if (!running) break;
      if (handled > 0 || alarm.woken) continue;
      await alarm.sleep(await idleFor());
    }
  })();

  return {
    kick,
    runOnce,
    async stop() {
      running = false;
      clearTimeout(relisten);
      alarm.wake();
      await loop;
      // A subscription still being made stops itself when it is (see `subscribe`).
      await unlisten?.().catch(() => {});
    },
  };
}
