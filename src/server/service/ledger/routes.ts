/** `GET /v1/balance`: available and pending per asset and network, behind `X-API-KEY`. */
import { Hono } from 'hono';
import type { AppEnv, ServiceDeps } from '../context.js';
import { getBalances } from './repository.js';

export function balanceRoutes(deps: ServiceDeps) {
  return new Hono<AppEnv>().get('/', async (c) => c.json(await getBalances(deps.db, c.get('principal').integratorId, deps.chain.networks)));
}
