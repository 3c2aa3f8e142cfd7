/**
 * The SQL of what is read of `checkout_sessions` beside paying them: the merchant's view (sessions with
 * what the customer entered, and their transfers), a fundraiser's public donors, what a session brought
 * in and its resolution (for the refunds room), and the retention of never-paid sessions. The session
 * row and its payment are ./repository.ts's.
 */
import type { SessionStatus } from '../../../core/schemas.js';
import type { Queryable } from '../../db/index.js';
import { linkSql } from '../links/index.js';
import { refundedOfSessionSql } from '../refunds/refunded-sql.js';
import { OPEN, SETTLED, type SessionRow } from './repository.js';

// ---------------------------------------------------------------------------------------------
// A fundraiser's donors

/** A paid donation whose donor chose to be listed, as stored. */
export interface PublicDonorRow {
  donor_name: string | null;
  donor_message: string | null;
  fiat_amount: string;
  fiat_currency: string;
  settled_at: Date;
}

/**
 * The latest `limit` paid donations of link `linkId` whose donor chose to be shown and that the
 * merchant has not hidden, newest first (the partial index `checkout_sessions_public_donors`).
 */
export async function listPublicDonorRows(db: Queryable, linkId: string, limit: number): Promise<PublicDonorRow[]> {
  const { rows } = await db.query<PublicDonorRow>(
    `SELECT donor_name, donor_message, fiat_amount::text AS fiat_amount, fiat_currency, settled_at FROM checkout_sessions
     WHERE link_id = $1 AND show_publicly AND donor_hidden_at IS NULL AND status IN (${SETTLED})
     ORDER BY settled_at DESC LIMIT ${Number(limit)}`,
    [linkId],
  );
  return rows;
}

/** Hides the donor of one of `integratorId`'s sessions from its link's page (once: the first time stays); false when it is not theirs. */
export async function hideDonorRow(tx: Queryable, id: string, integratorId: string, now: Date): Promise<boolean> {
  const { rows } = await tx.query(
    'UPDATE checkout_sessions SET donor_hidden_at = coalesce(donor_hidden_at, $3), updated_at = $3 WHERE id = $1 AND integrator_id = $2 RETURNING id',
    [id, integratorId, now],
  );
  return rows.length === 1;
}

// ---------------------------------------------------------------------------------------------
// The merchant's view: sessions with what the customer entered, and their transfers

/** A session as its merchant reads it, with its link's slug and title (null for a session of an order). */
export interface SessionRecordRow extends Omit<SessionRow, 'tx_hash' | 'redirect' | 'show_confirmation_page' | 'success_message' | 'redirect_url'> {
  reference: string | null;
  metadata: Record<string, string>;
  client_reference: string | null;
  customer_address: string | null;
  customer_phone: string | null;
  customer_email: string | null;
  settled_at: Date | null;
  link_title: string | null;
  reversed_amount: string;
  /** What its refunds not failed or cancelled give back (the refunds room's `refundedOfSessionSql`). */
  refunded_amount: string;
  resolution: 'merchant' | null;
  resolved_at: Date | null;
  resolution_reason: string | null;
  /** jsonb: what the quote was made of (null on sessions quoted before it was recorded). */
  rate_basis: unknown[] | string | null;
  finalized_at: Date | null;
  donor_name: string | null;
  donor_message: string | null;
  show_publicly: boolean;
  donor_hidden_at: Date | null;
}

const RECORD_SELECT = `SELECT s.id, s.link_id, s.order_id, s.integrator_id, s.status, s.fiat_amount, s.fiat_currency, s.asset_id,
  s.blockchain_id, s.network_name, s.crypto_amount, s.rate, s.rate_source, s.rate_at, s.rate_basis, s.paid_amount, s.late_amount, s.reversed_amount, s.pay_address, s.reference, s.metadata,
  s.client_reference, s.customer_address, s.customer_phone, s.customer_email, s.created_at, s.settled_at, s.expires_at,
  s.paid_blockchain_id, s.finalized_at, s.donor_name, s.donor_message, s.show_publicly, s.donor_hidden_at,
  ${linkSql.slug('l')} AS slug, ${linkSql.title('l')} AS link_title,
  ${refundedOfSessionSql('s.id')} AS refunded_amount, s.resolution, s.resolved_at, s.resolution_reason
  FROM checkout_sessions s ${linkSql.join('l', 's.link_id')}`;

/** One session as its merchant reads it; `integratorId` limits it to that integrator's (another's is undefined). */
export async function findSessionRecord(db: Queryable, id: string, integratorId?: string): Promise<SessionRecordRow | undefined> {
  const { rows } = await db.query<SessionRecordRow>(
    integratorId === undefined ? `${RECORD_SELECT} WHERE s.id = $1` : `${RECORD_SELECT} WHERE s.id = $1 AND s.integrator_id = $2`,
    integratorId === undefined ? [id] : [id, integratorId],
  );
  return rows[0];
}

/** Filters of `listSessionRecords`: `createdFrom` inclusive, `createdBefore` exclusive or `createdUntil` inclusive. */
export interface SessionFilter {
  linkId?: string | undefined;
  status?: SessionStatus | undefined;
  reference?: string | undefined;
  createdFrom?: Date | undefined;
  createdBefore?: Date | undefined;
  createdUntil?: Date | undefined;
}

