/**
 * The SQL of `checkout_sessions` and `chain_transfers`: nothing else in the service reads or writes
 * them. A session pays a link or an order: its read joins both through the links room's `linkSql`
 * and the orders room's `orderSql` fragments. (The transfers a real chain's scanner follows before
 * they count are ../money-in/repository.ts's; opening a session is ./opening-repository.ts's, the
 * merchant's view, donors, refunds' reads and retention ./record-repository.ts's.)
 */
import type { AssetId } from '../../../core/money.js';
import type { SessionStatus } from '../../../core/schemas.js';
import { OPEN_STATUSES, SETTLED_STATUSES } from '../../../core/rules/session.js';
import type { Queryable, SqlParam } from '../../db/index.js';
import { sqlList } from '../../db/sql-list.js';
import { linkSql } from '../links/index.js';
import { orderSql } from '../orders/index.js';

/** A session as read, with its link's slug and its link's or order's post-payment action. */
export interface SessionRow {
  id: string;
  link_id: string | null;
  order_id: string | null;
  integrator_id: string;
  status: SessionStatus;
  fiat_amount: string;
  fiat_currency: string;
  asset_id: AssetId;
  blockchain_id: string;
  network_name: string;
  crypto_amount: string;
  /** The quote's rate (asset units per fiat unit), its sources and time; null on sessions quoted before they were recorded. */
  rate: string | null;
  rate_source: string | null;
  rate_at: Date | null;
  paid_amount: string;
  late_amount: string;
  pay_address: string;
  tx_hash: string | null;
  /** The network of `tx_hash` (the last transfer counted); null until one counts. */
  paid_blockchain_id: string | null;
  expires_at: Date;
  created_at: Date;
  /** While `confirming`: the least-confirmed transfer still waiting (its confirmations, hash and network). */
  confirmations?: number | null;
  pending_tx_hash?: string | null;
  pending_blockchain_id?: string | null;
  slug: string | null;
  redirect: boolean;
  show_confirmation_page: boolean;
  success_message: string;
  redirect_url: string;
}

/** The open statuses (a session that still takes payments), as an SQL list. */
export const OPEN = sqlList(OPEN_STATUSES);

/** The settled statuses (paid in full, or more), as an SQL list. */
export const SETTLED = sqlList(SETTLED_STATUSES);

/** The transfer a `confirming` session waits on longest (CASE: not looked for in any other status). */
export const WAITING_TRANSFER = `FROM incoming_transfers t WHERE t.session_id = s.id AND t.status = 'seen' ORDER BY t.confirmations, t.seen_at LIMIT 1`;

/** The post-payment action of a session: its link's, or its order's. */
export const POSTPAY = (['redirect', 'show_confirmation_page', 'success_message', 'redirect_url'] as const)
  .map((column) => `coalesce(${linkSql.postpay('l')[column]}, ${orderSql.postpay('o')[column]}) AS ${column}`)
  .join(', ');

/** A session's link and order (a session has one or the other). */
export const JOINS = `${linkSql.join('l', 's.link_id')} ${orderSql.join('o', 's.order_id')}`;

export const SESSION_SELECT = `SELECT s.id, s.link_id, s.order_id, s.integrator_id, s.status, s.fiat_amount, s.fiat_currency, s.asset_id,
  s.blockchain_id, s.network_name, s.crypto_amount, s.rate, s.rate_source, s.rate_at, s.paid_amount, s.late_amount, s.pay_address, s.tx_hash,
  s.paid_blockchain_id, s.expires_at, s.created_at,
  CASE WHEN s.status = 'confirming' THEN (SELECT t.confirmations ${WAITING_TRANSFER}) END AS confirmations,
  CASE WHEN s.status = 'confirming' THEN (SELECT t.tx_hash ${WAITING_TRANSFER}) END AS pending_tx_hash,
  CASE WHEN s.status = 'confirming' THEN (SELECT t.blockchain_id ${WAITING_TRANSFER}) END AS pending_blockchain_id,
  ${linkSql.slug('l')} AS slug, ${POSTPAY}
  FROM checkout_sessions s ${JOINS}`;

/** A session by id, or undefined. */
export async function findSession(db: Queryable, id: string): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(`${SESSION_SELECT} WHERE s.id = $1`, [id]);
  return rows[0];
}

/**
 * On real networks (`scanned`: the ids of every configured network), an unpaid session may expire
 * only once the scanner of every one of them has read every block up to its expiry
 * (`chain_cursors.covered_until`): a transfer on any configured network pays the session, and while a
 * node is down or its scanner catches up, a transfer made in time may still be unseen, so the session
 * stays open. `$scanned` is the statement's parameter holding the list.
 */
