/**
 * The payout worker: sends the funds of pending withdrawals through the chain adapter.
 *
 * Each round claims a batch in one statement (`… FOR UPDATE SKIP LOCKED`), marking it
 * `processing`, so any number of workers on any number of instances share one queue without
 * ever claiming the same withdrawal twice. Each claimed withdrawal is then paid out and finished
 * in its own transaction:
 * - success: `status = 'success'`, `txHash` set, ledger `withdrawal_payout` (pending − amount);
 * - failure: `status = 'failed'`, `failureReason` set, ledger `withdrawal_release`
 *   (pending − amount, available + amount): the funds are back.
 * The finishing UPDATE only applies to a row still `processing`, and the ledger has a unique
 * (withdrawal, kind) index, so a withdrawal is finished, and its money moved, once.
 *
 * A withdrawal left `processing` by a crashed instance is claimed again after `leaseMs`; adapters
 * therefore make payouts idempotent per withdrawal id (the sandbox derives the hash from the id).
 */
import type { AssetId } from '../../core/money.js';
import type { ChainAdapter } from '../chain/types.js';
import type { Database } from '../db/index.js';
import { applyLedgerChange, assetAmount } from './ledger.js';

export interface PayoutWorkerOptions {
  /** How often an idle worker looks for work, in ms (default 1000). `kick()` wakes it sooner. */
  pollIntervalMs?: number;
  /** Withdrawals claimed per round (default 20). */
  batchSize?: number;
  /** After how long a `processing` withdrawal is presumed abandoned and claimed again, in ms (default 5 min). */
  leaseMs?: number;
}

export interface PayoutWorker {
  /** Look for work now (after a withdrawal was created on this instance). */
  kick(): void;
  /** One round: claims and finishes a batch; resolves with how many it handled. */
  runOnce(): Promise<number>;
  /** Stops claiming, waits for the payouts in flight to finish. */
  stop(): Promise<void>;
}

interface ClaimedWithdrawal {
  id: string;
  integrator_id: string;
  amount: string;
  asset_id: AssetId;
  blockchain_id: string;
  address: string;
}

/** Claims up to `batchSize` withdrawals for this worker. */
export async function claimWithdrawals(db: Database, batchSize: number, leaseMs: number, now: Date): Promise<ClaimedWithdrawal[]> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<ClaimedWithdrawal>(
      `UPDATE withdrawals SET status = 'processing', attempts = attempts + 1, claimed_at = now(), updated_at = $3
       WHERE id IN (
         SELECT id FROM withdrawals
         WHERE status = 'pending' OR (status = 'processing' AND claimed_at < now() - make_interval(secs => $2::double precision / 1000))
         ORDER BY created_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED)
       RETURNING id, integrator_id, amount, asset_id, blockchain_id, address`,
      [batchSize, leaseMs, now],
    );
    return rows;
  });
}

/** Pays one claimed withdrawal out and records the outcome. */
async function payOut(db: Database, chain: ChainAdapter, now: () => Date, withdrawal: ClaimedWithdrawal): Promise<void> {
  const amount = assetAmount(withdrawal.amount);
  let outcome: { ok: true; txHash: string; sandbox: boolean } | { ok: false; reason: string };
  try {
    const result = await chain.sendPayout({
      withdrawalId: withdrawal.id,
      blockchainId: withdrawal.blockchain_id,
      assetId: withdrawal.asset_id,
      address: withdrawal.address,
      amount,
    });
    outcome = { ok: true, txHash: result.txHash, sandbox: result.sandbox };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    outcome = { ok: false, reason: (message || 'The payout failed').slice(0, 500) };
  }
  await db.transaction(async (tx) => {
    const finished = outcome.ok
      ? await tx.query(
          `UPDATE withdrawals SET status = 'success', tx_hash = $2, sandbox = $3, updated_at = $4
           WHERE id = $1 AND status = 'processing' RETURNING id`,
          [withdrawal.id, outcome.txHash, outcome.sandbox, now()],
        )
      : await tx.query(
          `UPDATE withdrawals SET status = 'failed', failure_reason = $2, updated_at = $3
           WHERE id = $1 AND status = 'processing' RETURNING id`,
          [withdrawal.id, outcome.reason, now()],
        );
    if (finished.rows.length === 0) return; // finished elsewhere already
    await applyLedgerChange(tx, {
      integratorId: withdrawal.integrator_id,
      assetId: withdrawal.asset_id,
      kind: outcome.ok ? 'withdrawal_payout' : 'withdrawal_release',
      availableDelta: outcome.ok ? '0' : amount,
      pendingDelta: `-${amount}`,
      withdrawalId: withdrawal.id,
    });
  });
}

/** One round of payouts: claims a batch and finishes each; resolves with how many it handled. */
export async function processPayouts(
  deps: { db: Database; chain: ChainAdapter; now: () => Date },
  options: Pick<PayoutWorkerOptions, 'batchSize' | 'leaseMs'> = {},
): Promise<number> {
  const claimed = await claimWithdrawals(deps.db, options.batchSize ?? 20, options.leaseMs ?? 5 * 60 * 1000, deps.now());
  await Promise.all(
    claimed.map((withdrawal) =>
      payOut(deps.db, deps.chain, deps.now, withdrawal).catch((error) =>
        // Left `processing`: claimed again after the lease.
        console.error('[paylink] payout could not be recorded', withdrawal.id, error),
      ),
    ),
  );
  return claimed.length;
}

/** Starts a worker loop; it runs until `stop()`. */
export function startPayoutWorker(
  deps: { db: Database; chain: ChainAdapter; now: () => Date },
  options: PayoutWorkerOptions = {},
): PayoutWorker {
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const batchSize = options.batchSize ?? 20;
  const leaseMs = options.leaseMs ?? 5 * 60 * 1000;
  let running = true;
  let wake: (() => void) | null = null;
  let kicked = false;

  const runOnce = () => processPayouts(deps, { batchSize, leaseMs });

  const loop = (async () => {
    while (running) {
      let handled = 0;
      try {
        kicked = false;
        handled = await runOnce();
      } catch (error) {
        if (running) console.error('[paylink] payout round failed', error);
      }
      if (!running) break;
      if (handled > 0 || kicked) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          wake = null;
          resolve();
        }, pollIntervalMs);
        wake = () => {
          clearTimeout(timer);
          wake = null;
          resolve();
        };
      });
    }
  })();

  return {
    kick() {
      kicked = true;
      wake?.();
    },
    runOnce,
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}
