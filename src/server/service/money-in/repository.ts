/**
 * The SQL of `incoming_transfers` (what a real chain's scanner saw, before and after it counts),
 * `chain_cursors` (how far it has read) and `chain_networks` (which chain each network's data
 * belongs to): nothing else in the service reads or writes them. The scanner (./scanner.ts) calls
 * these inside its own short transactions, never across a node call.
 */
import type { AssetId } from '../../../core/money.js';
import type { SessionStatus } from '../../../core/schemas.js';
import type { ObservedTransfer } from '../../chain/types.js';
import { UNSETTLED_STATUSES } from '../../../core/rules/session.js';
import type { Queryable } from '../../db/index.js';
import { sqlList } from '../../db/sql-list.js';

/** The statuses of a session money is still on its way to, as an SQL list. */
const UNSETTLED = sqlList(UNSETTLED_STATUSES);

// ---------------------------------------------------------------------------------------------
// chain_cursors

/** A network's scanner progress. */
export interface ChainCursor {
  /** Blocks below it have been read. */
  nextBlock: number;
  coveredUntil: Date | null;
}

/** The cursor of `blockchainId`, or undefined before the first scan. */
export async function readCursor(db: Queryable, blockchainId: string, options: { lock?: boolean } = {}): Promise<ChainCursor | undefined> {
  const { rows } = await db.query<{ next_block: string; covered_until: Date | null }>(
    `SELECT next_block::text AS next_block, covered_until FROM chain_cursors WHERE blockchain_id = $1${options.lock ? ' FOR UPDATE' : ''}`,
    [blockchainId],
  );
  const row = rows[0];
  return row && { nextBlock: Number(row.next_block), coveredUntil: row.covered_until };
}

/** Creates the cursor at `nextBlock` unless another instance did first. */
export async function createCursor(db: Queryable, blockchainId: string, nextBlock: number, now: Date): Promise<void> {
  await db.query('INSERT INTO chain_cursors (blockchain_id, next_block, updated_at) VALUES ($1, $2, $3) ON CONFLICT (blockchain_id) DO NOTHING', [
    blockchainId,
    nextBlock,
    now,
  ]);
}

/**
 * Moves the cursor forward (never back: another instance may have read further) and, when the scan
 * reached the chain's tip, records that every transfer mined before `coveredUntil` has been seen.
 */
export async function advanceCursor(tx: Queryable, blockchainId: string, nextBlock: number, coveredUntil: Date | null, now: Date): Promise<void> {
  await tx.query(
    `UPDATE chain_cursors SET next_block = GREATEST(next_block, $2),
       covered_until = CASE WHEN $3::timestamptz IS NULL THEN covered_until ELSE GREATEST(coalesce(covered_until, $3::timestamptz), $3::timestamptz) END,
       updated_at = $4
     WHERE blockchain_id = $1`,
    [blockchainId, nextBlock, coveredUntil, now],
  );
}

// ---------------------------------------------------------------------------------------------
// chain_networks

/** What the database knows of a network's chain. */
export interface NetworkRecord {
  chainId: number;
  /** A final block the scanner read, by number and hash (lowercase); null before the first. */
  checkpoint: { block: number; hash: string } | null;
}