function coveredSql(scanned: readonly string[] | undefined, table: string, param: string): string {
  return scanned
    ? ` AND NOT EXISTS (SELECT 1 FROM unnest(${param}::text[]) AS n(id)
        WHERE NOT EXISTS (SELECT 1 FROM chain_cursors c WHERE c.blockchain_id = n.id AND c.covered_until >= ${table}.expires_at))`
    : '';
}

/** A session that was just expired: its id and its integrator (whose webhooks hear of it). */
export interface ExpiredSession {
  id: string;
  integratorId: string;
}

/**
 * Marks one open session `expired` if its quote has run out (on real networks, `scanned`, once each
 * one's scanner has read past it); the session when this call expired it.
 */
export async function expireSession(tx: Queryable, id: string, now: Date, scanned?: readonly string[]): Promise<ExpiredSession | undefined> {
  const { rows } = await tx.query<{ id: string; integrator_id: string }>(
    `UPDATE checkout_sessions SET status = 'expired', updated_at = $2
     WHERE id = $1 AND status IN (${OPEN}) AND expires_at <= $2${coveredSql(scanned, 'checkout_sessions', '$3')} RETURNING id, integrator_id`,
    scanned ? [id, now, [...scanned]] : [id, now],
  );
  return rows[0] && { id: rows[0].id, integratorId: rows[0].integrator_id };
}

/** Marks up to `batch` open sessions whose quote has run out `expired` (skipping rows others hold; see `expireSession`); returns them. */
export async function expireDue(tx: Queryable, now: Date, batch: number, scanned?: readonly string[]): Promise<ExpiredSession[]> {
  const { rows } = await tx.query<{ id: string; integrator_id: string }>(
    `UPDATE checkout_sessions SET status = 'expired', updated_at = $1
     WHERE id IN (SELECT id FROM checkout_sessions s
                  WHERE status IN (${OPEN}) AND expires_at <= $1${coveredSql(scanned, 's', '$2')}
                  ORDER BY expires_at LIMIT ${batch} FOR UPDATE SKIP LOCKED)
     RETURNING id, integrator_id`,
    scanned ? [now, [...scanned]] : [now],
  );
  return rows.map((row) => ({ id: row.id, integratorId: row.integrator_id }));
}

/** What settlement needs of a session, read under its row lock. */
export interface LockedSession {
  id: string;
  link_id: string | null;
  order_id: string | null;
  integrator_id: string;
  status: SessionStatus;
  asset_id: AssetId;
  crypto_amount: string;
  paid_amount: string;
  late_amount: string;
  expires_at: Date;
  /** What it counts toward its link's fundraiser once paid (`Gift` of the links room); nulls for none. */
  raise_amount: string | null;
  raise_currency: string | null;
}

/**
 * The session paid at `payAddress`, and its order (if it pays one), without a lock. A deposit address
 * is the same on every network and serves one session (one deposit index each), so a transfer to it on
 * any configured network pays that session; should two sessions of different networks ever share an
 * address (the sandbox's made-up addresses), the one quoted on `blockchainId` is taken.
 */
export async function findSessionByAddress(
  db: Queryable,
  blockchainId: string,
  payAddress: string,
): Promise<{ id: string; order_id: string | null } | undefined> {
  const { rows } = await db.query<{ id: string; order_id: string | null }>(
    `SELECT id, order_id FROM checkout_sessions WHERE lower(pay_address) = lower($2)
     ORDER BY blockchain_id = $1 DESC, created_at LIMIT 1`,
    [blockchainId, payAddress],
  );
  return rows[0];
}

/** The order session `id` pays, or undefined (a session of a link, or no such session). */
export async function orderOfSession(db: Queryable, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ order_id: string | null }>('SELECT order_id FROM checkout_sessions WHERE id = $1', [id]);
  return rows[0]?.order_id ?? undefined;
}

/**
 * Locks session `id` until the caller's transaction ends: the lock orders every transfer to one
 * session, across instances. (A session of an order is locked after its order.)
 */
export async function lockSessionForSettlement(tx: Queryable, id: string): Promise<LockedSession | undefined> {
  const { rows } = await tx.query<LockedSession>(
    `SELECT id, link_id, order_id, integrator_id, status, asset_id, crypto_amount, paid_amount, late_amount, expires_at,
       raise_amount::text AS raise_amount, raise_currency
     FROM checkout_sessions WHERE id = $1 FOR UPDATE`,
    [id],
  );
  return rows[0];
}

