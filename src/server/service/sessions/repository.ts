/**
 * The SQL of `checkout_sessions` and `chain_transfers`: nothing else in the service reads or writes
 * them. A session's read joins its link through the links room's `linkSql` fragment.
 */
import type { AssetId } from '../../../core/money.js';
import type { SessionStatus } from '../../../core/schemas.js';
import type { Queryable } from '../../db/index.js';
import { linkSql } from '../links/index.js';

/** A session as read, with its link's slug and post-payment action. */
export interface SessionRow {
  id: string;
  link_id: string;
  integrator_id: string;
  status: SessionStatus;
  fiat_amount: string;
  fiat_currency: string;
  asset_id: AssetId;
  blockchain_id: string;
  network_name: string;
  crypto_amount: string;
  paid_amount: string;
  late_amount: string;
  pay_address: string;
  tx_hash: string | null;
  expires_at: Date;
  created_at: Date;
  slug: string;
  redirect: boolean;
  show_confirmation_page: boolean;
  success_message: string;
  redirect_url: string;
}

const SESSION_SELECT = `SELECT s.id, s.link_id, s.integrator_id, s.status, s.fiat_amount, s.fiat_currency, s.asset_id,
  s.blockchain_id, s.network_name, s.crypto_amount, s.paid_amount, s.late_amount, s.pay_address, s.tx_hash,
  s.expires_at, s.created_at, ${linkSql.sessionColumns('l')}
  FROM checkout_sessions s ${linkSql.join('l', 's.link_id')}`;

/** A new session, as `insertSession` records it. */
export interface NewSession {
  id: string;
  linkId: string;
  integratorId: string;
  fiatAmount: string;
  fiatCurrency: string;
  assetId: AssetId;
  blockchainId: string;
  networkName: string;
  cryptoAmount: string;
  payAddress: string;
  customer: { address: string | null; phone: string | null; email: string | null };
  expiresAt: Date;
  createdAt: Date;
}

/** Records a new `awaiting_payment` session. */
export async function insertSession(db: Queryable, session: NewSession): Promise<void> {
  await db.query(
    `INSERT INTO checkout_sessions (id, link_id, integrator_id, status, fiat_amount, fiat_currency, asset_id, blockchain_id,
       network_name, crypto_amount, pay_address, customer_address, customer_phone, customer_email, expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, 'awaiting_payment', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)`,
    [
      session.id,
      session.linkId,
      session.integratorId,
      session.fiatAmount,
      session.fiatCurrency,
      session.assetId,
      session.blockchainId,
      session.networkName,
      session.cryptoAmount,
      session.payAddress,
      session.customer.address,
      session.customer.phone,
      session.customer.email,
      session.expiresAt,
      session.createdAt,
    ],
  );
}

/** A session by id, or undefined. */
export async function findSession(db: Queryable, id: string): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(`${SESSION_SELECT} WHERE s.id = $1`, [id]);
  return rows[0];
}

/** Marks one open session `expired` if its quote has run out; true when this call expired it. */
export async function expireSession(tx: Queryable, id: string, now: Date): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE checkout_sessions SET status = 'expired', updated_at = $2
     WHERE id = $1 AND status IN ('awaiting_payment', 'underpaid') AND expires_at <= $2 RETURNING id`,
    [id, now],
  );
  return rows.length === 1;
}

/** Marks up to `batch` open sessions whose quote has run out `expired` (skipping rows others hold); returns their ids. */
export async function expireDue(tx: Queryable, now: Date, batch: number): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE checkout_sessions SET status = 'expired', updated_at = $1
     WHERE id IN (SELECT id FROM checkout_sessions
                  WHERE status IN ('awaiting_payment', 'underpaid') AND expires_at <= $1
                  ORDER BY expires_at LIMIT ${batch} FOR UPDATE SKIP LOCKED)
     RETURNING id`,
    [now],
  );
  return rows.map((row) => row.id);
}

/** What settlement needs of a session, read under its row lock. */
export interface LockedSession {
  id: string;
  link_id: string;
  integrator_id: string;
  status: SessionStatus;
  asset_id: AssetId;
  crypto_amount: string;
  paid_amount: string;
  late_amount: string;
  expires_at: Date;
}

/**
 * Locks the session paid at `payAddress` on `blockchainId` until the caller's transaction ends: the
 * lock orders every transfer to one session, across instances.
 */
export async function lockSessionByAddress(tx: Queryable, blockchainId: string, payAddress: string): Promise<LockedSession | undefined> {
  const { rows } = await tx.query<LockedSession>(
    `SELECT id, link_id, integrator_id, status, asset_id, crypto_amount, paid_amount, late_amount, expires_at
     FROM checkout_sessions WHERE blockchain_id = $1 AND lower(pay_address) = lower($2) FOR UPDATE`,
    [blockchainId, payAddress],
  );
  return rows[0];
}

/** Writes what a transfer changed of a locked session. */
export async function updateSettlement(
  tx: Queryable,
  change: { id: string; status: SessionStatus; paidAmount: string; lateAmount: string; txHash: string | null; settledAt: Date | null; now: Date },
): Promise<void> {
  await tx.query(
    `UPDATE checkout_sessions SET status = $2, paid_amount = $3, late_amount = $4,
       tx_hash = CASE WHEN $5::boolean THEN $6 ELSE tx_hash END,
       settled_at = CASE WHEN $7::boolean THEN $8::timestamptz ELSE settled_at END, updated_at = $8
     WHERE id = $1`,
    [change.id, change.status, change.paidAmount, change.lateAmount, change.txHash !== null, change.txHash, change.settledAt !== null, change.now],
  );
}

// ---------------------------------------------------------------------------------------------
// chain_transfers

/** The session a transfer hash was recorded for on `blockchainId`, or undefined. */
export async function findTransferSession(db: Queryable, blockchainId: string, txHash: string): Promise<string | undefined> {
  const { rows } = await db.query<{ session_id: string }>(
    'SELECT session_id FROM chain_transfers WHERE blockchain_id = $1 AND tx_hash = $2',
    [blockchainId, txHash],
  );
  return rows[0]?.session_id;
}

/** A transfer to record. */
export interface NewTransfer {
  id: string;
  sessionId: string;
  blockchainId: string;
  txHash: string;
  assetId: AssetId;
  amount: string;
  toAddress: string;
  kind: 'payment' | 'late_payment';
  sandbox: boolean;
  receivedAt: Date;
}

/** Records a transfer once; false when the same hash was recorded concurrently (the unique key decided). */
export async function insertTransfer(tx: Queryable, transfer: NewTransfer): Promise<boolean> {
  const { rows } = await tx.query(
    `INSERT INTO chain_transfers (id, session_id, blockchain_id, tx_hash, asset_id, amount, to_address, kind, sandbox, received_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING id`,
    [
      transfer.id,
      transfer.sessionId,
      transfer.blockchainId,
      transfer.txHash,
      transfer.assetId,
      transfer.amount,
      transfer.toAddress,
      transfer.kind,
      transfer.sandbox,
      transfer.receivedAt,
    ],
  );
  return rows.length === 1;
}
