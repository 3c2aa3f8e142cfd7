/**
 * CORS for the checkout routes: `allowedOrigins` (or `'*'`) may read the answers, preflights are
 * answered, and every answer (refusals included, so the checkout can read a 429) carries the headers.
 * Areas without CORS answer OPTIONS with `Allow` only: no `Access-Control-*`, so other sites can't call them.
 */
import type { Guard } from '../exchange.js';
import { headerRecord, type ProxyOutgoing } from '../messages.js';

/** `allowedOrigins` as the option takes it. */
export type AllowedOrigins = readonly string[] | '*' | undefined;

const VARY_ORIGIN: Readonly<Record<string, string>> = Object.freeze({ vary: 'Origin' });

/** Sets the area's CORS headers on the exchange; answers a preflight (OPTIONS) itself. */
export function corsGuard(allowedOrigins: AllowedOrigins, methods: string): Guard {
  const origins = allowedOrigins === '*' ? '*' : new Set((allowedOrigins ?? []).map(normalizeOrigin));
  const allowMethods = methods;

  function headersFor(origin: string | null): Readonly<Record<string, string>> {
    // Vary on every answer, so a shared cache never serves one origin's CORS headers to another.
    if (!origin) return VARY_ORIGIN;
    if (origins !== '*' && !origins.has(normalizeOrigin(origin))) return VARY_ORIGIN;
    return { vary: 'Origin', 'access-control-allow-origin': origins === '*' ? '*' : origin, 'access-control-expose-headers': 'Retry-After' };
  }

  return (exchange) => {
    const cors = headersFor(exchange.incoming.header('origin'));
    exchange.answerHeaders = cors;
    if (exchange.incoming.method !== 'OPTIONS') return undefined;
    // The exchange's CORS headers are added to this answer like to any other.
    const headers = headerRecord();
    if (cors['access-control-allow-origin']) {
      headers['access-control-allow-methods'] = allowMethods;
      headers['access-control-allow-headers'] = 'Content-Type, Accept, Last-Event-ID, Idempotency-Key, Paylink-Claim';
      headers['access-control-max-age'] = '600';
    }
    return { status: 204, headers, body: null } satisfies ProxyOutgoing;
  };
}

/** For areas without CORS: OPTIONS gets `204` with `Allow` and nothing a browser would take as a grant. */
export function optionsGuard(methods: string): Guard {
  return (exchange) => {
    if (exchange.incoming.method !== 'OPTIONS') return undefined;
    const headers = headerRecord();
    headers.allow = methods;
    return { status: 204, headers, body: null };
  };
}

/** `https://Shop.example/` → `https://shop.example`. */
export function normalizeOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}
