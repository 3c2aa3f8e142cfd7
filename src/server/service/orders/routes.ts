/** The order operations of the route table (`/v1/order*`), behind `X-API-KEY`. Another integrator's order is a 404. */
import type { ServiceDeps } from '../context.js';
import { idempotency } from '../idempotency/index.js';
import type { RoomOperations } from '../operations.js';
import { cancelOrder, createOrder, getOrder, listOrders, type CloseOrderSessions } from './domain.js';

/** The room's handlers by operation id. */
export function orderOperations(deps: ServiceDeps, closeSessions: CloseOrderSessions) {
  const { db, publicUrl } = deps;
  return {
    createOrder: {
      use: [idempotency()],
      handler: async (c) => {
        const outcome = await createOrder(db, c.get('principal'), c.req.valid('json'), c.get('idempotency'), publicUrl, deps.now());
        return c.json(outcome.body, outcome.statusCode as 201);
      },
    },
    listOrders: async (c) => c.json(await listOrders(db, c.get('principal'), c.req.valid('query'))),
    getOrder: async (c) => c.json(await getOrder(db, c.get('principal'), c.req.param('id'), deps.now())),
    cancelOrder: async (c) => c.json(await cancelOrder(db, c.get('principal'), c.req.param('id'), deps.now(), closeSessions)),
  } satisfies RoomOperations;
}