/** The record of `blockchainId`, or undefined before the service first ran on it. */
export async function readNetworkRecord(db: Queryable, blockchainId: string): Promise<NetworkRecord | undefined> {
  const { rows } = await db.query<{ chain_id: string; checkpoint_block: string | null; checkpoint_hash: string | null }>(
    'SELECT chain_id::text AS chain_id, checkpoint_block::text AS checkpoint_block, checkpoint_hash FROM chain_networks WHERE blockchain_id = $1',
    [blockchainId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    chainId: Number(row.chain_id),
    checkpoint: row.checkpoint_block === null ? null : { block: Number(row.checkpoint_block), hash: row.checkpoint_hash! },
  };
}

/** Records the chain id a network's data belongs to, unless it is recorded already. */
export async function recordChainId(db: Queryable, blockchainId: string, chainId: number, now: Date): Promise<void> {
  await db.query('INSERT INTO chain_networks (blockchain_id, chain_id, updated_at) VALUES ($1, $2, $3) ON CONFLICT (blockchain_id) DO NOTHING', [
    blockchainId,
    chainId,
    now,
  ]);
}

/**
 * Moves a network's checkpoint up to final block `block` (never down), from the checkpoint `from` the
 * caller found on the node: if another instance moved it meanwhile, this one changes nothing (the
 * checkpoint is never overwritten with a block whose chain nobody checked against it).
 */
export async function recordCheckpoint(
  db: Queryable,
  blockchainId: string,
  from: { block: number; hash: string } | null,
  to: { block: number; hash: string },
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE chain_networks SET checkpoint_block = $2, checkpoint_hash = $3, updated_at = $4
     WHERE blockchain_id = $1 AND checkpoint_block IS NOT DISTINCT FROM $5::bigint AND checkpoint_hash IS NOT DISTINCT FROM $6::text AND (checkpoint_block IS NULL OR checkpoint_block < $2)`,
    [blockchainId, to.block, to.hash.toLowerCase(), now, from?.block ?? null, from?.hash ?? null],
  );
}

/**
 * Replaces a network's checkpoint, whatever it was: only `paylink chain resume`, after an operator has
 * looked at a reorganization past finality, records one on the chain the node serves now.
 */
export async function replaceCheckpoint(db: Queryable, blockchainId: string, block: number, hash: string, now: Date): Promise<void> {
  await db.query('UPDATE chain_networks SET checkpoint_block = $2, checkpoint_hash = $3, updated_at = $4 WHERE blockchain_id = $1', [
    blockchainId,
    block,
    hash.toLowerCase(),
    now,
  ]);
}

// ---------------------------------------------------------------------------------------------
// incoming_transfers

/** A transfer being followed (status `seen`), with what its session needs. */
export interface WaitingTransfer {
  id: string;
  session_id: string;
  tx_hash: string;
  asset_id: AssetId;
  token_address: string;
  from_address: string;
  to_address: string;
  ordinal: number;
  amount: string;
  log_index: number;
  block_number: number | null;
  block_hash: string | null;
  block_time: Date;
  confirmations: number;
}

/** The columns of a `WaitingTransfer`, of the table named `t` (or unnamed). */
function waitingColumns(t = ''): string {
  const p = t ? `${t}.` : '';
  return `${p}id, ${p}session_id, ${p}tx_hash, ${p}asset_id, ${p}token_address, ${p}from_address, ${p}to_address, ${p}ordinal, ${p}amount::text AS amount,
  ${p}log_index, ${p}block_number::int AS block_number, ${p}block_hash, ${p}block_time, ${p}confirmations`;
}
const WAITING_COLUMNS = waitingColumns();

/**
 * The deposit addresses every network's scanner watches: sessions not settled yet, and every session
 * whose quote ran out after `closedSince` (late and extra payments are the merchant's money too), on
 * whatever network each was quoted (an address is the same on every network, and a transfer on any
 * configured one pays its session).
 */
export async function watchedAddresses(db: Queryable, closedSince: Date): Promise<string[]> {
  const { rows } = await db.query<{ pay_address: string }>(
    `SELECT pay_address FROM checkout_sessions WHERE status IN (${UNSETTLED})
     UNION SELECT pay_address FROM checkout_sessions WHERE expires_at > $1`,
    [closedSince],
  );
  return rows.map((row) => row.pay_address);
}

/** A session as the scanner decides on it, under its row lock. */
export interface ScannedSession {
  id: string;
  status: SessionStatus;
  asset_id: AssetId;
  paid_amount: string;
  expires_at: Date;
}

/**
 * Locks the session paid at `payAddress` (the same lock settlement takes, and the same session:
 * `findSessionByAddress`'s), or undefined. A transfer to it on any configured network pays it.
 */
export async function lockSessionForScan(tx: Queryable, blockchainId: string, payAddress: string): Promise<ScannedSession | undefined> {
  const { rows } = await tx.query<ScannedSession>(
    `SELECT id, status, asset_id, paid_amount::text AS paid_amount, expires_at FROM checkout_sessions
     WHERE lower(pay_address) = lower($2) ORDER BY blockchain_id = $1 DESC, created_at LIMIT 1 FOR UPDATE`,
    [blockchainId, payAddress],
  );
  return rows[0];
}

/** Locks a session by id (the same lock settlement takes). */
export async function lockSessionById(tx: Queryable, id: string): Promise<ScannedSession | undefined> {
  const { rows } = await tx.query<ScannedSession>(
    'SELECT id, status, asset_id, paid_amount::text AS paid_amount, expires_at FROM checkout_sessions WHERE id = $1 FOR UPDATE',
    [id],
  );
  return rows[0];
}

/** Sets a session's status (the scanner's moves: into `confirming`, and back when its transfer is gone). */
export async function setSessionStatus(tx: Queryable, id: string, from: SessionStatus, to: SessionStatus, now: Date): Promise<boolean> {
  const { rows } = await tx.query('UPDATE checkout_sessions SET status = $3, updated_at = $4 WHERE id = $1 AND status = $2 RETURNING id', [id, from, to, now]);
  return rows.length === 1;
}

/**
 * Records a transfer the first time it is seen, or brings back one that had gone or been reversed
 * (its transaction was mined again after a reorg dropped it: a payment after all). Returns its id when it is (again) waiting, or null when
 * it was known already.
 */
export async function recordSeen(tx: Queryable, sessionId: string, transfer: ObservedTransfer, id: string, now: Date): Promise<string | null> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO incoming_transfers AS t (id, session_id, blockchain_id, tx_hash, asset_id, token_address, from_address, to_address, ordinal,
       amount, log_index, block_number, block_hash, block_time, status, confirmations, seen_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'seen', 0, $15, $15)
     ON CONFLICT (blockchain_id, tx_hash, lower(token_address), lower(to_address), ordinal) DO UPDATE
       SET status = 'seen', log_index = EXCLUDED.log_index, block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash,
           confirmations = 0, transfer_id = NULL, updated_at = EXCLUDED.updated_at
       WHERE t.status IN ('gone', 'reversed') AND t.amount = EXCLUDED.amount
     RETURNING t.id`,
    [
      id,
      sessionId,
      transfer.blockchainId,
      transfer.txHash,
      transfer.assetId,
      transfer.token,
      transfer.from,
      transfer.to,
      transfer.ordinal,
      transfer.amount,
      transfer.logIndex,
      transfer.blockNumber,
      transfer.blockHash,
      transfer.blockTime,
      now,
    ],
  );
  return rows[0]?.id ?? null;
}

