/**
 * The SQL of `withdrawals`: nothing else in the service reads or writes it. The payout worker
 * (../payouts/) claims and finishes withdrawals through the functions at the end of this file.
 */
import { randomUUID } from 'node:crypto';
import type { AssetId } from '../../../core/money.js';
import type { StalledReason, WithdrawalStatus } from '../../../core/schemas.js';
import { UNFINISHED_WITHDRAWAL_STATUSES } from '../../../core/rules/withdrawal.js';
import { statementParams, type Queryable } from '../../db/index.js';
import { sqlList } from '../../db/sql-list.js';
import { keyUnusedSql, storeAnswersSql, type StoredResponse } from '../idempotency/index.js';
import { reserveInOrderSql } from '../ledger/index.js';
import { depositAddressOfSql } from '../sessions/index.js';

/** A withdrawal as stored. */
export interface WithdrawalRow {
  id: string;
  amount: string;
  asset_id: AssetId;
  blockchain_id: string;
  address: string;
  status: WithdrawalStatus;
  tx_hash: string | null;
  failure_reason: string | null;
  /** What the recipient received (exact), from the payout's receipt; null until it succeeded. */
  received_amount: string | null;
  /** Why it is held up, while it is (see the API's `stalledReason`). */
  stalled_reason: StalledReason | null;
  created_at: Date;
  updated_at: Date;
}

/** The statuses of a withdrawal whose payout is not finished (`UNFINISHED_WITHDRAWAL_STATUSES`), as an SQL list. */
const UNFINISHED = sqlList(UNFINISHED_WITHDRAWAL_STATUSES);

const COLUMNS =
  'id, amount, asset_id, blockchain_id, address, status, tx_hash, failure_reason, received_amount::text AS received_amount, stalled_reason, created_at, updated_at';

/** A requested withdrawal, as `recordWithdrawals` records it (or refuses it). */
export interface NewWithdrawal {
  id: string;
  amount: string;
  address: string;
  createdAt: Date;
  /** The request's `Idempotency-Key`, if any, with a digest of the request and its answer for each outcome but `key_used`. */
  idempotency?: { key: string; requestHash: string; answers: Record<Exclude<WithdrawalRecordOutcome, 'key_used'>, StoredResponse> } | undefined;
}

/**
 * What became of a request: `created` (recorded, its funds reserved), refused (`insufficient_balance`,
 * `own_deposit_address`, its answer stored for its key) or `key_used` (its Idempotency-Key was used
 * before: nothing was done; the stored answer is the caller's to read).
 */
export type WithdrawalRecordOutcome = 'created' | 'insufficient_balance' | 'own_deposit_address' | 'key_used';

/**
 * Records withdrawals of one balance (integrator, asset, network) in ONE statement, in their order,
 * with no transaction around it: each whose key is unused and whose address is not one of the
 * integrator's own deposit addresses (the sessions room's `depositAddressOfSql`) becomes a `pending`
 * withdrawal if, and only if, the ledger reserves its funds (`reserveInOrderSql`: this room writes the
 * withdrawals' rows, the ledger the balance and its entries; a row is written only for a reservation
 * whose entry was, and `created` is answered only for a row written); each keyed request's answer is stored
 * with it (the idempotency room's `storeAnswersSql`). All of it commits together or not at all: a
 * key that another request stored meanwhile fails the whole statement (`isKeyTaken`), changing nothing.
 * Resolves with each request's outcome, in their order.
 */
