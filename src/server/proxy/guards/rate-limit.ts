/**
 * Per-client rate limit (a token bucket per client key, see `../rate-limit.ts`): 429 `rate_limited` with
 * `Retry-After` past the burst. Requests whose client can't be told apart are let through (see `client-key.ts`).
 */
import type { Guard } from '../exchange.js';
import { errorOut } from '../messages.js';
import type { RateLimiter } from '../../limits/rate-limit.js';

/** Takes one token per request from the client's bucket. */
export function rateLimitGuard(limiter: RateLimiter): Guard {
  return (exchange) => {
    const key = exchange.clientKey();
    if (key === undefined) return undefined;
    const decision = limiter.take(key);
    if (decision.allowed) return undefined;
    const seconds = String(decision.retryAfterSeconds);
    return errorOut(429, 'rate_limited', `Too many requests; retry in ${seconds} s`, { 'retry-after': seconds });
  };
}
