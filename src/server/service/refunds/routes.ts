/**
 * The refund operations of the route table: `/v1/refund*` and `POST /v1/checkout-session/{id}/resolve`
 * behind `X-API-KEY`, and the customer's keyless claim, `/v1/checkout/refunds/{id}*`, behind the refund's
 * claim token (`Paylink-Claim`). The key itself is read here only to open a refund's claim link for the
 * key that made it (./claim-token.ts); it is never stored, answered or logged.
 */
import type { Context } from 'hono';
import { CLAIM_HEADER } from '../../../core/rules/refund.js';
import type { ChainAdapter } from '../../chain/types.js';
import { readJsonBody, type AppEnv } from '../context.js';
import { idempotency } from '../idempotency/index.js';
import type { RoomOperations } from '../operations.js';
import { claimRefund, readClaimableRefund } from './claim.js';
import { cancelRefund, createRefund, getRefund, listRefunds, type RefundDeps } from './domain.js';
import { resolveSession } from './resolve.js';

/** The caller's API key, as `requireKey` accepted it. */
const apiKeyOf = (c: Context<AppEnv>) => c.req.header('x-api-key')!.trim();

/** The room's handlers by operation id. */
export function refundOperations(deps: RefundDeps & { chain: ChainAdapter }) {
  // The customer's view of a refund is theirs alone: no cache keeps it.
  const noStore = (c: Context<AppEnv>) => c.header('cache-control', 'no-store');
  return {
    createRefund: {
      use: [idempotency()],
      handler: async (c) => {
        const answer = await createRefund(deps, c.get('principal'), apiKeyOf(c), c.req.valid('json'), c.get('idempotency'));
        return c.json(answer.body, answer.statusCode as 201);
      },
    },
    listRefunds: async (c) => c.json(await listRefunds(deps, c.get('principal'), apiKeyOf(c), c.req.valid('query'))),
    getRefund: async (c) => c.json(await getRefund(deps, c.get('principal'), apiKeyOf(c), c.req.param('id'))),
    cancelRefund: async (c) => c.json(await cancelRefund(deps, c.get('principal'), c.req.param('id'))),
    resolveCheckoutSession: async (c) => c.json(await resolveSession(deps, c.get('principal'), c.req.param('id'), c.req.valid('json').reason?.trim() || null)),
    getClaimableRefund: async (c) => {
      noStore(c);
      return c.json(await readClaimableRefund(deps, c.req.param('id'), c.req.header(CLAIM_HEADER)));
    },
    claimRefund: {
      // The refund and its token first: an unknown refund or a wrong token is a 404 whatever the body says.
      bodyInHandler: true,
      handler: async (c) => {
        noStore(c);
        return c.json(await claimRefund(deps, c.req.param('id'), c.req.header(CLAIM_HEADER), () => readJsonBody(c)));
      },
    },
  } satisfies RoomOperations;
}
