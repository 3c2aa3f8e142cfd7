/**
 * The SQL of `payout_nonces` (the hot wallet's next nonce per network) and `payout_transactions`
 * (every transaction the hot wallet signs, stored before it is broadcast): nothing else in the
 * service reads or writes them. `paylink sweep` allocates its gas top-ups through the same functions.
 */
import type { AssetId } from '../../../core/money.js';
import type { Queryable } from '../../db/index.js';

// ---------------------------------------------------------------------------------------------
// payout_nonces

/** Starts a hot wallet's nonce sequence at `next` unless it exists already (another instance was first). */
export async function seedNonce(db: Queryable, blockchainId: string, address: string, next: number, now: Date): Promise<void> {
  await db.query(
    'INSERT INTO payout_nonces (blockchain_id, address, next_nonce, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
    [blockchainId, address.toLowerCase(), next, now],
  );
}

/** True when the hot wallet's nonce sequence exists. */
export async function hasNonceSequence(db: Queryable, blockchainId: string, address: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM payout_nonces WHERE blockchain_id = $1 AND address = $2', [blockchainId, address.toLowerCase()]);
  return rows.length === 1;
}

/**
 * Takes the hot wallet's next nonce under its row's lock (`FOR UPDATE`): held until the caller's
 * transaction ends, so the transaction signed with it is stored before any other sender can take
 * a nonce, on any instance. Undefined when the sequence does not exist yet (`seedNonce`).
 */
export async function takeNonce(tx: Queryable, blockchainId: string, address: string, now: Date): Promise<number | undefined> {
  const { rows } = await tx.query<{ next_nonce: string }>(
    'SELECT next_nonce::text AS next_nonce FROM payout_nonces WHERE blockchain_id = $1 AND address = $2 FOR UPDATE',
    [blockchainId, address.toLowerCase()],
  );
  if (!rows[0]) return undefined;
  const nonce = Number(rows[0].next_nonce);
  await tx.query('UPDATE payout_nonces SET next_nonce = $3, updated_at = $4 WHERE blockchain_id = $1 AND address = $2', [
    blockchainId,
    address.toLowerCase(),
    nonce + 1,
    now,
  ]);
  return nonce;
}

/** Moves the sequence up to at least `next` (the chain used nonces the service did not hand out). */
export async function raiseNonce(db: Queryable, blockchainId: string, address: string, next: number, now: Date): Promise<void> {
  await db.query('UPDATE payout_nonces SET next_nonce = GREATEST(next_nonce, $3), updated_at = $4 WHERE blockchain_id = $1 AND address = $2', [
    blockchainId,
    address.toLowerCase(),
    next,
    now,
  ]);
}

// ---------------------------------------------------------------------------------------------
// payout_transactions

/** What a stored transaction is for. */
export type TransactionPurpose = 'withdrawal' | 'gas_top_up' | 'nonce_filler';

/** Where a stored transaction stands (see the table's comment in migration 003). */
export type StoredStatus = 'signed' | 'sent' | 'mined' | 'success' | 'reverted' | 'replaced' | 'rejected';

/** A stored transaction. */
export interface StoredTransaction {
  id: string;
  blockchain_id: string;
  from_address: string;
  nonce: number;
  purpose: TransactionPurpose;
  withdrawal_id: string | null;
  to_address: string;
  raw_transaction: string;
  tx_hash: string;
  status: StoredStatus;
  confirmations: number;
  broadcasts: number;
  last_broadcast_at: Date | null;
  /** The asset a withdrawal's payout sends (null for a gas top-up or a filler). */
  asset_id: AssetId | null;
}

const COLUMNS = `id, blockchain_id, from_address, nonce::int AS nonce, purpose, withdrawal_id, to_address, raw_transaction, tx_hash, status,
  confirmations, broadcasts, last_broadcast_at, (SELECT w.asset_id FROM withdrawals w WHERE w.id = withdrawal_id) AS asset_id`;

/** A transaction to store. */
export interface NewStoredTransaction {
  id: string;
  blockchainId: string;
  fromAddress: string;
  nonce: number;
  purpose: TransactionPurpose;
  withdrawalId: string | null;
  toAddress: string;
  rawTransaction: string;
  txHash: string;
}