/** One page of an integrator's sessions, newest first, and how many match in all. */
export async function listSessionRecords(
  db: Queryable,
  integratorId: string,
  filter: SessionFilter,
  page: { page: number; limit: number },
): Promise<{ rows: SessionRecordRow[]; totalItems: number }> {
  const where = ['s.integrator_id = $1'];
  const params: unknown[] = [integratorId];
  const add = (condition: string, value: unknown) => {
    params.push(value);
    where.push(condition.replace('?', `$${params.length}`));
  };
  if (filter.linkId !== undefined) add('s.link_id = ?', filter.linkId);
  if (filter.status !== undefined) add('s.status = ?', filter.status);
  if (filter.reference !== undefined) add('s.reference = ?', filter.reference);
  if (filter.createdFrom) add('s.created_at >= ?', filter.createdFrom);
  if (filter.createdBefore) add('s.created_at < ?', filter.createdBefore);
  if (filter.createdUntil) add('s.created_at <= ?', filter.createdUntil);
  const condition = where.join(' AND ');
  const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM checkout_sessions s WHERE ${condition}`, params);
  const { rows } = await db.query<SessionRecordRow>(
    `${RECORD_SELECT} WHERE ${condition}
     ORDER BY s.created_at DESC, s.id DESC LIMIT ${page.limit} OFFSET ${(page.page - 1) * page.limit}`,
    params,
  );
  return { rows, totalItems: count.rows[0]?.total ?? 0 };
}

/** A transfer as the merchant's view lists it. */
export interface TransferRow {
  session_id: string;
  blockchain_id: string;
  tx_hash: string;
  amount: string;
  kind: 'payment' | 'late_payment';
  received_at: Date;
}

/** Every transfer of these sessions, oldest first (at one instant, counted ones before late ones). */
export async function findTransfersOf(db: Queryable, sessionIds: readonly string[]): Promise<TransferRow[]> {
  if (sessionIds.length === 0) return [];
  const { rows } = await db.query<TransferRow>(
    `SELECT session_id, blockchain_id, tx_hash, amount, kind, received_at FROM chain_transfers
     WHERE session_id = ANY($1::uuid[]) ORDER BY received_at, kind = 'late_payment', id`,
    [sessionIds],
  );
  return rows;
}

/**
 * Retention: deletes up to `batch` sessions that expired before `expiredBefore` having received
 * nothing (no transfer of any kind, so nothing in the ledger refers to them, directly or through a
 * transfer; nor any on-chain transfer the scanner recorded, dust or reorged out included, whose
 * record keeps its session); returns how many. Rows another instance holds are skipped.
 */
export async function deleteNeverPaidExpired(tx: Queryable, expiredBefore: Date, batch: number): Promise<number> {
  const { rows } = await tx.query(
    `DELETE FROM checkout_sessions WHERE id IN (
       SELECT s.id FROM checkout_sessions s
       WHERE s.status = 'expired' AND s.paid_amount = 0 AND s.late_amount = 0 AND s.expires_at < $1
         AND NOT EXISTS (SELECT 1 FROM chain_transfers t WHERE t.session_id = s.id)
         AND NOT EXISTS (SELECT 1 FROM incoming_transfers i WHERE i.session_id = s.id)
       ORDER BY s.expires_at LIMIT ${batch} FOR UPDATE OF s SKIP LOCKED)
     RETURNING id`,
    [expiredBefore],
  );
  return rows.length;
}

// ---------------------------------------------------------------------------------------------
// Refunds and resolutions (the refunds room's, in its own transactions)

/** What a session brought in on one network: its credited transfers not reversed, final or not yet. */
export interface SessionFunds {
  blockchain_id: string;
  /** Final: in the merchant's `available` balance (what can be refunded). */
  final_amount: string;
  /** Credited at its confirmations, not final yet (in `pending`). */
  unfinal_amount: string;
}

/**
 * What session `id` brought in, per network it was paid on (a customer may pay on another configured
 * network than the quoted one): the session's own network first, then by id.
 */
export async function sessionFunds(db: Queryable, id: string): Promise<SessionFunds[]> {
  const { rows } = await db.query<SessionFunds>(
    `SELECT t.blockchain_id,
       coalesce(sum(t.amount) FILTER (WHERE t.final_at IS NOT NULL), 0)::text AS final_amount,
       coalesce(sum(t.amount) FILTER (WHERE t.final_at IS NULL), 0)::text AS unfinal_amount
     FROM chain_transfers t JOIN checkout_sessions s ON s.id = t.session_id
     WHERE t.session_id = $1 AND t.reversed_at IS NULL
     GROUP BY t.blockchain_id, s.blockchain_id ORDER BY t.blockchain_id = s.blockchain_id DESC, t.blockchain_id`,
    [id],
  );
  return rows;
}

/**
 * Marks a locked session resolved by its merchant (accepted as paid): `resolution`, `resolvedAt`, and an
 * open (underpaid) session closes (`expired`), so that a later transfer to it is a late payment, never a
 * second payment of what was accepted. The caller holds the session's lock.
 */
export async function markSessionResolved(tx: Queryable, id: string, reason: string | null, now: Date): Promise<void> {
  await tx.query(
    `UPDATE checkout_sessions SET resolution = 'merchant', resolved_at = $2, resolution_reason = $3, updated_at = $2,
       status = CASE WHEN status IN (${OPEN}) THEN 'expired' ELSE status END
     WHERE id = $1`,
    [id, now, reason],
  );
}
