/** The withdrawal operations of the route table (`/v1/withdrawal*`), behind `X-API-KEY`. */
import { idempotency } from '../idempotency/index.js';
import type { MoneyServiceDeps } from '../money-deps.js';
import type { RoomOperations } from '../operations.js';
import { getWithdrawal, listWithdrawals, parseWithdrawalRequest, withdrawalNetworks } from './domain.js';
import { createWithdrawalIntake } from './intake.js';

/** The room's handlers by operation id. */
export function withdrawalOperations(deps: MoneyServiceDeps) {
  const { db, chain } = deps;
  const intake = createWithdrawalIntake(db, { onRecorded: deps.onWithdrawalCreated, onTurn: deps.anticipatePayouts });
  return {
    createWithdrawal: {
      use: [idempotency()],
      handler: async (c) => {
        const request = parseWithdrawalRequest(c.req.valid('json'), chain);
        const outcome = await intake.submit(c.get('principal'), request, c.get('idempotency'), deps.now());
        return c.json(outcome.body, outcome.statusCode);
      },
    },
    listWithdrawals: async (c) => c.json(await listWithdrawals(db, c.get('principal'), c.req.valid('query'))),
    // The networks a withdrawal can use, from configuration (what the admin's form offers), with their alerts.
    listWithdrawalNetworks: async (c) => c.json({ items: await withdrawalNetworks(db, chain) }),
    getWithdrawal: async (c) => c.json(await getWithdrawal(db, c.get('principal'), c.req.param('id'))),
  } satisfies RoomOperations;
}
