/** The SQL of `idempotency_keys`: nothing else in the service reads or writes it. */
import type { Queryable, SqlParam } from '../../db/index.js';

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

/** The row of `key`, claimed or answered, or null when no request used it (outside any transaction: a look, not a claim). */
export async function findKey(db: Queryable, scope: string, key: string): Promise<{ requestHash: string; response: StoredResponse } | null> {
  const { rows } = await db.query<{ request_hash: string; status_code: number; response_body: Record<string, unknown> }>(
    'SELECT request_hash, status_code, response_body FROM idempotency_keys WHERE integrator_id = $1 AND idempotency_key = $2',
    [scope, key],
  );
  const row = rows[0];
  return row ? { requestHash: row.request_hash, response: { statusCode: row.status_code, body: row.response_body } } : null;
}

/**
 * Takes over a claim whose request never stored its answer and was made more than `staleAfterMs` ago
 * by the database's clock (the request died between its two steps). True when this caller now holds it.
 */
export async function retakeStaleClaim(tx: Queryable, scope: string, key: string, staleAfterMs: number): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE idempotency_keys SET created_at = now()
     WHERE integrator_id = $1 AND idempotency_key = $2 AND status_code = 0 AND created_at < now() - $3::int * interval '1 millisecond'
     RETURNING 1`,
    [scope, key, staleAfterMs],
  );
  return rows.length === 1;
}

/** Gives up a claim that stored no answer (its request failed before it had one), so that a retry runs again. */
export async function releaseClaim(db: Queryable, scope: string, key: string): Promise<void> {
  await db.query('DELETE FROM idempotency_keys WHERE integrator_id = $1 AND idempotency_key = $2 AND status_code = 0', [scope, key]);
}

/** Stores the response of the request that claimed `key`, in the same transaction. */
export async function storeResponse(tx: Queryable, scope: string, key: string, response: StoredResponse): Promise<void> {
  await tx.query('UPDATE idempotency_keys SET status_code = $3, response_body = $4::jsonb WHERE integrator_id = $1 AND idempotency_key = $2', [
    scope,
    key,
    response.statusCode,
    JSON.stringify(response.body),
  ]);
}

/**
 * An SQL condition, for one statement of another room: true when no request of `scope` has used the
 * key that `keySql` yields (always true for a null key). Read in the statement's snapshot: a twin that
 * commits the key meanwhile is caught by `storeAnswersSql`'s unique key instead.
 */
export function keyUnusedSql(param: SqlParam, scope: string, keySql: string): string {
  return `NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE integrator_id = ${param(scope)}::uuid AND idempotency_key = ${keySql})`;
}

/**
 * The INSERT, for one statement of another room, that stores the answers of the requests in `rows` (a
 * relation with the columns `idempotency_key`, `request_hash`, `status_code`, `response_body`; rows
 * without a key are skipped) in the statement that makes their change. A plain INSERT, not a claim:
 * when another request stored one of the keys first, the whole statement fails (`isKeyTaken`) and
 * changes nothing, so a key is never answered twice nor its change made twice.
 */
export function storeAnswersSql(param: SqlParam, scope: string, rows: string): string {
  return `INSERT INTO idempotency_keys (integrator_id, idempotency_key, request_hash, status_code, response_body)
    SELECT ${param(scope)}::uuid, idempotency_key, request_hash, status_code, response_body FROM ${rows} WHERE idempotency_key IS NOT NULL
    RETURNING 1`;
}

/** Which of `keys` a request of `scope` has used (one query). */
export async function usedKeys(db: Queryable, scope: string, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { rows } = await db.query<{ key: string }>(
    'SELECT idempotency_key AS key FROM idempotency_keys WHERE integrator_id = $1 AND idempotency_key = ANY($2::text[])',
    [scope, [...keys]],
  );
  return new Set(rows.map((row) => row.key));
}

/** Whether a statement failed because a key that `storeAnswersSql` would store was stored first by another request. */
export function isKeyTaken(error: unknown): boolean {
  const { code, constraint, message } = (error ?? {}) as { code?: unknown; constraint?: unknown; message?: unknown };
  return code === '23505' && (constraint === 'idempotency_keys_pkey' || (typeof message === 'string' && message.includes('idempotency_keys_pkey')));
}