/**
 * Closes (`expired`) the sessions of order `orderId` still awaiting payment or underpaid, but
 * `exceptId`, once the order can no longer be paid (paid by another session, or cancelled); returns
 * them. A session another transaction holds is skipped: that transaction is settling a transfer to
 * it, and settlement sees the order closed. A transfer to a closed session is a late payment.
 */
export async function closeSessionsOfOrder(tx: Queryable, orderId: string, now: Date, exceptId: string | null): Promise<ExpiredSession[]> {
  const { rows } = await tx.query<{ id: string; integrator_id: string }>(
    `UPDATE checkout_sessions SET status = 'expired', updated_at = $2
     WHERE id IN (SELECT id FROM checkout_sessions WHERE order_id = $1 AND id IS DISTINCT FROM $3::uuid
                  AND status IN (${OPEN}) FOR UPDATE SKIP LOCKED)
     RETURNING id, integrator_id`,
    [orderId, now, exceptId],
  );
  return rows.map((row) => ({ id: row.id, integratorId: row.integrator_id }));
}

/**
 * An SQL condition, for one statement of another room: true when the address that `addressSql`
 * yields (any case) is where one of `integratorId`'s sessions is paid, so the scanner of `blockchainId`
 * (as of every configured network: a deposit address is the same on all of them) reads every transfer
 * to it as a payment of that session (a late one once it ended).
 */
export function depositAddressOfSql(param: SqlParam, integratorId: string, _blockchainId: string, addressSql: string): string {
  return `EXISTS (SELECT 1 FROM checkout_sessions WHERE lower(pay_address) = lower(${addressSql}) AND integrator_id = ${param(integratorId)}::uuid)`;
}

/**
 * Writes what a transfer changed of a locked session: a counted transfer (`paid`: its hash and
 * network) becomes the session's `tx_hash` and `paid_blockchain_id`; `finalizedAt`, where given, is when
 * its money became final (the sandbox: at once).
 */
export async function updateSettlement(
  tx: Queryable,
  change: {
    id: string;
    status: SessionStatus;
    paidAmount: string;
    lateAmount: string;
    paid: { txHash: string; blockchainId: string } | null;
    settledAt: Date | null;
    finalizedAt?: Date | null | undefined;
    now: Date;
  },
): Promise<void> {
  await tx.query(
    `UPDATE checkout_sessions SET status = $2, paid_amount = $3, late_amount = $4,
       tx_hash = CASE WHEN $5::boolean THEN $6 ELSE tx_hash END,
       paid_blockchain_id = CASE WHEN $5::boolean THEN $9 ELSE paid_blockchain_id END,
       settled_at = CASE WHEN $7::boolean THEN $8::timestamptz ELSE settled_at END,
       finalized_at = coalesce($10::timestamptz, finalized_at), updated_at = $8
     WHERE id = $1`,
    [
      change.id,
      change.status,
      change.paidAmount,
      change.lateAmount,
      change.paid !== null,
      change.paid?.txHash ?? null,
      change.settledAt !== null,
      change.now,
      change.paid?.blockchainId ?? null,
      change.finalizedAt ?? null,
    ],
  );
}

/**
 * Marks a settled session's money final when every transfer counted toward it is final (none waits
 * for its block to be final, none was reversed after all), once; true when this call marked it. The
 * caller holds the session's lock.
 */
