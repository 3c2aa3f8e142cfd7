/** `/v1/withdrawal*` (spec §4.5–4.6, DESIGN §4), behind `X-API-KEY`. */
import { Hono } from 'hono';
import { type AppEnv, readJsonBody } from '../context.js';
import type { MoneyServiceDeps } from '../money-deps.js';
import { checkIdempotencyKey, createWithdrawal, getWithdrawal, listWithdrawals, parseWithdrawalRequest } from '../withdrawals.js';

export function withdrawalRoutes(deps: MoneyServiceDeps) {
  const { db, chain } = deps;
  return new Hono<AppEnv>()
    .post('/', async (c) => {
      const idempotencyKey = checkIdempotencyKey(c.req.header('idempotency-key'));
      const request = parseWithdrawalRequest(await readJsonBody(c), chain);
      const outcome = await createWithdrawal(db, c.get('principal'), request, idempotencyKey, deps.now());
      if (outcome.createdId) deps.onWithdrawalCreated();
      if (outcome.replayed) c.header('Idempotent-Replayed', 'true');
      return c.json(outcome.body, outcome.statusCode);
    })
    .get('/', async (c) => c.json(await listWithdrawals(db, c.get('principal'), c.req.query())))
    .get('/:id', async (c) => c.json(await getWithdrawal(db, c.get('principal'), c.req.param('id'))));
}
