/**
 * The SQL of `payout_nonces` (the hot wallet's next nonce per network) and `payout_transactions`
 * (every transaction the hot wallet signs, stored before it is broadcast): nothing else in the
 * service reads or writes them. `paylink sweep` allocates its gas top-ups through the same functions.
 */
import type { AssetId } from '../../../core/money.js';
import { UNFINISHED_WITHDRAWAL_STATUSES } from '../../../core/rules/withdrawal.js';
import type { StalledReason } from '../../../core/schemas.js';
import type { Queryable } from '../../db/index.js';
import { sqlList } from '../../db/sql-list.js';

// ---------------------------------------------------------------------------------------------
// payout_nonces

/** Starts a hot wallet's nonce sequence at `next` unless it exists already (another instance was first). */
export async function seedNonce(db: Queryable, blockchainId: string, address: string, next: number, now: Date): Promise<void> {
  await db.query('INSERT INTO payout_nonces (blockchain_id, address, next_nonce, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
    blockchainId,
    address.toLowerCase(),
    next,
    now,
  ]);
}

/** True when the hot wallet's nonce sequence exists. */
export async function hasNonceSequence(db: Queryable, blockchainId: string, address: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM payout_nonces WHERE blockchain_id = $1 AND address = $2', [blockchainId, address.toLowerCase()]);
  return rows.length === 1;
}

/**
 * Locks the hot wallet's nonce sequence (`FOR UPDATE`) and resolves with its next nonce: the lock is
 * held until the caller's transaction ends, so the transactions signed with the nonces it takes
 * (`insertStored` with `nextNonce`) are stored before any other sender can take one, on any
 * instance. Undefined when the sequence does not exist yet (`seedNonce`).
 */
export async function lockNonce(tx: Queryable, blockchainId: string, address: string): Promise<number | undefined> {
  const { rows } = await tx.query<{ next_nonce: string }>(
    'SELECT next_nonce::text AS next_nonce FROM payout_nonces WHERE blockchain_id = $1 AND address = $2 FOR UPDATE',
    [blockchainId, address.toLowerCase()],
  );
  return rows[0] ? Number(rows[0].next_nonce) : undefined;
}

/**
 * The hot wallet's next nonce as it stands, read without the lock (another sender may take it
 * before the reader locks it): a guess to sign ahead with, never a nonce to use. Undefined when the
 * sequence does not exist yet.
 */
export async function peekNonce(db: Queryable, blockchainId: string, address: string): Promise<number | undefined> {
  const { rows } = await db.query<{ next_nonce: string }>(
    'SELECT next_nonce::text AS next_nonce FROM payout_nonces WHERE blockchain_id = $1 AND address = $2',
    [blockchainId, address.toLowerCase()],
  );
  return rows[0] ? Number(rows[0].next_nonce) : undefined;
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

/** The statuses of a transaction not finished yet (signed, broadcast, or in a block not yet final enough): the ones followed. */
export const UNFINISHED_STATUSES: ReadonlySet<StoredStatus> = new Set(['signed', 'sent', 'mined']);

/** `UNFINISHED_STATUSES` as an SQL list. */
const UNFINISHED = sqlList(UNFINISHED_STATUSES);

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
  /** Why its withdrawal is held up, as last recorded (null: it is not, or no withdrawal). */
  stalled_reason: StalledReason | null;
}

const COLUMNS = `id, blockchain_id, from_address, nonce::int AS nonce, purpose, withdrawal_id, to_address, raw_transaction, tx_hash, status,
  confirmations, broadcasts, last_broadcast_at, (SELECT w.asset_id FROM withdrawals w WHERE w.id = withdrawal_id) AS asset_id,
  (SELECT w.stalled_reason FROM withdrawals w WHERE w.id = withdrawal_id) AS stalled_reason`;

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

