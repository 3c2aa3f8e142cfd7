/** `/v1/withdrawal*` (spec §4.5–4.6), behind `X-API-KEY`. */
import { Hono } from 'hono';
import { CreateWithdrawalInput, ListWithdrawalsQuery } from '../../../core/schemas.js';
import { type AppEnv, jsonBody, queryOf } from '../context.js';
import { idempotency } from '../idempotency/index.js';
import type { MoneyServiceDeps } from '../money-deps.js';
import { createWithdrawal, getWithdrawal, listWithdrawals, parseWithdrawalRequest, withdrawalNetworks } from './domain.js';

export function withdrawalRoutes(deps: MoneyServiceDeps) {
  const { db, chain } = deps;
  return new Hono<AppEnv>()
    .post('/', idempotency(), jsonBody(CreateWithdrawalInput), async (c) => {
      const request = parseWithdrawalRequest(c.req.valid('json'), chain);
      const outcome = await createWithdrawal(db, c.get('principal'), request, c.get('idempotency'), deps.now());
      if (outcome.createdId) deps.onWithdrawalCreated();
      return c.json(outcome.body, outcome.statusCode);
    })
    .get('/', queryOf(ListWithdrawalsQuery), async (c) => c.json(await listWithdrawals(db, c.get('principal'), c.req.valid('query'))))
    // Before `/:id`: the networks a withdrawal can use, from configuration (what the admin's form offers).
    .get('/networks', (c) => c.json({ items: withdrawalNetworks(chain) }))
    .get('/:id', async (c) => c.json(await getWithdrawal(db, c.get('principal'), c.req.param('id'))));
}