/** The transfers still waiting on `blockchainId`, oldest first. */
export async function waitingTransfers(db: Queryable, blockchainId: string, limit: number): Promise<WaitingTransfer[]> {
  const { rows } = await db.query<WaitingTransfer>(
    `SELECT ${WAITING_COLUMNS} FROM incoming_transfers WHERE blockchain_id = $1 AND status = 'seen' ORDER BY seen_at, id LIMIT ${limit}`,
    [blockchainId],
  );
  return rows;
}

/** The record of a transfer by its identity (network + hash + token + recipient + ordinal), whatever its status, or undefined. */
export async function findIncoming(
  db: Queryable,
  blockchainId: string,
  transfer: Pick<ObservedTransfer, 'txHash' | 'token' | 'to' | 'ordinal'>,
): Promise<(WaitingTransfer & { status: string }) | undefined> {
  const { rows } = await db.query<WaitingTransfer & { status: string }>(
    `SELECT ${WAITING_COLUMNS}, status FROM incoming_transfers
     WHERE blockchain_id = $1 AND tx_hash = $2 AND lower(token_address) = lower($3) AND lower(to_address) = lower($4) AND ordinal = $5`,
    [blockchainId, transfer.txHash.toLowerCase(), transfer.token, transfer.to, transfer.ordinal],
  );
  return rows[0];
}

