/**
 * The merchant's session operations of the route table (`/v1/checkout-session*`), behind `X-API-KEY`:
 * its payments, with the customer's details, reference, metadata and every transfer. Another
 * integrator's session is a 404.
 */
import type { ServiceDeps } from '../context.js';
import type { RoomOperations } from '../operations.js';
import { OPEN_STATUSES } from '../../../core/rules/session.js';
import { expireIfDue } from './domain.js';
import { getSessionRecord, hideDonor, listSessionRecords } from './records.js';

/** The handlers by operation id. */
export function checkoutSessionOperations(deps: ServiceDeps) {
  const { db } = deps;
  return {
    listCheckoutSessionRecords: async (c) => c.json(await listSessionRecords(db, c.get('principal'), c.req.valid('query'))),
    getCheckoutSessionRecord: async (c) => {
      const principal = c.get('principal');
      const id = c.req.param('id');
      let record = await getSessionRecord(db, principal, id);
      // Like the keyless read: a quote that ran out reads as expired even before the sweep gets to it.
      const now = deps.now();
      if (OPEN_STATUSES.has(record.status) && Date.parse(record.expiresAt) <= now.getTime() && (await expireIfDue(deps, id, now)))
        record = await getSessionRecord(db, principal, id);
      return c.json(record);
    },
    hideCheckoutSessionDonor: async (c) => c.json(await hideDonor(db, c.get('principal'), c.req.param('id'), deps.now())),
  } satisfies RoomOperations;
}
