/** The balance operation of the route table (`GET /v1/balance`): available and pending per asset and network, behind `X-API-KEY`. */
import type { ServiceDeps } from '../context.js';
import type { RoomOperations } from '../operations.js';
import { getBalances } from './repository.js';

/** The room's handler by operation id. */
export function balanceOperations(deps: ServiceDeps) {
  return {
    getBalance: async (c) => c.json(await getBalances(deps.db, c.get('principal').integratorId, deps.chain.networks)),
  } satisfies RoomOperations;
}
