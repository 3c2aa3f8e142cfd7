/**
 * `Idempotency-Key` as reusable Hono middleware, for any route whose effect must happen once
 * however often a request is retried: every keyed POST that creates or sends something
 * (`POST /v1/withdrawal`, `/v1/payment-link`, `/v1/webhook-endpoint`, `/v1/webhook-endpoint/{id}/test`,
 * `/v1/webhook-delivery/{id}/retry`).
 *
 * The middleware reads and checks the header (1–255 visible ASCII characters; a malformed key is a
 * 400 before anything else runs) and marks a replayed answer with `Idempotent-Replayed: true`. The
 * route's domain code then runs its transaction through `runIdempotent`: the key is claimed first,
 * in the very transaction that moves the money, so a concurrent twin waits on the unique key and
 * replays the committed response; the first response is stored with a hash of the normalized
 * request; a replay of the same request gets that response again and changes nothing; the same key
 * with another request is 409 `idempotency_conflict`. Requests refused before the domain ran (400,
 * 401) are not stored, and neither is anything that throws (the transaction rolls back, key included).
 *
 * Two variants for routes whose work can't all sit in one transaction: `storedAnswer` answers a
 * replay before checks that reach outside (a DNS lookup), and `runIdempotentAcross` covers an effect
 * that ends outside the transaction (a webhook attempt): its claim is committed first, and a twin that
 * arrives while the first is in flight is told so (409 `idempotency_in_progress`), not run twice.
 *
 * And for a route that makes many requests' changes in one statement (withdrawals, coalesced): the
 * statement skips a request whose key is used (`keyUnusedSql`) and stores each answer with its change
 * (`storeAnswersSql`, keyed by `hashRequest`); a request whose key was used is then answered by
 * `storedAnswer`, as a replay or a 409.
 */
import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { IdempotencyKeyHeader } from '../../../core/schemas.js';
import type { Queryable } from '../../db/index.js';
import type { AppEnv } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import type { Database } from '../../db/index.js';
import { claimKey, findKey, releaseClaim, retakeStaleClaim, storeResponse, type StoredResponse } from './repository.js';

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
  const requestHash = hashRequest(request);
  const earlier = await claimKey(tx, scope, state.key, requestHash);
  if (earlier) return replay(state, earlier, requestHash);
  const response = await work();
  await storeResponse(tx, scope, state.key, response);
  return response;
}

/** How long a claim may wait for its answer (the slowest two-step request: a webhook attempt, 10 s) before it counts as abandoned. */
const CLAIM_ABANDONED_AFTER_MS = 5 * 60_000;

/** What the stored key remembers of its request: a digest of the normalized request (`request` of `runIdempotent`). */
export function hashRequest(request: unknown): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('hex');
}

/** The earlier answer of the key, for the same request; 409 for another request, or one still in flight. */
function replay(state: IdempotencyState, earlier: { requestHash: string; response: StoredResponse }, requestHash: string): StoredResponse {
  if (earlier.requestHash !== requestHash) throw new ApiError(409, 'idempotency_conflict', 'This Idempotency-Key was already used with a different request');
  if (earlier.response.statusCode === 0)
    throw new ApiError(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still in progress; retry in a moment', undefined, {
      'retry-after': '1',
    });
  state.replayed = true;
  return earlier.response;
}

/**
 * The stored answer of the request's key when a request with it has finished, looked up without a
 * claim: a route whose checks reach outside the database (a DNS lookup) answers a replay before
 * running them. Throws 409 when the key went with another request or is still in flight; undefined
 * when the key is new (the route then runs, and `runIdempotent` settles a race between twins).
 */
export async function storedAnswer(db: Queryable, state: IdempotencyState | undefined, scope: string, request: unknown): Promise<StoredResponse | undefined> {
  if (state?.key === undefined) return undefined;
  const earlier = await findKey(db, scope, state.key);
  return earlier ? replay(state, earlier, hashRequest(request)) : undefined;
}

/**
 * Runs, at most once per key, an effect that starts in a transaction (`begin`, with the key's claim,
 * committed together) and ends outside one (`finish`, e.g. a network call, whose answer is stored
 * after). A twin that arrives in between gets 409 `idempotency_in_progress`; one that arrives after
 * gets the stored answer. A claim whose request died in between is taken over after five minutes.
 * When `begin` or `finish` throws, the claim is given up, so that a retry runs again.
 */
export async function runIdempotentAcross<R extends StoredResponse>(
  db: Pick<Database, 'transaction' | 'query'>,
  state: IdempotencyState | undefined,
  scope: string,
  request: unknown,
  begin: (tx: Queryable) => Promise<void>,
  finish: () => Promise<R>,
): Promise<R | StoredResponse> {
  const key = state?.key;
  if (key === undefined) {
    await db.transaction(begin);
    return finish();
  }
  const requestHash = hashRequest(request);
  const earlier = await db.transaction(async (tx) => {
    const found = await claimKey(tx, scope, key, requestHash);
    if (found && !(found.response.statusCode === 0 && found.requestHash === requestHash && (await retakeStaleClaim(tx, scope, key, CLAIM_ABANDONED_AFTER_MS))))
      return found;
    await begin(tx);
    return null;
  });
  if (earlier) return replay(state!, earlier, requestHash);
  let response: R;
  try {
    response = await finish();
  } catch (error) {
    await releaseClaim(db, scope, key).catch(() => undefined);
    throw error;
  }
  await storeResponse(db, scope, key, response);
  return response;
}