export async function recordWithdrawals(
  db: Queryable,
  account: { integratorId: string; assetId: AssetId; blockchainId: string },
  requests: readonly NewWithdrawal[],
): Promise<WithdrawalRecordOutcome[]> {
  if (requests.length === 0) return [];
  const { params, param } = statementParams();
  const column = (values: unknown[], type: string) => `${param(values)}::${type}[]`;
  const unnest = [
    column(
      requests.map((r) => r.id),
      'uuid',
    ),
    column(
      requests.map((r) => r.amount),
      'numeric',
    ),
    column(
      requests.map((r) => r.address),
      'text',
    ),
    column(
      requests.map((r) => r.createdAt),
      'timestamptz',
    ),
    column(
      requests.map(() => randomUUID()),
      'uuid',
    ),
    column(
      requests.map((r) => r.idempotency?.key ?? null),
      'text',
    ),
    column(
      requests.map((r) => r.idempotency?.requestHash ?? null),
      'text',
    ),
    column(
      requests.map((r) => (r.idempotency ? JSON.stringify(r.idempotency.answers) : null)),
      'jsonb',
    ),
  ].join(', ');
  const integrator = `${param(account.integratorId)}::uuid`;
  const asset = param(account.assetId);
  const network = param(account.blockchainId);
  const { rows } = await db.query<{ n: string; outcome: WithdrawalRecordOutcome }>(
    `WITH RECURSIVE requests AS (
       SELECT r.*, ${keyUnusedSql(param, account.integratorId, 'r.idempotency_key')} AS key_unused,
         ${depositAddressOfSql(param, account.integratorId, account.blockchainId, 'r.address')} AS own_address
       FROM unnest(${unnest}) WITH ORDINALITY
         AS r(withdrawal_id, amount, address, created_at, entry_id, idempotency_key, request_hash, answers, n)
     ), candidates AS (
       SELECT *, key_unused AND NOT own_address AS eligible FROM requests
     ), ${reserveInOrderSql(param, account, 'candidates')},
     recorded AS (
       INSERT INTO withdrawals (id, integrator_id, amount, asset_id, blockchain_id, address, status, created_at, updated_at)
       SELECT withdrawal_id, ${integrator}, amount, ${asset}, ${network}, address, 'pending', created_at, created_at FROM reserved
       WHERE withdrawal_id IN (SELECT withdrawal_id FROM ledger_reserve_entries)
       RETURNING id
     ), outcomes AS (
       SELECT c.n, c.idempotency_key, c.request_hash, c.answers,
         CASE WHEN NOT c.key_unused THEN 'key_used' WHEN c.own_address THEN 'own_deposit_address'
              WHEN v.id IS NOT NULL THEN 'created' ELSE 'insufficient_balance' END AS outcome
       FROM candidates c LEFT JOIN recorded v ON v.id = c.withdrawal_id
     ), answers AS (
       SELECT idempotency_key, request_hash, (answers -> outcome ->> 'statusCode')::int AS status_code, answers -> outcome -> 'body' AS response_body
       FROM outcomes WHERE outcome <> 'key_used'
     ), stored AS (${storeAnswersSql(param, account.integratorId, 'answers')})
     SELECT n, outcome FROM outcomes ORDER BY n`,
    params,
  );
  return rows.map((row) => row.outcome);
}

/**
 * Which of `ids` are recorded withdrawals of the integrator: what a statement of `recordWithdrawals`
 * whose answer was lost did commit (it commits whole or not at all).
 */
export async function recordedIds(db: Queryable, integratorId: string, ids: readonly string[]): Promise<Set<string>> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM withdrawals WHERE id = ANY($1::uuid[]) AND integrator_id = $2', [[...ids], integratorId]);
  return new Set(rows.map((row) => row.id));
}

/** One of the integrator's withdrawals (a refund's payout is its refund's, not one), or undefined. */
export async function findWithdrawal(db: Queryable, integratorId: string, id: string): Promise<WithdrawalRow | undefined> {
  const { rows } = await db.query<WithdrawalRow>(`SELECT ${COLUMNS} FROM withdrawals WHERE id = $1 AND integrator_id = $2 AND refund_id IS NULL`, [
    id,
    integratorId,
  ]);
  return rows[0];
}

/** Filters of `listWithdrawals`: `createdFrom` inclusive, `createdBefore` exclusive or `createdUntil` inclusive. */
export interface WithdrawalFilter {
  status?: WithdrawalStatus | undefined;
  createdFrom?: Date | undefined;
  createdBefore?: Date | undefined;
  createdUntil?: Date | undefined;
}