/** Stores a signed transaction, `signed` (not broadcast yet). */
export async function insertStored(tx: Queryable, row: NewStoredTransaction, now: Date): Promise<StoredTransaction> {
  const { rows } = await tx.query<StoredTransaction>(
    `INSERT INTO payout_transactions (id, blockchain_id, from_address, nonce, purpose, withdrawal_id, to_address, raw_transaction, tx_hash,
       status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'signed', $10, $10) RETURNING ${COLUMNS}`,
    [row.id, row.blockchainId, row.fromAddress.toLowerCase(), row.nonce, row.purpose, row.withdrawalId, row.toAddress, row.rawTransaction, row.txHash, now],
  );
  return rows[0]!;
}

/** The withdrawal's live transaction (not replaced or rejected), if one is stored. */
export async function liveTransactionOf(db: Queryable, withdrawalId: string): Promise<StoredTransaction | undefined> {
  const { rows } = await db.query<StoredTransaction>(
    `SELECT ${COLUMNS} FROM payout_transactions WHERE withdrawal_id = $1 AND status NOT IN ('replaced', 'rejected')`,
    [withdrawalId],
  );
  return rows[0];
}

/**
 * Claims the unfinished transactions of `fromAddress` that were not looked at in the last
 * `recheckMs` (`FOR UPDATE SKIP LOCKED`, then stamped), lowest nonce first: the instances share the
 * following, and none looks at one another is looking at. A transaction never broadcast counts as due.
 */
export async function claimUnfinished(db: Queryable, blockchainId: string, fromAddress: string, recheckMs: number, limit: number): Promise<StoredTransaction[]> {
  const { rows } = await db.query<StoredTransaction>(
    `UPDATE payout_transactions SET checked_at = now()
     WHERE id IN (SELECT id FROM payout_transactions
                  WHERE blockchain_id = $1 AND from_address = $2 AND status IN ('signed', 'sent', 'mined')
                    AND (status = 'signed' OR checked_at IS NULL OR checked_at <= now() - make_interval(secs => $3::double precision / 1000))
                  ORDER BY nonce LIMIT $4 FOR UPDATE SKIP LOCKED)
     RETURNING ${COLUMNS}`,
    [blockchainId, fromAddress.toLowerCase(), recheckMs, limit],
  );
  return rows.sort((a, b) => a.nonce - b.nonce);
}

/** How many transactions of `fromAddress` are unfinished. */
export async function countUnfinished(db: Queryable, blockchainId: string, fromAddress: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM payout_transactions WHERE blockchain_id = $1 AND from_address = $2 AND status IN ('signed', 'sent', 'mined')`,
    [blockchainId, fromAddress.toLowerCase()],
  );
  return rows[0]?.n ?? 0;
}

/** Records a broadcast the node took (`signed` → `sent`; a `mined` one that a reorg dropped is `sent` again). */
export async function markBroadcast(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE payout_transactions SET status = CASE WHEN status IN ('signed', 'mined') THEN 'sent' ELSE status END,
       broadcasts = broadcasts + 1, last_broadcast_at = $2, updated_at = $2
     WHERE id = $1 AND status IN ('signed', 'sent', 'mined')`,
    [id, now],
  );
}

/** Records that the transaction is in block `blockNumber` with `confirmations`; true when that changed anything. */
export async function markMined(db: Queryable, id: string, blockNumber: number, confirmations: number, now: Date): Promise<boolean> {
  const { rows } = await db.query(
    `UPDATE payout_transactions SET status = 'mined', block_number = $2, confirmations = $3, updated_at = $4
     WHERE id = $1 AND status IN ('signed', 'sent', 'mined') AND (status <> 'mined' OR block_number IS DISTINCT FROM $2 OR confirmations <> $3)
     RETURNING id`,
    [id, blockNumber, confirmations, now],
  );
  return rows.length === 1;
}

/**
 * Ends an unfinished transaction (`success`, `reverted`, `replaced`, `rejected`) under its row lock;
 * false, changing nothing, when another instance ended it first.
 */
export async function finishStored(
  tx: Queryable,
  id: string,
  status: Extract<StoredStatus, 'success' | 'reverted' | 'replaced' | 'rejected'>,
  now: Date,
  confirmations?: number,
): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE payout_transactions SET status = $2, confirmations = coalesce($3, confirmations), updated_at = $4
     WHERE id = $1 AND status IN ('signed', 'sent', 'mined') RETURNING id`,
    [id, status, confirmations ?? null, now],
  );
  return rows.length === 1;
}
