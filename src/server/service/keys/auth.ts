/** `requireKey`: the `X-API-KEY` check in front of every keyed route. */
import type { MiddlewareHandler } from 'hono';
import type { Database } from '../../db/index.js';
import { createCoalescer } from '../coalesce.js';
import type { AppEnv } from '../context.js';
import { ApiError } from '../errors.js';
import { findPrincipals, type Principal } from './repository.js';

interface Lookup {
  key: string;
  resolve(principal: Principal | null): void;
  reject(error: unknown): void;
}

/**
 * 401 without a key or with one that is unknown or revoked; otherwise the caller is `c.get('principal')`.
 * The keys presented while a lookup is in flight are looked up together, in the next query (../coalesce.ts):
 * a burst of keyed requests costs a few queries, and each is answered by a query that started after it arrived.
 */
export function requireKey(db: Database): MiddlewareHandler<AppEnv> {
  const lookups = createCoalescer<Lookup>({
    async run(_lane, batch) {
      const principals = await findPrincipals(
        db,
        batch.map((lookup) => lookup.key),
      );
      for (const [i, lookup] of batch.entries()) lookup.resolve(principals[i]!);
    },
  });
  return async (c, next) => {
    const key = c.req.header('x-api-key');
    if (!key) throw new ApiError(401, 'missing_api_key', 'Send your API key in the X-API-KEY header');
    const principal = await new Promise<Principal | null>((resolve, reject) => lookups.add('keys', { key: key.trim(), resolve, reject }));
    if (!principal) throw new ApiError(401, 'invalid_api_key', 'The API key is not valid');
    c.set('principal', principal);
    await next();
  };
}