/** One page of the integrator's withdrawals (not its refunds' payouts), newest first, and how many match in all. */
export async function listWithdrawals(
  db: Queryable,
  integratorId: string,
  filter: WithdrawalFilter,
  page: { page: number; limit: number },
): Promise<{ rows: WithdrawalRow[]; totalItems: number }> {
  const where = ['integrator_id = $1', 'refund_id IS NULL'];
  const params: unknown[] = [integratorId];
  const add = (condition: string, value: unknown) => {
    params.push(value);
    where.push(condition.replace('?', `$${params.length}`));
  };
  if (filter.status !== undefined) add('status = ?', filter.status);
  if (filter.createdFrom) add('created_at >= ?', filter.createdFrom);
  if (filter.createdBefore) add('created_at < ?', filter.createdBefore);
  if (filter.createdUntil) add('created_at <= ?', filter.createdUntil);
  const condition = where.join(' AND ');
  const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM withdrawals WHERE ${condition}`, params);
  const { rows } = await db.query<WithdrawalRow>(
    `SELECT ${COLUMNS} FROM withdrawals WHERE ${condition}
     ORDER BY created_at DESC, id DESC LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`,
    params,
  );
  return { rows, totalItems: count.rows[0]?.total ?? 0 };
}

// ---------------------------------------------------------------------------------------------
// The payout worker's queue

/** A withdrawal claimed for payout. */
export interface ClaimedWithdrawal {
  id: string;
  integrator_id: string;
  amount: string;
  asset_id: AssetId;
  blockchain_id: string;
  address: string;
  /** The claim's attempt number: fences the failure of a stale attempt. */
  attempts: number;
  /** The refund this payout pays, if it is one (its funds were reserved by the refund, its outcome is the refund's). */
  refund_id: string | null;
  /** Why it was held up when claimed (null: it was not): changed only when that changes. */
  stalled_reason: StalledReason | null;
}

/**
 * The stalled reasons that hold a pending withdrawal out of the claims: the hot wallet cannot pay it,
 * and nothing is signed for it until the payouts find the hot wallet topped up (`liftHolds`).
 */
export const HOLDING_REASONS: readonly StalledReason[] = ['hot_wallet_gas', 'hot_wallet_token'];

/**
 * Claims up to `batchSize` withdrawals (`pending`, or `processing` past their lease) in one
 * statement, marking them `processing`: `FOR UPDATE SKIP LOCKED` lets any number of workers on any
 * number of instances share the queue without ever claiming the same withdrawal twice. With
 * `networks`, only withdrawals on those networks (the ones this worker can pay on) are claimed. A
 * pending withdrawal held for the hot wallet (`HOLDING_REASONS`) is not claimed: it would only be
 * held again, a write each round, until the hot wallet is topped up.
 */
export async function claimDue(tx: Queryable, batchSize: number, leaseMs: number, now: Date, networks?: readonly string[]): Promise<ClaimedWithdrawal[]> {
  const { rows } = await tx.query<ClaimedWithdrawal>(
    `UPDATE withdrawals SET status = 'processing', attempts = attempts + 1, claimed_at = now(), updated_at = $3
     WHERE id IN (
       SELECT id FROM withdrawals
       WHERE ((status = 'pending' AND (stalled_reason IS NULL OR stalled_reason <> ALL($5::text[])))
              OR (status = 'processing' AND claimed_at < now() - make_interval(secs => $2::double precision / 1000)))
         AND ($4::text[] IS NULL OR blockchain_id = ANY($4::text[]))
       ORDER BY created_at
       LIMIT $1
       FOR UPDATE SKIP LOCKED)
     RETURNING id, integrator_id, amount, asset_id, blockchain_id, address, attempts, refund_id, stalled_reason`,
    [batchSize, leaseMs, now, networks ? [...networks] : null, [...HOLDING_REASONS]],
  );
  return rows;
}

/**
 * Marks `processing` withdrawals paid out, each with its hash and what its recipient received
 * (default: its amount), in one statement; resolves with the ids it marked (one finished already is
 * left as it is). Any attempt may record a success.
 */
export async function markSucceeded(
  tx: Queryable,
  paid: ReadonlyArray<{ id: string; txHash: string; sandbox: boolean; receivedAmount?: string | undefined }>,
  now: Date,
): Promise<Set<string>> {
  if (paid.length === 0) return new Set();
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE withdrawals w SET status = 'success', tx_hash = p.tx_hash, sandbox = p.sandbox, updated_at = $5, received_amount = coalesce(p.received, w.amount), stalled_reason = NULL
     FROM unnest($1::uuid[], $2::text[], $3::boolean[], $4::numeric[]) AS p(id, tx_hash, sandbox, received)
     WHERE w.id = p.id AND w.status = 'processing' RETURNING w.id`,
    [paid.map((p) => p.id), paid.map((p) => p.txHash), paid.map((p) => p.sandbox), paid.map((p) => p.receivedAmount ?? null), now],
  );
  return new Set(rows.map((row) => row.id));
}

/**
 * Marks a `processing` withdrawal failed, only from the claim numbered `attempts` (an older
 * attempt's refusal says nothing about a newer one); false when it does not apply.
 */
