/**
 * The webhook recipe for orders: what the shop checks before it ships. It runs on a verified delivery
 * (examples/webhook-express.ts, examples/webhook-next-route.ts verify the signature first).
 *
 * Only an order your server created (`POST /v1/order`) names your order: its sessions carry `orderId`
 * and the order's `reference`. A payment link's session has neither (`reference` is null): what its page
 * said is `clientReference`, which anyone can set, so it never ships anything. And the payment must be
 * for the order you made, at the price you set, in full: the recipe compares the session's `orderId`,
 * `fiatAmount`, `fiatCurrency` and `status` with your own order before it ships, once.
 *
 * In your app: `import type { CheckoutSessionRecord } from 'paylink/client';` and
 * `import type { PaylinkWebhookEvent } from 'paylink/webhooks';`
 */
import type { CheckoutSessionRecord } from '../src/client/index.js';
import type { PaylinkWebhookEvent } from '../src/webhooks/index.js';
import type { ShopOrder } from './node-client.js';

/** The shop's order store, as the recipes use it. */
export interface ShopOrders {
  /** Your order `id`, or undefined. */
  find(id: string): Promise<ShopOrder | undefined>;
  /** Remembers the Paylink order made for order `id`. */
  setPaylinkOrder(id: string, paylinkOrderId: string): Promise<void>;
  /**
   * Marks order `id` paid, if it is not yet, and says whether this call did: true once only, however
   * often the event comes (in a database: `UPDATE … SET status = 'paid' WHERE id = $1 AND status <> 'paid'`).
   */
  markPaid(id: string): Promise<boolean>;
}

/** What the recipe did with an event. */
export type ShipOutcome = 'shipped' | 'already shipped' | 'not an order' | 'not paid' | 'does not match';

/** Ships the order that `event` says is paid, after checking it is the order, amount and currency you made; once. */
export async function shipPaidOrder(event: PaylinkWebhookEvent<unknown>, orders: ShopOrders, ship: (order: ShopOrder) => Promise<void>): Promise<ShipOutcome> {
  if (event.type !== 'checkout.session.paid') return 'not an order';
  const session = event.data.object as CheckoutSessionRecord;
  // A payment link's session names no order of yours: its page's word (clientReference) is no order id.
  if (!session.orderId || !session.reference) return 'not an order';
  const order = await orders.find(session.reference);
  if (
    !order ||
    order.paylinkOrderId !== session.orderId || // the Paylink order you made for it
    session.fiatAmount !== order.total || // your price, as you sent it (the currency's digits)
    session.fiatCurrency !== order.currency
  )
    return 'does not match';
  // `paid` or `overpaid` (more than the amount: paid as well); nothing else ships.
  if (session.status !== 'paid' && session.status !== 'overpaid') return 'not paid';
  if (!(await orders.markPaid(order.id))) return 'already shipped';
  await ship(order);
  return 'shipped';
}

/** An in-memory order store for the examples and their tests (a real shop uses its database). */
export function memoryShopOrders(seed: ShopOrder[]): ShopOrders & { paid: Set<string> } {
  const byId = new Map(seed.map((order) => [order.id, { ...order }]));
  const paid = new Set<string>();
  return {
    paid,
    find: async (id) => byId.get(id),
    setPaylinkOrder: async (id, paylinkOrderId) => void (byId.get(id)!.paylinkOrderId = paylinkOrderId),
    markPaid: async (id) => !paid.has(id) && Boolean(paid.add(id)),
  };
}
