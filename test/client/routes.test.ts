/**
 * The headless client covers the route table: every keyed operation of `core/routes.ts` has a client
 * method, named here by operation id, and calling that method sends the operation's method and path.
 * A keyed operation added to the table without a client method fails here until one is written and
 * listed. (The public checkout operations are `client.checkout`'s, listed too.)
 *
 * The client writes its paths itself instead of looking them up by operation id: the admin bundle
 * carries the client, and any table it could read (a zod-free one of ids, methods and paths) ships
 * the 32 operation ids with it, some 330 to 470 bytes gzipped; this test holds the paths to the
 * table for nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPaylinkClient, type PaylinkClient } from '../../src/client/index.js';
import { API_ROUTES, colonPath, type ApiRoute, type OperationId } from '../../src/core/routes.js';

const ID = '3f1c2b9a-0d4e-4f6a-8b7c-1a2b3c4d5e6f';

/** Each operation's client method, called with arguments that satisfy its types. */
const CLIENT_METHODS: Partial<Record<OperationId, (client: PaylinkClient) => Promise<unknown>>> = {
  createPaymentLink: (c) => c.links.create({ type: 'STANDARD', title: 'T', fiatAmount: '1', fiatCurrency: 'USD' } as never),
  updatePaymentLink: (c) => c.links.update({ id: ID } as never),
  listPaymentLinks: (c) => c.links.list(),
  getPaymentLink: (c) => c.links.get({ id: ID } as never),
  createWithdrawal: (c) => c.withdrawals.create({ asset: 'USDC', network: 'x', amount: '1', address: '0x0' } as never),
  listWithdrawals: (c) => c.withdrawals.list(),
  listWithdrawalNetworks: (c) => c.withdrawals.networks(),
  getWithdrawal: (c) => c.withdrawals.get(ID),
  createOrder: (c) => c.orders.create({ amount: '1', currency: 'USD', reference: 'r' } as never),
  listOrders: (c) => c.orders.list(),
  getOrder: (c) => c.orders.get(ID),
  cancelOrder: (c) => c.orders.cancel(ID),
  listCheckoutSessionRecords: (c) => c.sessions.list(),
  getCheckoutSessionRecord: (c) => c.sessions.get(ID),
  hideCheckoutSessionDonor: (c) => c.sessions.hideDonor(ID),
  createWebhookEndpoint: (c) => c.webhookEndpoints.create({ url: 'https://hooks.example/x' } as never),
  listWebhookEndpoints: (c) => c.webhookEndpoints.list(),
  updateWebhookEndpoint: (c) => c.webhookEndpoints.update({ id: ID } as never),
  getWebhookEndpoint: (c) => c.webhookEndpoints.get({ id: ID } as never),
  deleteWebhookEndpoint: (c) => c.webhookEndpoints.delete({ id: ID } as never),
  listWebhookDeliveries: (c) => c.webhookEndpoints.deliveries({ id: ID } as never),
  sendWebhookTestEvent: (c) => c.webhookEndpoints.sendTestEvent({ id: ID } as never),
  rollWebhookSecret: (c) => c.webhookEndpoints.rollSecret({ id: ID } as never, { expiresInHours: 1 }),
  getWebhookDelivery: (c) => c.webhookDeliveries.get(ID),
  retryWebhookDelivery: (c) => c.webhookDeliveries.retry({ id: ID } as never),
  getBalance: (c) => c.balance.get(),
  createRefund: (c) => c.refunds.create({ sessionId: ID }),
  listRefunds: (c) => c.refunds.list({ status: 'awaiting_address' }),
  getRefund: (c) => c.refunds.get(ID),
  cancelRefund: (c) => c.refunds.cancel(ID),
  resolveCheckoutSession: (c) => c.sessions.resolve({ id: ID, reason: 'Paid the rest in cash' }),
  getRates: (c) => c.rates.get(),
  getPublicLink: (c) => c.checkout.getLink('slug-1'),
  recordVisit: (c) => c.checkout.recordVisit('slug-1'),
  listPublicDonors: (c) => c.checkout.listDonors('slug-1'),
  startCheckoutSession: (c) => c.checkout.startSession('slug-1', {} as never),
  getPublicOrder: (c) => c.checkout.getOrder(ID),
  startOrderSession: (c) => c.checkout.startOrderSession(ID, {} as never),
  getCheckoutSession: (c) => c.checkout.getSession(ID),
  simulatePayment: (c) => c.checkout.simulatePayment(ID),
};

/** What the client leaves to other tools, and why. */
const NOT_IN_CLIENT: Partial<Record<OperationId, string>> = {
  streamCheckoutSession: 'an event stream: checkout.watchSession opens it with an EventSource',
  getClaimableRefund: 'the customer’s claim: the hosted claim page calls it (its token is the customer’s, never a client’s)',
  claimRefund: 'the customer’s claim: the hosted claim page calls it (its token is the customer’s, never a client’s)',
};

/** The request one client call sends (its answer is a 500: only the request matters here). */
async function requestOf(call: (client: PaylinkClient) => Promise<unknown>): Promise<{ method: string; path: string }> {
  const sent: Request[] = [];
  const client = createPaylinkClient({
    baseUrl: 'https://api.test',
    apiKey: 'pk_test_client_routes',
    fetch: async (input, init) => {
      sent.push(new Request(input, init));
      return new Response(JSON.stringify({ status: 'error', statusCode: 500, code: 'internal_error', message: 'x' }), {
        status: 500,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  await call(client).catch(() => undefined);
  assert.equal(sent.length, 1, 'one request per call');
  return { method: sent[0]!.method, path: new URL(sent[0]!.url).pathname };
}

const pattern = (path: string) => new RegExp(`^${colonPath(path).replace(/:\w+/g, '[^/]+')}$`);

describe('the client and the route table', () => {
  const table = API_ROUTES as readonly ApiRoute[];

  it('has a method for every keyed operation, or says why not', () => {
    const missing = table.filter(
      (route) => route.auth === 'key' && !CLIENT_METHODS[route.operationId as OperationId] && !NOT_IN_CLIENT[route.operationId as OperationId],
    );
    assert.deepEqual(
      missing.map((route) => route.operationId),
      [],
    );
  });

  it('each listed method sends its operation’s method and path', async () => {
    const byId = new Map(table.map((route) => [route.operationId, route]));
    for (const [id, call] of Object.entries(CLIENT_METHODS)) {
      if (!call) continue;
      const route = byId.get(id)!;
      const { method, path } = await requestOf(call);
      assert.equal(method, route.method, id);
      assert.match(path, pattern(route.path), id);
    }
  });
});
