/**
 * What the books say each deposit address received: the reads reconciliation (../reconciliation/)
 * holds against the chain. A deposit address serves one session, ever (its index comes from a
 * sequence), and is the same address on every EVM network; on a network, the books know what the
 * scanner recorded there: every transfer credited (with all of the token's digits, the dust below the
 * ledger's 0.000001 included) and every one too small to credit (`ignored`), by the block it is in now.
 * A transfer waiting for its confirmations, gone or reversed is not money the books hold.
 */
import type { AssetId } from '../../../core/money.js';
import type { Queryable } from '../../db/index.js';

/** A deposit address that served a session. */
export interface DepositAddressRecord {
  sessionId: string;
  /** Lowercase. */
  address: string;
  assetId: AssetId;
  depositIndex: number;
}

/**
 * The deposit addresses of sessions, `limit` at a time in deposit-index order after `afterIndex`
 * (keyset pages: a run over a million sessions never holds them all).
 */
export async function depositAddressPage(db: Queryable, afterIndex: number, limit: number): Promise<DepositAddressRecord[]> {
  const { rows } = await db.query<{ id: string; address: string; asset_id: AssetId; n: string }>(
    `SELECT id, pay_address AS address, asset_id, deposit_index::text AS n
     FROM checkout_sessions WHERE deposit_index > $1 ORDER BY deposit_index LIMIT ${Math.max(1, Math.floor(limit))}`,
    [afterIndex],
  );
  return rows.map((row) => ({ sessionId: row.id, address: row.address.toLowerCase(), assetId: row.asset_id, depositIndex: Number(row.n) }));
}

/** Who a deposit address's session belongs to, and when it was created: what a trace and a mismatch need of the few addresses that differ. */
export async function depositSessionsOf(db: Queryable, sessionIds: readonly string[]): Promise<Map<string, { integratorId: string; createdAt: Date }>> {
  const { rows } = await db.query<{ id: string; integrator_id: string; created_at: Date }>(
    'SELECT id, integrator_id, created_at FROM checkout_sessions WHERE id = ANY($1::uuid[])',
    [sessionIds],
  );
  return new Map(rows.map((row) => [row.id, { integratorId: row.integrator_id, createdAt: row.created_at }]));
}

/**
 * Per session of `sessionIds`: what the books say its address received on `blockchainId` of the
 * token `token` of its asset (exact decimal strings), in blocks up to `block`.
 */
export async function receivedUpTo(
  db: Queryable,
  blockchainId: string,
  block: number,
  sessionIds: readonly string[],
): Promise<Map<string, Map<string, string>>> {
  const { rows } = await db.query<{ session_id: string; token: string; total: string }>(
    `SELECT session_id, lower(token_address) AS token, sum(amount)::text AS total FROM incoming_transfers
     WHERE session_id = ANY($1::uuid[]) AND blockchain_id = $2 AND status IN ('credited', 'ignored') AND block_number <= $3
     GROUP BY session_id, lower(token_address)`,
    [sessionIds, blockchainId, block],
  );
  const out = new Map<string, Map<string, string>>();
  for (const row of rows) {
    const tokens = out.get(row.session_id) ?? new Map<string, string>();
    tokens.set(row.token, row.total);
    out.set(row.session_id, tokens);
  }
  return out;
}

/** One transfer the books hold at a deposit address: where it is and how much (exact). */
export interface ReceivedTransfer {
  txHash: string;
  ordinal: number;
  blockNumber: number;
  amount: string;
}

/** The transfers of `token` the books hold at the address of session `sessionId` on `blockchainId`, oldest block first. */
export async function receivedTransfers(db: Queryable, blockchainId: string, sessionId: string, token: string): Promise<ReceivedTransfer[]> {
  const { rows } = await db.query<{ tx_hash: string; ordinal: number; block_number: string; amount: string }>(
    `SELECT tx_hash, ordinal, block_number::text AS block_number, amount::text AS amount FROM incoming_transfers
     WHERE session_id = $1 AND blockchain_id = $2 AND lower(token_address) = lower($3) AND status IN ('credited', 'ignored') AND block_number IS NOT NULL
     ORDER BY block_number, ordinal`,
    [sessionId, blockchainId, token],
  );
  return rows.map((row) => ({ txHash: row.tx_hash, ordinal: row.ordinal, blockNumber: Number(row.block_number), amount: row.amount }));
}