/**
 * Stores signed transactions, `signed` (not broadcast yet), in one statement. They are their storer's
 * to broadcast for `sendLeaseMs` (`checked_at` that far ahead): the instance that stored them
 * broadcasts them at once, and the others leave them alone until the lease has run out (a crash
 * before the broadcast leaves them to whoever comes next) or the storer has tried (`endSendLease`).
 * Another instance that followed them sooner would send the same bytes beside their storer and get
 * "nonce too low" for each. The same statement shows each `processing` withdrawal its transaction's
 * hash (known before it is broadcast), no longer held up, and, given `nextNonce`, moves the senders' sequence on to it
 * (the nonces below it are taken: call it in the transaction that holds `lockNonce`'s lock), so a
 * batch costs one round trip.
 */
export async function insertStored(
  tx: Queryable,
  rows: readonly NewStoredTransaction[],
  now: Date,
  options: { nextNonce?: number | undefined; sendLeaseMs?: number | undefined } = {},
): Promise<StoredTransaction[]> {
  if (rows.length === 0) return [];
  const column = <K extends keyof NewStoredTransaction>(key: K) => rows.map((row) => row[key]);
  const { rows: stored } = await tx.query<StoredTransaction>(
    `WITH stored AS (
       INSERT INTO payout_transactions (id, blockchain_id, from_address, nonce, purpose, withdrawal_id, to_address, raw_transaction, tx_hash,
         status, checked_at, created_at, updated_at)
       SELECT r.id, r.blockchain_id, lower(r.from_address), r.nonce, r.purpose, r.withdrawal_id, r.to_address, r.raw_transaction, lower(r.tx_hash),
         'signed', $12, $10, $10
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::uuid[], $7::text[], $8::text[], $9::text[])
         AS r(id, blockchain_id, from_address, nonce, purpose, withdrawal_id, to_address, raw_transaction, tx_hash)
       RETURNING ${COLUMNS}
     ), shown AS (
       UPDATE withdrawals w SET tx_hash = s.tx_hash, stalled_reason = NULL, updated_at = $10 FROM stored s WHERE w.id = s.withdrawal_id AND w.status = 'processing'
     ), advanced AS (
       UPDATE payout_nonces n SET next_nonce = $11::bigint, updated_at = $10
       WHERE $11::bigint IS NOT NULL AND (n.blockchain_id, n.address) IN (SELECT DISTINCT s.blockchain_id, s.from_address FROM stored s)
     )
     SELECT * FROM stored`,
    [
      column('id'),
      column('blockchainId'),
      column('fromAddress'),
      column('nonce'),
      column('purpose'),
      column('withdrawalId'),
      column('toAddress'),
      column('rawTransaction'),
      column('txHash'),
      now,
      options.nextNonce ?? null,
      new Date(now.getTime() + (options.sendLeaseMs ?? 0)),
    ],
  );
  return stored.sort((a, b) => a.nonce - b.nonce);
}

/**
 * Ends the send lease (`insertStored`) of transactions their storer tried to broadcast and no node
 * took (an outage, a refusal for now): they are due for a retry, by anyone, from `now` on.
 */
export async function endSendLease(db: Queryable, ids: readonly string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.query(`UPDATE payout_transactions SET checked_at = $2 WHERE id = ANY($1::uuid[]) AND status = 'signed' AND checked_at > $2`, [[...ids], now]);
}

/** Which of `withdrawalIds` have a live transaction (not replaced or rejected) stored. */
export async function withLiveTransaction(db: Queryable, withdrawalIds: readonly string[]): Promise<Set<string>> {
  if (withdrawalIds.length === 0) return new Set();
  const { rows } = await db.query<{ withdrawal_id: string }>(
    `SELECT withdrawal_id FROM payout_transactions WHERE withdrawal_id = ANY($1::uuid[]) AND status NOT IN ('replaced', 'rejected')`,
    [[...withdrawalIds]],
  );
  return new Set(rows.map((row) => row.withdrawal_id));
}

