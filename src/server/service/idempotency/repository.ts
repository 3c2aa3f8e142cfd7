/** The SQL of `idempotency_keys`: nothing else in the service reads or writes it. */
import type { Queryable } from '../../db/index.js';

/** A response stored for replays. */
export interface StoredResponse {
  statusCode: number;
  body: Record<string, unknown>;
}

/**
 * Claims `key` for `requestHash` in the caller's transaction. Returns null when this request is the
 * first with the key (the row is now held until the transaction ends, so a concurrent twin waits on
 * the unique key and then sees the committed response), or the stored row of an earlier request.
 */
export async function claimKey(
  tx: Queryable,
  scope: string,
  key: string,
  requestHash: string,
): Promise<{ requestHash: string; response: StoredResponse } | null> {
  const claimed = await tx.query(
    `INSERT INTO idempotency_keys (integrator_id, idempotency_key, request_hash, status_code, response_body)
     VALUES ($1, $2, $3, 0, '{}'::jsonb) ON CONFLICT DO NOTHING RETURNING 1`,
    [scope, key, requestHash],
  );
  if (claimed.rows.length === 1) return null;
  const { rows } = await tx.query<{ request_hash: string; status_code: number; response_body: Record<string, unknown> }>(
    'SELECT request_hash, status_code, response_body FROM idempotency_keys WHERE integrator_id = $1 AND idempotency_key = $2',
    [scope, key],
  );
  const row = rows[0]!;
  return { requestHash: row.request_hash, response: { statusCode: row.status_code, body: row.response_body } };
}

/** Stores the response of the request that claimed `key`, in the same transaction. */
export async function storeResponse(tx: Queryable, scope: string, key: string, response: StoredResponse): Promise<void> {
  await tx.query(
    'UPDATE idempotency_keys SET status_code = $3, response_body = $4::jsonb WHERE integrator_id = $1 AND idempotency_key = $2',
    [scope, key, response.statusCode, JSON.stringify(response.body)],
  );
}