/** Locks one transfer if it is still waiting. */
export async function lockWaiting(tx: Queryable, id: string): Promise<WaitingTransfer | undefined> {
  const { rows } = await tx.query<WaitingTransfer>(`SELECT ${WAITING_COLUMNS} FROM incoming_transfers WHERE id = $1 AND status = 'seen' FOR UPDATE`, [id]);
  return rows[0];
}

/**
 * Moves a transfer to where the chain has it now (another block, or none: back in the mempool): a
 * waiting one (`seen`), or a credited one that is not final yet (`credited`).
 */
export async function moveWaiting(
  tx: Queryable,
  id: string,
  position: { logIndex: number; blockNumber: number | null; blockHash: string | null; confirmations: number },
  now: Date,
  status: 'seen' | 'credited' = 'seen',
): Promise<void> {
  await tx.query(
    `UPDATE incoming_transfers SET log_index = $2, block_number = $3, block_hash = $4, confirmations = $5, updated_at = $6 WHERE id = $1 AND status = $7`,
    [id, position.logIndex, position.blockNumber, position.blockHash, position.confirmations, now, status],
  );
}

/** A credited transfer whose funds are not final yet: where it was credited, and its `chain_transfers` row. */
export interface CreditedTransfer extends WaitingTransfer {
  transfer_id: string;
}

/** The credited transfers on `blockchainId` that are neither final nor reversed, oldest block first. */
export async function creditedUnfinal(db: Queryable, blockchainId: string, limit: number): Promise<CreditedTransfer[]> {
  const { rows } = await db.query<CreditedTransfer>(
    `SELECT ${waitingColumns('i')}, i.transfer_id
     FROM incoming_transfers i JOIN chain_transfers c ON c.id = i.transfer_id
     WHERE i.blockchain_id = $1 AND i.status = 'credited' AND c.final_at IS NULL AND c.reversed_at IS NULL
     ORDER BY i.block_number NULLS LAST, i.id LIMIT ${limit}`,
    [blockchainId],
  );
  return rows;
}

/**
 * The blocks (number and hash) of credited transfers on `blockchainId` whose funds are final, above
 * block `above`: blocks the database holds as final, checked against the node with the checkpoint.
 */
export async function finalCreditBlocks(db: Queryable, blockchainId: string, above: number): Promise<Array<{ block: number; hash: string }>> {
  const { rows } = await db.query<{ block: number; hash: string }>(
    `SELECT DISTINCT i.block_number::int AS block, i.block_hash AS hash
     FROM incoming_transfers i JOIN chain_transfers c ON c.id = i.transfer_id
     WHERE i.blockchain_id = $1 AND i.status = 'credited' AND i.block_number > $2 AND c.final_at IS NOT NULL AND c.reversed_at IS NULL
     ORDER BY 1`,
    [blockchainId, above],
  );
  return rows;
}

/**
 * Up to `limit` distinct blocks (number and hash) of credited, not reversed transfers on `blockchainId`
 * below block `below`, highest first: where `paylink chain resume` looks for what a reorganization
 * past finality took back. `before`: whether a transfer in the block was recorded there at or before
 * `recordedBy` (read from the chain the checkpoint was on, not the one the node serves now).
 */
export async function creditedBlocksBelow(
  db: Queryable,
  blockchainId: string,
  below: number,
  limit: number,
  recordedBy: Date,
): Promise<Array<{ block: number; hash: string; before: boolean }>> {
  const { rows } = await db.query<{ block: number; hash: string; before: boolean }>(
    `SELECT i.block_number::int AS block, i.block_hash AS hash, bool_or(i.updated_at <= $3) AS before
     FROM incoming_transfers i JOIN chain_transfers c ON c.id = i.transfer_id
     WHERE i.blockchain_id = $1 AND i.status = 'credited' AND i.block_number < $2 AND c.reversed_at IS NULL
     GROUP BY i.block_number, i.block_hash ORDER BY 1 DESC LIMIT ${limit}`,
    [blockchainId, below, recordedBy],
  );
  return rows;
}