/**
 * Claims the unfinished transactions of `fromAddress` that were not looked at in the last
 * `recheckMs` (`FOR UPDATE SKIP LOCKED`, then stamped), lowest nonce first: the instances share the
 * following, and none looks at one another is looking at. One just broadcast is due at once (its
 * receipt may be there already); one just stored is its storer's to broadcast, due after its send
 * lease (`insertStored`) and `recheckMs`.
 */
export async function claimUnfinished(
  db: Queryable,
  blockchainId: string,
  fromAddress: string,
  recheckMs: number,
  limit: number,
): Promise<StoredTransaction[]> {
  const { rows } = await db.query<StoredTransaction>(
    `UPDATE payout_transactions SET checked_at = now()
     WHERE id IN (SELECT id FROM payout_transactions
                  WHERE blockchain_id = $1 AND from_address = $2 AND status IN (${UNFINISHED})
                    AND (checked_at IS NULL OR checked_at <= now() - make_interval(secs => $3::double precision / 1000))
                  ORDER BY nonce LIMIT $4 FOR UPDATE SKIP LOCKED)
     RETURNING ${COLUMNS}`,
    [blockchainId, fromAddress.toLowerCase(), recheckMs, limit],
  );
  return rows.sort((a, b) => a.nonce - b.nonce);
}

/**
 * In how many ms the first unfinished transaction of these hot wallets is due to be followed (as
 * `claimUnfinished` with `recheckMs` sees it): 0 if one is due now, `undefined` if none is unfinished.
 */
export async function nextFollowDueIn(
  db: Queryable,
  wallets: ReadonlyArray<{ blockchainId: string; fromAddress: string }>,
  recheckMs: number,
): Promise<number | undefined> {
  if (wallets.length === 0) return undefined;
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT (EXTRACT(EPOCH FROM min(COALESCE(t.checked_at + make_interval(secs => $3::double precision / 1000), now())) - now()) * 1000)::float8 AS ms
     FROM payout_transactions t
     JOIN unnest($1::text[], $2::text[]) AS w(blockchain_id, from_address) ON t.blockchain_id = w.blockchain_id AND t.from_address = w.from_address
     WHERE t.status IN (${UNFINISHED})`,
    [wallets.map((w) => w.blockchainId), wallets.map((w) => w.fromAddress.toLowerCase()), recheckMs],
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : Math.max(0, ms);
}

/** How many transactions of `fromAddress` are unfinished. */
export async function countUnfinished(db: Queryable, blockchainId: string, fromAddress: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM payout_transactions WHERE blockchain_id = $1 AND from_address = $2 AND status IN (${UNFINISHED})`,
    [blockchainId, fromAddress.toLowerCase()],
  );
  return rows[0]?.n ?? 0;
}

/**
 * Records broadcasts the node took (`signed` → `sent`; a `mined` one that a reorg dropped is `sent`
 * again). Each is due for a receipt read at once: on a fast chain it is mined already.
 */
