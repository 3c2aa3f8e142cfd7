/**
 * The SQL of `refunds`: nothing else in the service writes it (the sessions and orders rooms read what
 * was refunded only through ./refunded-sql.ts). A refund's payout is a withdrawal, read here through the
 * withdrawals room's `payoutSql`: while the refund is `paying`, its status is its payout's.
 */
import type { AssetId } from '../../../core/money.js';
import type { RefundStatusName } from '../../../core/rules/refund.js';
import type { StalledReason } from '../../../core/schemas.js';
import type { Queryable } from '../../db/index.js';
import { integratorSql } from '../keys/index.js';
import { payoutSql } from '../withdrawals/index.js';
import { RETURNED } from './refunded-sql.js';

/** What the `status` column holds: the API's statuses but `pending` and `processing`, which are the payout's (`paying`). */
export type StoredRefundStatus = 'awaiting_address' | 'cancelled' | 'paying' | 'success' | 'failed';

/** A refund as read, with its payout's state. */
export interface RefundRow {
  id: string;
  integrator_id: string;
  session_id: string;
  order_id: string | null;
  asset_id: AssetId;
  blockchain_id: string;
  amount: string;
  address: string | null;
  /** The API's status: the stored one, or the payout's while it is `paying`. */
  status: RefundStatusName;
  stored_status: StoredRefundStatus;
  claim_token_hash: string | null;
  claim_token_sealed: string | null;
  reason: string | null;
  tx_hash: string | null;
  failure_reason: string | null;
  stalled_reason: StalledReason | null;
  created_at: Date;
  updated_at: Date;
}

const SELECT = `SELECT r.id, r.integrator_id, r.session_id, r.order_id, r.asset_id, r.blockchain_id, r.amount::text AS amount, r.address,
  CASE WHEN r.status = 'paying' THEN coalesce(w.status, 'pending') ELSE r.status END AS status, r.status AS stored_status,
  r.claim_token_hash, r.claim_token_sealed, r.reason, w.tx_hash, w.failure_reason, w.stalled_reason, r.created_at,
  greatest(r.updated_at, w.updated_at) AS updated_at
  FROM refunds r ${payoutSql.joinRefund('w', 'r.id')}`;

/** A refund to record. */
export interface NewRefund {
  id: string;
  integratorId: string;
  sessionId: string;
  orderId: string | null;
  assetId: AssetId;
  blockchainId: string;
  amount: string;
  /** Null: it awaits the customer's address (then `claimTokenHash` is set). */
  address: string | null;
  claimTokenHash: string | null;
  claimTokenSealed: string | null;
  reason: string | null;
  now: Date;
}

/** Records a refund in the caller's transaction: `paying` with an address, else `awaiting_address`. */
export async function insertRefund(tx: Queryable, refund: NewRefund): Promise<void> {
  await tx.query(
    `INSERT INTO refunds (id, integrator_id, session_id, order_id, asset_id, blockchain_id, amount, address, status,
       claim_token_hash, claim_token_sealed, reason, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)`,
    [
      refund.id,
      refund.integratorId,
      refund.sessionId,
      refund.orderId,
      refund.assetId,
      refund.blockchainId,
      refund.amount,
      refund.address,
      refund.address === null ? 'awaiting_address' : 'paying',
      refund.claimTokenHash,
      refund.claimTokenSealed,
      refund.reason,
      refund.now,
    ],
  );
}

/** One refund (of `integratorId` only, when given), or undefined. */
export async function findRefund(db: Queryable, id: string, integratorId?: string): Promise<RefundRow | undefined> {
  const { rows } = await db.query<RefundRow>(
    integratorId === undefined ? `${SELECT} WHERE r.id = $1` : `${SELECT} WHERE r.id = $1 AND r.integrator_id = $2`,
    integratorId === undefined ? [id] : [id, integratorId],
  );
  return rows[0];
}

/** The refund's display name of its merchant (or '' when none was given), for the customer's claim page. */
export async function merchantNameOf(db: Queryable, integratorId: string): Promise<string> {
  const { rows } = await db.query<{ name: string | null }>(`SELECT ${integratorSql.displayName('$1::uuid')} AS name`, [integratorId]);
  return rows[0]?.name ?? '';
}

