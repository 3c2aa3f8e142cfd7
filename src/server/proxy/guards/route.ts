/**
 * The route table as a guard: picks the exchange's route, or answers 404 `not_found` (a path outside the
 * table) or 405 `method_not_allowed` with `Allow`. It runs after the area's access guards, so a caller
 * the admin area refuses learns nothing about which admin paths exist.
 */
import type { Guard } from '../exchange.js';
import { errorOut } from '../messages.js';
import type { Router } from '../routes.js';

/** Sets `exchange.route` from the table, or answers 404 / 405. */
export function routeGuard(router: Router): Guard {
  return (exchange) => {
    const match = router.route(exchange.area, exchange.rest, exchange.incoming.method);
    if ('route' in match) {
      exchange.route = match.route;
      return undefined;
    }
    if (match.refused === 404) return notFound();
    return errorOut(405, 'method_not_allowed', 'Method not allowed', { allow: match.allow });
  };
}

/** The proxy's own 404. */
export function notFound() {
  return errorOut(404, 'not_found', 'No such proxy route');
}
