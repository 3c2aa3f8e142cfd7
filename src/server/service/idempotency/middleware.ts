/**
 * `Idempotency-Key` as reusable Hono middleware, for any route whose effect must happen once
 * however often a request is retried (today `POST /v1/withdrawal`).
 *
 * The middleware reads and checks the header (1–255 visible ASCII characters; a malformed key is a
 * 400 before anything else runs) and marks a replayed answer with `Idempotent-Replayed: true`. The
 * route's domain code then runs its transaction through `runIdempotent`: the key is claimed first,
 * in the very transaction that moves the money, so a concurrent twin waits on the unique key and
 * replays the committed response; the first response is stored with a hash of the normalized
 * request; a replay of the same request gets that response again and changes nothing; the same key
 * with another request is 409 `idempotency_conflict`. Requests refused before the domain ran (400,
 * 401) are not stored, and neither is anything that throws (the transaction rolls back, key included).
 */
import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { IdempotencyKeyHeader } from '../../../core/schemas.js';
import type { Queryable } from '../../db/index.js';
import type { AppEnv } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { claimKey, storeResponse, type StoredResponse } from './repository.js';

/** What the middleware hands the route: the key (if any), and whether the answer is a replay. */
export interface IdempotencyState {
  key: string | undefined;
  replayed: boolean;
}

/** Checks an `Idempotency-Key` header value; undefined when the header is absent. */
export function readIdempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const key = value.trim();
  if (!IdempotencyKeyHeader.safeParse(key).success)
    throw validationError([{ path: 'Idempotency-Key', message: 'Idempotency-Key must be 1 to 255 visible ASCII characters' }]);
  return key;
}

/** The middleware: `c.get('idempotency')` in the route, `Idempotent-Replayed: true` on replays. */
export function idempotency(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const state: IdempotencyState = { key: readIdempotencyKey(c.req.header('idempotency-key')), replayed: false };
    c.set('idempotency', state);
    await next();
    if (state.replayed) c.header('Idempotent-Replayed', 'true');
  };
}

/**
 * Runs `work` at most once per key within `scope` (the caller's integrator), inside the caller's
 * transaction `tx`. `request` is the normalized request (what makes two requests the same one).
 * Returns `work`'s response, or the stored response of the request that first used the key.
 */
export async function runIdempotent<R extends StoredResponse>(
  tx: Queryable,
  state: IdempotencyState | undefined,
  scope: string,
  request: unknown,
  work: () => Promise<R>,
): Promise<R | StoredResponse> {
  if (state?.key === undefined) return work();
  const requestHash = createHash('sha256').update(JSON.stringify(request)).digest('hex');
  const earlier = await claimKey(tx, scope, state.key, requestHash);
  if (earlier) {
    if (earlier.requestHash !== requestHash)
      throw new ApiError(409, 'idempotency_conflict', 'This Idempotency-Key was already used with a different request');
    state.replayed = true;
    return earlier.response;
  }
  const response = await work();
  await storeResponse(tx, scope, state.key, response);
  return response;
}
