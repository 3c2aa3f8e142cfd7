/**
 * Using the headless client from Node: a merchant back end creates a payment link for an order and
 * later checks its balance. Talks to the service directly with the API key (server-side only).
 *
 * In your app: `import { createPaylinkClient, PaylinkValidationError } from 'paylink/client';`
 */
import { createPaylinkClient, PaylinkValidationError, type PaylinkClientOptions } from '../src/client/index.js';

export interface Order {
  id: string;
  title: string;
  /** Decimal string in the currency's units, e.g. "25.00". */
  total: string;
  currency: string;
}

/** Creates (once per order: the order id is the idempotency key) a Standard link and returns its public URL. */
export async function createPaymentPageForOrder(order: Order, options: Partial<PaylinkClientOptions> = {}): Promise<string> {
  const paylink = createPaylinkClient({
    baseUrl: process.env.PAYLINK_URL ?? 'http://127.0.0.1:8787', // the service origin; the client adds /v1
    apiKey: process.env.PAYLINK_API_KEY,
    ...options,
  });
  try {
    const link = await paylink.links.create(
      {
        title: order.title,
        description: `Order ${order.id}`,
        linkType: 'Standard',
        fiatAmount: order.total,
        fiatCurrency: order.currency,
        action: { successMessage: 'Thank you for your order!', redirect: false, showConfirmationPage: true },
        options: { collectAddress: false, collectPhone: false },
        cart: { items: [] },
      },
      { idempotencyKey: `order-${order.id}` },
    );
    return link.url;
  } catch (error) {
    if (error instanceof PaylinkValidationError) {
      // error.errors names each bad field: [{ path: 'fiatAmount', message: '…' }]
      throw new Error(`Paylink refused the order: ${error.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
    }
    throw error;
  }
}