export async function markFailed(tx: Queryable, id: string, reason: string, now: Date, attempts: number): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE withdrawals SET status = 'failed', failure_reason = $2, updated_at = $3, stalled_reason = NULL
     WHERE id = $1 AND status = 'processing' AND attempts = $4 RETURNING id`,
    [id, reason, now, attempts],
  );
  return rows.length === 1;
}

/** A withdrawal as the payout worker finishes it, locked until the caller's transaction ends. */
export async function lockForPayout(tx: Queryable, id: string): Promise<(ClaimedWithdrawal & { status: WithdrawalStatus }) | undefined> {
  return (await lockManyForPayout(tx, [id])).get(id);
}

/**
 * Several withdrawals as the payout worker finishes them, by id, locked until the caller's
 * transaction ends. Locked in id order, so two workers finishing overlapping sets wait for each other
 * instead of deadlocking.
 */
export async function lockManyForPayout(tx: Queryable, ids: readonly string[]): Promise<Map<string, ClaimedWithdrawal & { status: WithdrawalStatus }>> {
  if (ids.length === 0) return new Map();
  const { rows } = await tx.query<ClaimedWithdrawal & { status: WithdrawalStatus }>(
    'SELECT id, integrator_id, amount, asset_id, blockchain_id, address, attempts, refund_id, stalled_reason, status FROM withdrawals WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE',
    [[...ids]],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Gives a claimed withdrawal back to the queue (`pending`) when its payout could not even be
 * prepared (the node is down) or the hot wallet cannot pay it: nothing was signed, so the next round
 * may claim it at once instead of after the lease (a withdrawal held for the hot wallet, once that is
 * topped up). Only the claim numbered `attempts` may do so. `stalledReason` says why it waits (kept
 * as it is when not given).
 */
export async function releaseClaim(db: Queryable, id: string, attempts: number, now: Date, stalledReason?: StalledReason | null): Promise<boolean> {
  const { rows } = await db.query(
    `UPDATE withdrawals SET status = 'pending', claimed_at = NULL, updated_at = $2, stalled_reason = CASE WHEN $4::boolean THEN $5::text ELSE stalled_reason END
      WHERE id = $1 AND status = 'processing' AND attempts = $3 RETURNING id`,
    [id, now, attempts, stalledReason !== undefined, stalledReason ?? null],
  );
  return rows.length === 1;
}

// ---------------------------------------------------------------------------------------------
// Refunds' payouts

/**
 * Queues the payout of a refund in the caller's transaction: a `pending` withdrawal the payout workers
 * claim like any other, linked to the refund (`refund_id`, one payout per refund). It writes no ledger
 * entry: the refund's own `refund_reserve` moved its funds to pending when it was made, and its
 * payout's outcome is the refund's (`refund_payout` or `refund_release`, ../payouts/finish.ts).
 */
export async function insertRefundPayout(
  tx: Queryable,
  payout: { id: string; refundId: string; integratorId: string; amount: string; assetId: AssetId; blockchainId: string; address: string; now: Date },
): Promise<void> {
  await tx.query(
    `INSERT INTO withdrawals (id, integrator_id, amount, asset_id, blockchain_id, address, status, refund_id, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $8)`,
    [payout.id, payout.integratorId, payout.amount, payout.assetId, payout.blockchainId, payout.address, payout.refundId, payout.now],
  );
}

/** SQL fragments the refunds room's reads embed, so the columns of `withdrawals` are named only here: a refund's payout. */
export const payoutSql = {
  /** `LEFT JOIN withdrawals <alias> ON <alias>.refund_id = <refundIdColumn>`. */
  joinRefund: (alias: string, refundIdColumn: string) => `LEFT JOIN withdrawals ${alias} ON ${alias}.refund_id = ${refundIdColumn}`,
  /** The payout's `status`, `tx_hash`, `failure_reason`, `stalled_reason` and `updated_at`, as `payout_<column>` (all null without one). */
  columns: (alias: string) =>
    ['status', 'tx_hash', 'failure_reason', 'stalled_reason', 'updated_at'].map((column) => `${alias}.${column} AS payout_${column}`).join(', '),
};
/**
 * Fails, newest first, the withdrawals of one balance that still wait for their payout (`pending`:
 * nothing was ever signed for them) until their amounts reach `upTo`, with `reason`; resolves with the
 * ones it failed. The caller returns their funds to the balance in the same transaction. For `paylink
 * chain resume`: funds a reorganization past finality took back must not be paid out. A refund's payout
 * is left alone: its funds left the balance when the refund was made, and its outcome is the refund's.
 */
export async function failWaitingOf(
  tx: Queryable,
  account: { integratorId: string; assetId: AssetId; blockchainId: string },
  upTo: string,
  reason: string,
  now: Date,
): Promise<ClaimedWithdrawal[]> {
  const { rows } = await tx.query<ClaimedWithdrawal>(
    `WITH locked AS (
       SELECT id, amount, created_at FROM withdrawals
       WHERE integrator_id = $1 AND asset_id = $2 AND blockchain_id = $3 AND status = 'pending' AND refund_id IS NULL FOR UPDATE
     ), waiting AS (
       SELECT id, sum(amount) OVER (ORDER BY created_at DESC, id DESC) - amount AS before FROM locked
     )
     UPDATE withdrawals w SET status = 'failed', failure_reason = $5, stalled_reason = NULL, updated_at = $6
     FROM waiting WHERE w.id = waiting.id AND waiting.before < $4::numeric
     RETURNING w.id, w.integrator_id, w.amount, w.asset_id, w.blockchain_id, w.address, w.attempts, w.refund_id, w.stalled_reason`,
    [account.integratorId, account.assetId, account.blockchainId, upTo, reason, now],
  );
  return rows;
}

/**
 * Records why unfinished withdrawals are held up (a reason, or null once they are not), each only
 * where that changes: a reason that holds costs no write however often it is found again. Resolves
 * with the withdrawals it changed, with their network and new reason.
 */
export async function setStalledReasons(
  db: Queryable,
  changes: ReadonlyArray<{ id: string; reason: StalledReason | null }>,
  now: Date,
): Promise<Array<{ id: string; blockchain_id: string; stalled_reason: StalledReason | null }>> {
  if (changes.length === 0) return [];
  const { rows } = await db.query<{ id: string; blockchain_id: string; stalled_reason: StalledReason | null }>(
    `UPDATE withdrawals w SET stalled_reason = c.reason, updated_at = $3
       FROM unnest($1::uuid[], $2::text[]) AS c(id, reason)
      WHERE w.id = c.id AND w.status IN (${UNFINISHED}) AND w.stalled_reason IS DISTINCT FROM c.reason
      RETURNING w.id, w.blockchain_id, w.stalled_reason`,
    [changes.map((change) => change.id), changes.map((change) => change.reason), now],
  );
  return rows;
}

/**
 * Payouts on `halted` networks are halted: their unfinished withdrawals say so (`chain_halted`); those
 * of `resumed` networks that said so say nothing any more. Only where that changes.
 */
export async function markHalted(db: Queryable, halted: readonly string[], resumed: readonly string[], now: Date): Promise<number> {
  if (halted.length === 0 && resumed.length === 0) return 0;
  const { rows } = await db.query(
    `UPDATE withdrawals SET stalled_reason = CASE WHEN blockchain_id = ANY($1::text[]) THEN 'chain_halted' END, updated_at = $3
      WHERE status IN (${UNFINISHED})
        AND ((blockchain_id = ANY($1::text[]) AND stalled_reason IS DISTINCT FROM 'chain_halted')
          OR (blockchain_id = ANY($2::text[]) AND stalled_reason = 'chain_halted'))
      RETURNING id`,
    [[...halted], [...resumed], now],
  );
  return rows.length;
}

/** How many unfinished withdrawals of `blockchainId` wait for the hot wallet (held pending, or signed and refused for gas). */
export async function countWaitingForHotWallet(db: Queryable, blockchainId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM withdrawals WHERE blockchain_id = $1 AND status IN (${UNFINISHED}) AND stalled_reason = ANY($2::text[])`,
    [blockchainId, [...HOLDING_REASONS]],
  );
  return rows[0]?.n ?? 0;
}

/** The pending withdrawals of `blockchainId` held for the hot wallet (`HOLDING_REASONS`), oldest first. */
export async function heldForHotWallet(
  db: Queryable,
  blockchainId: string,
): Promise<Array<{ id: string; asset_id: AssetId; amount: string; stalled_reason: StalledReason }>> {
  const { rows } = await db.query<{ id: string; asset_id: AssetId; amount: string; stalled_reason: StalledReason }>(
    `SELECT id, asset_id, amount::text AS amount, stalled_reason FROM withdrawals
      WHERE blockchain_id = $1 AND status = 'pending' AND stalled_reason = ANY($2::text[]) ORDER BY created_at, id`,
    [blockchainId, [...HOLDING_REASONS]],
  );
  return rows;
}
