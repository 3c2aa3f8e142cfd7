/** `/v1/order*` behind `X-API-KEY`: the merchant's orders. Another integrator's order is a 404. */
import { Hono } from 'hono';
import { CreateOrderInput, ListOrdersQuery } from '../../../core/schemas.js';
import { type AppEnv, type ServiceDeps, jsonBody, queryOf } from '../context.js';
import { idempotency } from '../idempotency/index.js';
import { cancelOrder, createOrder, getOrder, listOrders, type CloseOrderSessions } from './domain.js';

export function orderRoutes(deps: ServiceDeps, closeSessions: CloseOrderSessions) {
  const { db, publicUrl } = deps;
  return new Hono<AppEnv>()
    .post('/', idempotency(), jsonBody(CreateOrderInput), async (c) => {
      const outcome = await createOrder(db, c.get('principal'), c.req.valid('json'), c.get('idempotency'), publicUrl, deps.now());
      return c.json(outcome.body, outcome.statusCode as 201);
    })
    .get('/', queryOf(ListOrdersQuery), async (c) => c.json(await listOrders(db, c.get('principal'), c.req.valid('query'))))
    .get('/:id', async (c) => c.json(await getOrder(db, c.get('principal'), c.req.param('id'), deps.now())))
    .post('/:id/cancel', async (c) => c.json(await cancelOrder(db, c.get('principal'), c.req.param('id'), deps.now(), closeSessions)));
}
