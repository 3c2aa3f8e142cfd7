/** The rates operation of the route table (`GET /v1/rates`): the book as it stands, behind `X-API-KEY`. */
import type { MoneyServiceDeps } from '../money-deps.js';
import type { RoomOperations } from '../operations.js';
import { ratesView } from './view.js';

/** The room's handler by operation id. */
export function rateOperations(deps: MoneyServiceDeps) {
  return {
    getRates: (c) => c.json(ratesView(deps.rates, deps.now())),
  } satisfies RoomOperations;
}
