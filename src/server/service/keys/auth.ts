/** `requireKey`: the `X-API-KEY` check in front of every keyed route. */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import { ApiError } from '../errors.js';
import type { Database } from '../../db/index.js';
import { findPrincipal } from './repository.js';

/** 401 without a key or with one that is unknown or revoked; otherwise the caller is `c.get('principal')`. */
export function requireKey(db: Database): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.req.header('x-api-key');
    if (!key) throw new ApiError(401, 'missing_api_key', 'Send your API key in the X-API-KEY header');
    const principal = await findPrincipal(db, key.trim());
    if (!principal) throw new ApiError(401, 'invalid_api_key', 'The API key is not valid');
    c.set('principal', principal);
    await next();
  };
}
