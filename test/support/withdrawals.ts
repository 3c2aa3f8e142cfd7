/** What the withdrawal tests share: request bodies, principals, and a service with funded keys. */
import { after, before } from 'node:test';
import type { ChainAdapter } from '../../src/server/chain/types.js';
import type { Principal } from '../../src/server/service/keys/index.js';
import { GOOD_ADDRESS, fund } from './money.js';
import { startTestService, type Backend, type TestService } from './service.js';

/** A valid `POST /v1/withdrawal` body, with overrides. */
export const validBody = (overrides: Record<string, unknown> = {}) => ({
  amount: '1',
  address: GOOD_ADDRESS,
  blockchainId: 'bsc',
  assetId: 'USDT',
  ...overrides,
});

/** Another valid address for each `n` (distinct recipients, as a burst of payouts has). */
export const addressNumber = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

/** The principal of a created key, as the intake takes it. */
export const principalOf = (created: { integratorId: string; userId: string; keyId: string }): Principal => ({
  integratorId: created.integratorId,
  userId: created.userId,
  keyId: created.keyId,
});

/**
 * A service on `backend` without a payout worker, started before the suite's tests (handed to
 * `started`) and closed after: call inside `describe`. Returns `fundedKey`, which makes a new
 * integrator holding `amount` USDT on bsc.
 */
export function withdrawalService(backend: Backend, chain: ChainAdapter, started: (t: TestService) => void) {
  let t: TestService | undefined;
  before(async () => {
    t = await startTestService(backend, { payoutWorker: false, chain });
    started(t);
  });
  after(() => t?.close());
  return async function fundedKey(amount: string) {
    const created = await t!.newKey();
    await fund(t!.url, created.key, amount);
    return created;
  };
}
