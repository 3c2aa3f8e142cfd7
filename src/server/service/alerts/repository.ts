/**
 * The SQL of `network_alerts`: nothing else in the service reads or writes it.
 */
import type { NETWORK_ALERT_CODES } from '../../../core/rules/networks.js';
import type { Queryable } from '../../db/index.js';

/** What an operator must be told about a network until it is mended (`NETWORK_ALERT_CODES`). */
export type AlertCode = (typeof NETWORK_ALERT_CODES)[number];

/** An alert as stored. */
export interface NetworkAlert {
  blockchainId: string;
  code: AlertCode;
  /** What is wrong and what to do, for a person (no customer data). */
  message: string;
  /** Names and numbers behind it (addresses of the service's own wallets, amounts, block numbers). */
  detail: Record<string, unknown>;
  /** When it was first raised; an alert that holds keeps this time. */
  raisedAt: Date;
  updatedAt: Date;
}

interface AlertRow {
  blockchain_id: string;
  code: AlertCode;
  message: string;
  detail: Record<string, unknown> | string;
  raised_at: Date;
  updated_at: Date;
}

const toAlert = (row: AlertRow): NetworkAlert => ({
  blockchainId: row.blockchain_id,
  code: row.code,
  message: row.message,
  detail: typeof row.detail === 'string' ? (JSON.parse(row.detail) as Record<string, unknown>) : row.detail,
  raisedAt: row.raised_at,
  updatedAt: row.updated_at,
});

/**
 * Raises `code` on `blockchainId`, or refreshes its message and detail while it holds (its `raisedAt`
 * stays). Resolves with true when it was not raised before: the caller logs and announces it then, once.
 */
export async function raiseAlert(
  db: Queryable,
  alert: { blockchainId: string; code: AlertCode; message: string; detail?: Record<string, unknown> | undefined },
  now: Date,
): Promise<boolean> {
  const { rows } = await db.query<{ inserted: boolean }>(
    `INSERT INTO network_alerts (blockchain_id, code, message, detail, raised_at, updated_at)
       VALUES ($1, $2, $3, $4::jsonb, $5, $5)
     ON CONFLICT (blockchain_id, code) DO UPDATE SET message = EXCLUDED.message, detail = EXCLUDED.detail, updated_at = EXCLUDED.updated_at
     RETURNING (xmax = 0) AS inserted`,
    [alert.blockchainId, alert.code, alert.message, JSON.stringify(alert.detail ?? {}), now],
  );
  return rows[0]?.inserted === true;
}

/** Ends `code` on `blockchainId`; resolves with true when it was raised. */
export async function clearAlert(db: Queryable, blockchainId: string, code: AlertCode): Promise<boolean> {
  const { rows } = await db.query('DELETE FROM network_alerts WHERE blockchain_id = $1 AND code = $2 RETURNING code', [blockchainId, code]);
  return rows.length > 0;
}

/** The alerts that hold, of one network or of all, oldest first. */
export async function listAlerts(db: Queryable, blockchainId?: string): Promise<NetworkAlert[]> {
  const { rows } = await db.query<AlertRow>(
    `SELECT blockchain_id, code, message, detail, raised_at, updated_at FROM network_alerts
      WHERE $1::text IS NULL OR blockchain_id = $1 ORDER BY raised_at, blockchain_id, code`,
    [blockchainId ?? null],
  );
  return rows.map(toAlert);
}

/**
 * True while payouts on `blockchainId` are halted: a block held as final was found changed
 * (`chain_finality_violated`), until an operator resumes the network.
 */
export async function payoutsHalted(db: Queryable, blockchainId: string): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM network_alerts WHERE blockchain_id = $1 AND code = 'chain_finality_violated'`, [blockchainId]);
  return rows.length > 0;
}