/** Locks refund `id` (of `integratorId` only, when given) until the caller's transaction ends; its stored row. */
export async function lockRefund(
  tx: Queryable,
  id: string,
  integratorId?: string,
): Promise<{ stored_status: StoredRefundStatus; claim_token_hash: string | null } | undefined> {
  const { rows } = await tx.query<{ stored_status: StoredRefundStatus; claim_token_hash: string | null }>(
    `SELECT status AS stored_status, claim_token_hash FROM refunds WHERE id = $1${integratorId === undefined ? '' : ' AND integrator_id = $2'} FOR UPDATE`,
    integratorId === undefined ? [id] : [id, integratorId],
  );
  return rows[0];
}

/**
 * What the session's refunds not failed or cancelled took, per network: what is no longer refundable.
 * Read after the session's lock, which every refund of it takes first, so a concurrent refund of it has
 * committed (or rolled back) by then.
 */
export async function refundedByNetwork(db: Queryable, sessionId: string): Promise<Map<string, string>> {
  const { rows } = await db.query<{ blockchain_id: string; amount: string }>(
    `SELECT blockchain_id, sum(amount)::text AS amount FROM refunds WHERE session_id = $1 AND status NOT IN (${RETURNED}) GROUP BY blockchain_id`,
    [sessionId],
  );
  return new Map(rows.map((row) => [row.blockchain_id, row.amount]));
}

/** A locked refund awaiting its address gets it: `paying` from now on, its seal gone (the link is spent). */
export async function setRefundAddress(tx: Queryable, id: string, address: string, now: Date): Promise<void> {
  await tx.query(
    `UPDATE refunds SET address = $2, status = 'paying', claim_token_sealed = NULL, updated_at = $3 WHERE id = $1 AND status = 'awaiting_address'`,
    [id, address, now],
  );
}

/** A locked refund awaiting its address is cancelled, its seal gone. */
export async function setRefundCancelled(tx: Queryable, id: string, now: Date): Promise<void> {
  await tx.query(`UPDATE refunds SET status = 'cancelled', claim_token_sealed = NULL, updated_at = $2 WHERE id = $1 AND status = 'awaiting_address'`, [
    id,
    now,
  ]);
}

/** Refunds whose payout finished: `success` or `failed`, in the transaction that finished it. */
export async function setRefundsFinished(tx: Queryable, finished: ReadonlyArray<{ id: string; ok: boolean }>, now: Date): Promise<void> {
  if (finished.length === 0) return;
  await tx.query(
    `UPDATE refunds r SET status = CASE WHEN f.ok THEN 'success' ELSE 'failed' END, updated_at = $3
     FROM unnest($1::uuid[], $2::boolean[]) AS f(id, ok) WHERE r.id = f.id AND r.status = 'paying'`,
    [finished.map((refund) => refund.id), finished.map((refund) => refund.ok), now],
  );
}

/** Filters of `listRefundRows`. */
export interface RefundFilter {
  status?: RefundStatusName | undefined;
  sessionId?: string | undefined;
  orderId?: string | undefined;
}

/** The stored condition of an API status (`pending` and `processing` are the payout's). */
function statusCondition(status: RefundStatusName, param: string): string {
  return status === 'pending' || status === 'processing' ? `r.status = 'paying' AND w.status = ${param}` : `r.status = ${param}`;
}

/** One page of an integrator's refunds, newest first, and how many match in all. */
export async function listRefundRows(
  db: Queryable,
  integratorId: string,
  filter: RefundFilter,
  page: { page: number; limit: number },
): Promise<{ rows: RefundRow[]; totalItems: number }> {
  const where = ['r.integrator_id = $1'];
  const params: unknown[] = [integratorId];
  const add = (condition: (param: string) => string, value: unknown) => {
    params.push(value);
    where.push(condition(`$${params.length}`));
  };
  if (filter.status !== undefined) add((param) => statusCondition(filter.status!, param), filter.status);
  if (filter.sessionId !== undefined) add((param) => `r.session_id = ${param}::uuid`, filter.sessionId);
  if (filter.orderId !== undefined) add((param) => `r.order_id = ${param}::uuid`, filter.orderId);
  const condition = where.join(' AND ');
  const count = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM refunds r ${payoutSql.joinRefund('w', 'r.id')} WHERE ${condition}`,
    params,
  );
  const { rows } = await db.query<RefundRow>(
    `${SELECT} WHERE ${condition} ORDER BY r.created_at DESC, r.id DESC LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`,
    params,
  );
  return { rows, totalItems: count.rows[0]?.total ?? 0 };
}