export async function markBroadcast(db: Queryable, ids: readonly string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE payout_transactions SET status = CASE WHEN status IN ('signed', 'mined') THEN 'sent' ELSE status END,
       broadcasts = broadcasts + 1, last_broadcast_at = $2, checked_at = NULL, updated_at = $2
     WHERE id = ANY($1::uuid[]) AND status IN (${UNFINISHED})`,
    [[...ids], now],
  );
}

/** Records that transactions are in a block, with their confirmations; resolves with how many of them changed. */
export async function markMined(db: Queryable, mined: ReadonlyArray<{ id: string; blockNumber: number; confirmations: number }>, now: Date): Promise<number> {
  if (mined.length === 0) return 0;
  const { rows } = await db.query(
    `UPDATE payout_transactions t SET status = 'mined', block_number = m.block_number, confirmations = m.confirmations, updated_at = $4
     FROM unnest($1::uuid[], $2::bigint[], $3::int[]) AS m(id, block_number, confirmations)
     WHERE t.id = m.id AND t.status IN (${UNFINISHED})
       AND (t.status <> 'mined' OR t.block_number IS DISTINCT FROM m.block_number OR t.confirmations <> m.confirmations)
     RETURNING t.id`,
    [mined.map((m) => m.id), mined.map((m) => m.blockNumber), mined.map((m) => m.confirmations), now],
  );
  return rows.length;
}

/** How a stored transaction ended. */
export type EndStatus = Extract<StoredStatus, 'success' | 'reverted' | 'replaced' | 'rejected'>;

/**
 * Ends an unfinished transaction (`success`, `reverted`, `replaced`, `rejected`) under its row lock;
 * false, changing nothing, when another instance ended it first.
 */
export async function finishStored(tx: Queryable, id: string, status: EndStatus, now: Date, confirmations?: number): Promise<boolean> {
  return (await finishStoredMany(tx, [{ id, status, confirmations }], now)).has(id);
}

/**
 * Ends unfinished transactions in one statement, each with its status (and confirmations, where
 * known); resolves with the ids it ended (another instance may have ended some first).
 */
export async function finishStoredMany(
  tx: Queryable,
  ended: ReadonlyArray<{ id: string; status: EndStatus; confirmations?: number | undefined }>,
  now: Date,
): Promise<Set<string>> {
  if (ended.length === 0) return new Set();
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE payout_transactions t SET status = e.status, confirmations = coalesce(e.confirmations, t.confirmations), updated_at = $4
     FROM unnest($1::uuid[], $2::text[], $3::int[]) AS e(id, status, confirmations)
     WHERE t.id = e.id AND t.status IN (${UNFINISHED}) RETURNING t.id`,
    [ended.map((e) => e.id), ended.map((e) => e.status), ended.map((e) => e.confirmations ?? null), now],
  );
  return new Set(rows.map((row) => row.id));
}

// ---------------------------------------------------------------------------------------------
// What the payouts owe (read from the withdrawals room's table with the transactions above)

/**
 * What the payouts of `blockchainId` still have to take from the hot wallet, per asset: the pending and
 * processing withdrawals that no node took a transaction of yet (one a node took is in the node's
 * pending state, which is what the hot wallet's holdings are read at), with how many they are.
 */
export async function owedByPayouts(db: Queryable, blockchainId: string): Promise<Array<{ asset_id: AssetId; owed: string; payouts: number }>> {
  const { rows } = await db.query<{ asset_id: AssetId; owed: string; payouts: number }>(
    `SELECT w.asset_id, sum(w.amount)::text AS owed, count(*)::int AS payouts FROM withdrawals w
      WHERE w.blockchain_id = $1 AND w.status IN (${sqlList(UNFINISHED_WITHDRAWAL_STATUSES)})
        AND NOT EXISTS (SELECT 1 FROM payout_transactions t WHERE t.withdrawal_id = w.id AND t.status IN ('sent', 'mined', 'success', 'reverted'))
      GROUP BY w.asset_id ORDER BY w.asset_id`,
    [blockchainId],
  );
  return rows;
}

/**
 * Per asset, what the stored payouts of `fromAddress` that no node took yet (`signed`) will take from
 * the hot wallet: its holdings, even at the node's pending state, still count them.
 */
export async function unsentPayouts(db: Queryable, blockchainId: string, fromAddress: string): Promise<Map<AssetId, string>> {
  const { rows } = await db.query<{ asset_id: AssetId; amount: string }>(
    `SELECT w.asset_id, sum(w.amount)::text AS amount FROM payout_transactions t JOIN withdrawals w ON w.id = t.withdrawal_id
      WHERE t.blockchain_id = $1 AND t.from_address = $2 AND t.status = 'signed' GROUP BY w.asset_id`,
    [blockchainId, fromAddress.toLowerCase()],
  );
  return new Map(rows.map((row) => [row.asset_id, row.amount]));
}