export async function markSessionFinal(tx: Queryable, sessionId: string, now: Date): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE checkout_sessions s SET finalized_at = $2, updated_at = $2
     WHERE s.id = $1 AND s.finalized_at IS NULL AND s.status IN (${SETTLED})
       AND NOT EXISTS (SELECT 1 FROM chain_transfers t WHERE t.session_id = s.id AND t.kind = 'payment' AND t.reversed_at IS NULL AND t.final_at IS NULL)
     RETURNING s.id`,
    [sessionId, now],
  );
  return rows.length === 1;
}

// ---------------------------------------------------------------------------------------------
// chain_transfers

/**
 * The session a transfer was recorded for on `blockchainId`, or undefined: by hash and log index on
 * a real chain, by hash alone on the sandbox (no log index). A reversed transfer no longer counts.
 */
export async function findTransferSession(db: Queryable, blockchainId: string, txHash: string, logIndex?: number): Promise<string | undefined> {
  const { rows } = await db.query<{ session_id: string }>(
    'SELECT session_id FROM chain_transfers WHERE blockchain_id = $1 AND tx_hash = $2 AND coalesce(log_index, -1) = $3 AND reversed_at IS NULL',
    [blockchainId, txHash, logIndex ?? -1],
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
  /** Real chains: the log index (the key is network + hash + log index). */
  logIndex?: number | undefined;
  /** When its funds became available: at once on the sandbox; on a real chain null until its block is final. */
  finalAt: Date | null;
}

/** Records a transfer once; false when the same transfer was recorded concurrently (the unique key decided). */
export async function insertTransfer(tx: Queryable, transfer: NewTransfer): Promise<boolean> {
  const { rows } = await tx.query(
    `INSERT INTO chain_transfers (id, session_id, blockchain_id, tx_hash, asset_id, amount, to_address, kind, sandbox, received_at, log_index, final_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING RETURNING id`,
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
      transfer.logIndex ?? null,
      transfer.finalAt,
    ],
  );
  return rows.length === 1;
}

/** A credited transfer whose funds are not final yet, with what finishing it needs. */
export interface UnfinalTransfer {
  id: string;
  session_id: string;
  integrator_id: string;
  link_id: string;
  blockchain_id: string;
  asset_id: AssetId;
  kind: 'payment' | 'late_payment';
  amount: string;
  /** What its session counted toward its link's fundraiser (nulls for none). */
  raise_amount: string | null;
  raise_currency: string | null;
}

/** The session a credited transfer belongs to (no lock: the caller locks the session first, then the transfer). */
export async function sessionOfTransfer(db: Queryable, transferId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ session_id: string }>('SELECT session_id FROM chain_transfers WHERE id = $1', [transferId]);
  return rows[0]?.session_id;
}

/**
 * Locks a credited transfer if it is neither final nor reversed; with `orFinal`, also one that is final
 * (a reversal after a reorganization past finality), saying which (`final`).
 */
export async function lockUnfinalTransfer(tx: Queryable, transferId: string, orFinal = false): Promise<(UnfinalTransfer & { final: boolean }) | undefined> {
  const { rows } = await tx.query<UnfinalTransfer & { final: boolean }>(
    `SELECT t.id, t.session_id, s.integrator_id, s.link_id, t.blockchain_id, t.asset_id, t.kind, t.amount::text AS amount, t.final_at IS NOT NULL AS final,
       s.raise_amount::text AS raise_amount, s.raise_currency
     FROM chain_transfers t JOIN checkout_sessions s ON s.id = t.session_id
     WHERE t.id = $1 AND (t.final_at IS NULL OR $2::boolean) AND t.reversed_at IS NULL FOR UPDATE OF t`,
    [transferId, orFinal],
  );
  return rows[0];
}

/**
 * Marks a credited transfer final (its funds available) or reversed (gone); false when it was either
 * already. A final transfer is reversed only with `orFinal` (a reorganization past finality).
 */
export async function closeTransfer(tx: Queryable, transferId: string, as: 'final' | 'reversed', now: Date, orFinal = false): Promise<boolean> {
  const column = as === 'final' ? 'final_at' : 'reversed_at';
  const { rows } = await tx.query(
    `UPDATE chain_transfers SET ${column} = $2 WHERE id = $1 AND (final_at IS NULL OR $3::boolean) AND reversed_at IS NULL RETURNING id`,
    [transferId, now, as === 'reversed' && orFinal],
  );
  return rows.length === 1;
}

/**
 * Takes a reversed transfer out of its locked session: a payment's session becomes `reversed` (no
 * longer settled; its paid amount without the transfer), a late payment's keeps its status; both
 * count the transfer in `reversed_amount`. Returns the status the session had.
 */
export async function reverseInSession(
  tx: Queryable,
  change: { sessionId: string; kind: 'payment' | 'late_payment'; amount: string; now: Date },
): Promise<SessionStatus | undefined> {
  const { rows } = await tx.query<{ before: SessionStatus }>(
    `UPDATE checkout_sessions s SET
       status = CASE WHEN $2 = 'payment' THEN 'reversed' ELSE s.status END,
       paid_amount = CASE WHEN $2 = 'payment' THEN greatest(s.paid_amount - $3::numeric, 0) ELSE s.paid_amount END,
       late_amount = CASE WHEN $2 = 'late_payment' THEN greatest(s.late_amount - $3::numeric, 0) ELSE s.late_amount END,
       reversed_amount = s.reversed_amount + $3::numeric,
       settled_at = CASE WHEN $2 = 'payment' THEN NULL ELSE s.settled_at END,
       updated_at = $4
     FROM (SELECT id, status AS before FROM checkout_sessions WHERE id = $1) old
     WHERE s.id = old.id RETURNING old.before`,
    [change.sessionId, change.kind, change.amount, change.now],
  );
  return rows[0]?.before;
}
