/**
 * A per-client token bucket: each client may burst `burst` requests, then `perSecond` a second.
 * The proxy's `rateLimit` option and the service's per-client limits (the public checkout API) both
 * count with it. In memory, so per instance: behind N instances a client gets up to N times the rate. That is
 * the intent (a brake on one noisy client, not a quota); the service's own rules hold regardless.
 * Runtime-neutral: no Node imports, no timers (idle buckets are swept lazily).
 */

/** The bucket's size and refill rate (the proxy's `rateLimit` option). */
export interface RateLimitOptions {
  /** Requests a client may make at once (bucket size). Default 60. */
  burst?: number;
  /** Sustained requests per second per client (refill rate). Default 10. */
  perSecond?: number;
  /** Upper bound on tracked clients; the least recently seen are forgotten first. Default 100 000. */
  maxClients?: number;
  /** The clock, in ms (tests move it). */
  now?: () => number;
}

/** One `take`'s outcome. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Whole seconds until one more request is allowed (0 when allowed). */
  retryAfterSeconds: number;
  /** Tokens left after this request. */
  remaining: number;
}

/** Per-client token buckets. */
export interface RateLimiter {
  /** Takes one token from `clientKey`'s bucket. */
  take(clientKey: string): RateLimitDecision;
  /** What `take` would decide now, taking nothing (for limits on failures: look first, take on a failure). */
  peek(clientKey: string): RateLimitDecision;
  /** Clients currently tracked (for tests and metrics). */
  readonly size: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** A limiter with `options` (defaults: burst 60, 10 per second, 100 000 clients). */
export function createRateLimiter(options: RateLimitOptions = {}): RateLimiter {
  const burst = options.burst ?? 60;
  const perSecond = options.perSecond ?? 10;
  const maxClients = options.maxClients ?? 100_000;
  const now = options.now ?? (() => Date.now());
  if (!(burst >= 1) || !(perSecond > 0)) throw new RangeError('rateLimit needs burst >= 1 and perSecond > 0');
  // A Map iterates in insertion order; re-inserting on each hit keeps it ordered by last use.
  const buckets = new Map<string, Bucket>();
  const fullAfterMs = (burst / perSecond) * 1000;
  let lastSweep = now();

  function sweep(at: number) {
    // A bucket idle long enough to be full again is the same as no bucket: forget it.
    for (const [key, bucket] of buckets) {
      if (at - bucket.updatedAt < fullAfterMs) break;
      buckets.delete(key);
    }
    lastSweep = at;
  }

  /** The tokens in `clientKey`'s bucket at `at`. */
  const tokensAt = (clientKey: string, at: number) => {
    const bucket = buckets.get(clientKey);
    return bucket ? Math.min(burst, bucket.tokens + ((at - bucket.updatedAt) / 1000) * perSecond) : burst;
  };
  const refused = (tokens: number): RateLimitDecision => ({
    allowed: false,
    retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / perSecond)),
    remaining: 0,
  });

  return {
    peek(clientKey) {
      const tokens = tokensAt(clientKey, now());
      return tokens >= 1 ? { allowed: true, retryAfterSeconds: 0, remaining: Math.floor(tokens) } : refused(tokens);
    },
    take(clientKey) {
      const at = now();
      if (at - lastSweep > Math.max(fullAfterMs, 1000)) sweep(at);
      const tokens = tokensAt(clientKey, at);
      if (buckets.has(clientKey)) {
        buckets.delete(clientKey);
      } else if (buckets.size >= maxClients) {
        const oldest = buckets.keys().next().value;
        if (oldest !== undefined) buckets.delete(oldest);
      }
      if (tokens >= 1) {
        buckets.set(clientKey, { tokens: tokens - 1, updatedAt: at });
        return { allowed: true, retryAfterSeconds: 0, remaining: Math.floor(tokens - 1) };
      }
      buckets.set(clientKey, { tokens, updatedAt: at });
      return refused(tokens);
    },
    get size() {
      return buckets.size;
    },
  };
}
