/**
 * Creating the order on your server, with the headless client (any Node framework): the shop prices its
 * own cart and creates the Paylink order with its API key. Only this call sets the amount, the currency
 * and the `reference` (your order id); the page then pays that order (`<paylink-checkout order="…">`, or
 * the order's hosted `url`) and can change none of them. Server side only: the key never reaches a page.
 *
 * In your app: `import { createPaylinkClient, PaylinkValidationError, type Order } from 'paylink/client';`
 */
import { createPaylinkClient, PaylinkValidationError, type Order, type PaylinkClient, type PaylinkClientOptions } from '../src/client/index.js';

/** An order of the shop, as its own database holds it. */
export interface ShopOrder {
  /** Your order id: the Paylink order's `reference`, which its sessions and webhooks carry. */
  id: string;
  title: string;
  /** What your server priced, a decimal string in the currency's digits ("1500.00"; JPY "1500"). */
  total: string;
  currency: string;
  /** The lines of the cart; their total is `total`. */
  items: { name: string; quantity: number; unitAmount: string }[];
  /** The Paylink order made for it (its `id`), once made. */
  paylinkOrderId: string | null;
}

/** The client of the shop's server: the service's origin and the API key, from its environment. */
export function paylinkClient(options: Partial<PaylinkClientOptions> = {}): PaylinkClient {
  return createPaylinkClient({
    baseUrl: process.env.PAYLINK_URL ?? 'http://127.0.0.1:8787', // the service origin; the client adds /v1
    apiKey: process.env.PAYLINK_API_KEY,
    ...options,
  });
}

/**
 * The Paylink order that pays `order`: the one made for it already while it can still be paid (the
 * customer reloaded the checkout), else a new one. The idempotency key makes a retry after a timeout
 * return the same order; it names the order made before, so a new one replaces an expired one.
 */
export async function paylinkOrderFor(paylink: PaylinkClient, order: ShopOrder): Promise<Order> {
  if (order.paylinkOrderId) {
    const made = await paylink.orders.get(order.paylinkOrderId);
    if (made.status === 'open' || made.status === 'paid') return made;
  }
  try {
    return await paylink.orders.create(
      {
        fiatAmount: order.total,
        fiatCurrency: order.currency,
        reference: order.id,
        title: order.title,
        cart: { items: order.items },
        postpayAction: { successMessage: 'Thank you for your order!', showConfirmationPage: true },
      },
      { idempotencyKey: `order-${order.id}-after-${order.paylinkOrderId ?? 'none'}` },
    );
  } catch (error) {
    if (error instanceof PaylinkValidationError) {
      // error.errors names each bad field: [{ path: 'fiatAmount', message: '…' }]
      throw new Error(`Paylink refused the order: ${error.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
    }
    throw error;
  }
}
