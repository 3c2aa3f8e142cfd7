/**
 * Who may use the admin routes: the merchant's `authorize(request)` (e.g. its own session cookie), else
 * `Authorization: Bearer <adminToken>` compared in constant time, else nobody. 401 `unauthorized`
 * otherwise; an `authorize` that throws is a 500 without its message (it might hold anything).
 */
import type { Logger } from '../../log.js';
import type { Guard } from '../exchange.js';
import { errorOut, type ProxyIncoming } from '../messages.js';

/** The options that decide admin access (see `PaylinkProxyOptions`). */
export interface AuthorizeOptions {
  authorize?: ((request: Request) => boolean | Promise<boolean>) | undefined;
  adminToken?: string | undefined;
  /** Where a throwing `authorize` is logged (its code and the request id; never the error's text or the request). */
  logger?: Logger | undefined;
}

/** Lets authorized callers through; 401 (or 500 when `authorize` throws) otherwise. */
export function authorizeGuard(options: AuthorizeOptions): Guard {
  const isAuthorized = createAuthorizer(options);
  return async (exchange) => {
    let allowed: boolean;
    try {
      allowed = await isAuthorized(exchange.incoming);
    } catch {
      options.logger?.error('authorize_failed', 'the admin authorization check threw', { requestId: exchange.requestId });
      return errorOut(500, 'authorize_failed', 'The admin authorization check failed');
    }
    if (allowed) return undefined;
    return errorOut(401, 'unauthorized', 'Admin routes need an authorized caller', { 'www-authenticate': 'Bearer realm="paylink-admin"' });
  };
}

function createAuthorizer(options: AuthorizeOptions): (incoming: ProxyIncoming) => Promise<boolean> {
  if (options.authorize) {
    const authorize = options.authorize;
    return async (incoming) => (await authorize(incoming.request())) === true;
  }
  const token = options.adminToken?.trim();
  if (!token) return async () => false;
  const expected = digest(token);
  return async (incoming) => {
    const match = /^Bearer\s+(.+)$/i.exec((incoming.header('authorization') ?? '').trim());
    if (!match) return false;
    // Comparing digests keeps the time independent of where (and whether) the strings differ, and of their lengths.
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
