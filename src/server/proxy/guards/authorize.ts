/**
 * Who may use the admin routes: the merchant's `authorize(request)` (e.g. its own session cookie), else
 * `Authorization: Bearer <adminToken>` compared in constant time, else nobody. 401 `unauthorized`
 * otherwise; an `authorize` that throws is a 500 without its message (it might hold anything).
 *
 * The token is a password that guards the merchant's money, so it must be one nobody guesses: at least
 * `MIN_ADMIN_TOKEN_LENGTH` characters, or the proxy refuses to start and says how to make one. And
 * guessing is slowed: a refused request that presented credentials (an `Authorization` header) is a
 * failed attempt, counted per client address (10 at once, then one every 5 s), past which the client's
 * requests with credentials are answered 429 with `Retry-After` before they are even looked at (a guess
 * that hits learns nothing); each failure is logged with the code `admin_auth_failed`, the request id
 * and the client address, never what it sent. A request without that header guesses nothing: a
 * merchant's own session cookie, checked by `authorize`, still works from a client that is limited.
 */
import type { Logger } from '../../log.js';
import type { Guard } from '../exchange.js';
import { errorOut, type ProxyIncoming } from '../messages.js';
import { createRateLimiter, type RateLimiter, type RateLimitOptions } from '../../limits/rate-limit.js';

/** The shortest admin token accepted, in characters: 32 random base64url characters are 192 bits. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/** A command that prints a good admin token (32 random bytes, base64url: 43 characters). */
export const MAKE_ADMIN_TOKEN_COMMAND = `node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))"`;

/** Failed admin attempts a client may make at once, then one every 5 s. */
export const ADMIN_FAILURE_LIMIT: RateLimitOptions = { burst: 10, perSecond: 0.2 };

/**
 * The admin token as configured (`name` says where it came from, for the message): trimmed, or
 * undefined when there is none. Throws a `TypeError` that says how to make a token when it is shorter
 * than `MIN_ADMIN_TOKEN_LENGTH`: a short token is guessed, and a refusal at start is found at once.
 */
export function checkAdminToken(token: string | undefined, name = 'adminToken'): string | undefined {
  const trimmed = token?.trim();
  if (!trimmed) return undefined;
  if (trimmed.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new TypeError(
      `${name} must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters long (it has ${trimmed.length}): a short token can be guessed. Make one with: ${MAKE_ADMIN_TOKEN_COMMAND}`,
    );
  }
  return trimmed;
}

/** The options that decide admin access (see `PaylinkProxyOptions`). */
export interface AuthorizeOptions {
  authorize?: ((request: Request) => boolean | Promise<boolean>) | undefined;
  adminToken?: string | undefined;
  /** Where refusals and a throwing `authorize` are logged (a code, the request id, the client; never the request's data). */
  logger?: Logger | undefined;
  /** The limit on failed attempts per client (default `ADMIN_FAILURE_LIMIT`), or `false` for none. */
  failureLimit?: RateLimitOptions | false | undefined;
}

/** Lets authorized callers through; 401 (or 500 when `authorize` throws) otherwise; 429 to a client past its failed attempts. */
export function authorizeGuard(options: AuthorizeOptions): Guard {
  const isAuthorized = createAuthorizer(options);
  const failures: RateLimiter | undefined = options.failureLimit === false ? undefined : createRateLimiter(options.failureLimit ?? ADMIN_FAILURE_LIMIT);
  const log = options.logger;
  return async (exchange) => {
    const attempt = exchange.incoming.header('authorization') !== null;
    const client = failures && attempt ? exchange.clientKey() : undefined;
    if (client !== undefined) {
      const limited = failures!.peek(client);
      if (!limited.allowed) {
        const seconds = String(limited.retryAfterSeconds);
        log?.throttled('warn', 'admin_auth_limited', 'admin requests refused: too many failed attempts from one client', {
          requestId: exchange.requestId,
          client,
        });
        return errorOut(429, 'rate_limited', `Too many failed admin sign-in attempts from this address; retry in ${seconds} s`, { 'retry-after': seconds });
      }
    }
    let allowed: boolean;
    try {
      allowed = await isAuthorized(exchange.incoming);
    } catch {
      log?.error('authorize_failed', 'the admin authorization check threw', { requestId: exchange.requestId });
      return errorOut(500, 'authorize_failed', 'The admin authorization check failed');
    }
    if (allowed) return undefined;
    if (attempt) {
      if (client !== undefined) failures!.take(client);
      log?.warn('admin_auth_failed', 'an admin request presented credentials that were refused', { requestId: exchange.requestId, client });
    }
    return errorOut(401, 'unauthorized', 'Admin routes need an authorized caller', { 'www-authenticate': 'Bearer realm="paylink-admin"' });
  };
}

function createAuthorizer(options: AuthorizeOptions): (incoming: ProxyIncoming) => Promise<boolean> {
  if (options.authorize) {
    const authorize = options.authorize;
    return async (incoming) => (await authorize(incoming.request())) === true;
  }
  const matches = createBearerCheck(checkAdminToken(options.adminToken));
  return (incoming) => matches(incoming.header('authorization'));
}

/**
 * A check of an `Authorization` header against `Bearer <token>`, in constant time (comparing SHA-256
 * digests keeps the time independent of where, and whether, the strings differ, and of their lengths).
 * With no token, nothing matches. For an `authorize` hook that accepts the token besides its own login.
 */
export function createBearerCheck(token: string | undefined): (authorization: string | null | undefined) => Promise<boolean> {
  if (!token) return async () => false;
  const expected = digest(token);
  return async (authorization) => {
    const match = /^Bearer\s+(.+)$/i.exec((authorization ?? '').trim());
    if (!match) return false;
    return timingSafeEqual(await expected, await digest(match[1]!.trim()));
  };
}

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