/** When a network's checkpoint was last written (after checking the one before on the node), or undefined. */
export async function checkpointWrittenAt(db: Queryable, blockchainId: string): Promise<Date | undefined> {
  const { rows } = await db.query<{ updated_at: Date }>('SELECT updated_at FROM chain_networks WHERE blockchain_id = $1', [blockchainId]);
  return rows[0]?.updated_at;
}

/** A credited transfer (final or not) that a reorganization past finality may have taken back. */
export interface CreditedOnBlock extends CreditedTransfer {
  final: boolean;
}

/**
 * The credited, not reversed transfers on `blockchainId` in blocks `blocks`, or with no block (back in
 * the mempool after a reorg): what `paylink chain resume` checks one by one.
 */
export async function creditedIn(db: Queryable, blockchainId: string, blocks: readonly number[]): Promise<CreditedOnBlock[]> {
  const { rows } = await db.query<CreditedOnBlock>(
    `SELECT ${waitingColumns('i')}, i.transfer_id, c.final_at IS NOT NULL AS final
     FROM incoming_transfers i JOIN chain_transfers c ON c.id = i.transfer_id
     WHERE i.blockchain_id = $1 AND i.status = 'credited' AND c.reversed_at IS NULL AND (i.block_number IS NULL OR i.block_number = ANY($2::bigint[]))
     ORDER BY i.block_number DESC NULLS FIRST, i.id`,
    [blockchainId, [...blocks]],
  );
  return rows;
}

/** Marks the incoming record of a reversed transfer `reversed` (if its transaction is mined again, it is seen anew). */
export async function markIncomingReversed(tx: Queryable, transferId: string, now: Date): Promise<void> {
  await tx.query(`UPDATE incoming_transfers SET status = 'reversed', updated_at = $2 WHERE transfer_id = $1 AND status = 'credited'`, [transferId, now]);
}

/** Sets a waiting transfer's confirmations; true when they changed (an event is due). */
export async function setConfirmations(tx: Queryable, id: string, confirmations: number, now: Date): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE incoming_transfers SET confirmations = $2, updated_at = $3 WHERE id = $1 AND status = 'seen' AND confirmations <> $2 RETURNING id`,
    [id, confirmations, now],
  );
  return rows.length === 1;
}

/** Ends a waiting transfer: `gone` (never credited), `ignored`, or `credited` with its `chain_transfers` row. */
export async function closeWaiting(
  tx: Queryable,
  id: string,
  status: 'gone' | 'ignored' | 'credited',
  now: Date,
  transferId: string | null = null,
): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE incoming_transfers SET status = $2, transfer_id = $3, updated_at = $4 WHERE id = $1 AND status = 'seen' RETURNING id`,
    [id, status, transferId, now],
  );
  return rows.length === 1;
}

/** Whether another transfer to the session, made before its quote ran out, is still waiting. */
export async function othersWaitingInTime(tx: Queryable, sessionId: string, exceptId: string): Promise<boolean> {
  const { rows } = await tx.query(
    `SELECT 1 FROM incoming_transfers t JOIN checkout_sessions s ON s.id = t.session_id
     WHERE t.session_id = $1 AND t.id <> $2 AND t.status = 'seen' AND t.block_time < s.expires_at LIMIT 1`,
    [sessionId, exceptId],
  );
  return rows.length > 0;
}

/**
 * The deposit indexes on `blockchainId` whose address received a transfer the scanner saw (what
 * `paylink sweep` empties), ascending.
 */
export async function depositIndexesWithTransfers(db: Queryable, blockchainId: string): Promise<number[]> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT DISTINCT s.deposit_index::text AS n, s.deposit_index FROM checkout_sessions s
     WHERE s.blockchain_id = $1 AND s.deposit_index IS NOT NULL
       AND EXISTS (SELECT 1 FROM incoming_transfers t WHERE t.session_id = s.id)
     ORDER BY s.deposit_index`,
    [blockchainId],
  );
  return rows.map((row) => Number(row.n));
}
