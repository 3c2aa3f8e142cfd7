/**
 * The demo's shop: what a plugin author builds, whole. The shop's page (demo/pages/shop.html) sends the
 * cart (products and quantities, no prices) to the shop's own server, here; the server prices it from
 * its own catalogue and creates a Paylink order with the merchant's API key through the headless client
 * (`paylink/client`), as a WooCommerce or Shopify plugin would; the page then pays that order with
 * `<paylink-checkout order="…">` through the proxy, and keeps the order's id in its address, so a reload
 * shows the order as it is (open, or paid).
 *
 * `POST /shop/orders` `{items: [{sku, quantity}]}` → 201 `{id, url, fiatAmount, fiatCurrency}`. A
 * visitor of the demo may use it, so it is fenced in like the demo wallet: same-origin JSON only, a small
 * body, at most 10 of a product, and a rate limit per visitor.
 */
import { randomUUID } from 'node:crypto';
import type { PaylinkClient } from '../src/client/index.js';
import { PaylinkError } from '../src/client/errors.js';
import { rateLimiter } from './wallet.js';

/** A product of the demo shop, priced by the shop's server (the page never sends a price). */
export interface ShopProduct {
  sku: string;
  name: string;
  /** Naira, as a decimal string. */
  price: string;
}

/** What the shop sells. */
export const SHOP_CATALOGUE: readonly ShopProduct[] = [
  { sku: 'yirgacheffe-250', name: 'Ethiopian Yirgacheffe, 250 g', price: '8500' },
  { sku: 'house-blend-500', name: 'Lagos house blend, 500 g', price: '12000' },
  { sku: 'filters-100', name: 'Pour-over filter papers (100)', price: '2500.50' },
];

/** The most of one product in a cart. */
const MAX_QUANTITY = 10;
const MAX_BODY_BYTES = 2048;

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } });
const problem = (status: number, code: string, message: string) => json({ error: { code, message } }, status);

/** The total of `quantity` × `price` over a cart, in naira with kobo (decimal strings, no floats). */
function cartTotal(lines: ReadonlyArray<{ product: ShopProduct; quantity: number }>): string {
  const kobo = lines.reduce((sum, { product, quantity }) => {
    const [whole, fraction = ''] = product.price.split('.');
    return sum + BigInt(quantity) * BigInt(`${whole}${fraction.padEnd(2, '0')}`);
  }, 0n);
  return `${kobo / 100n}.${String(kobo % 100n).padStart(2, '0')}`;
}

/** The cart of a request body, priced from the catalogue, or a reason it is not one. */
function readCart(body: unknown): { lines: Array<{ product: ShopProduct; quantity: number }> } | { refused: string } {
  const items = (body as { items?: unknown } | null)?.items;
  if (!Array.isArray(items) || items.length === 0) return { refused: 'items must list at least one product: [{sku, quantity}]' };
  const lines: Array<{ product: ShopProduct; quantity: number }> = [];
  for (const item of items) {
    const { sku, quantity } = (item ?? {}) as { sku?: unknown; quantity?: unknown };
    const product = SHOP_CATALOGUE.find((candidate) => candidate.sku === sku);
    if (!product) return { refused: `no product ${JSON.stringify(sku)} in this shop` };
    if (!Number.isInteger(quantity) || (quantity as number) < 1 || (quantity as number) > MAX_QUANTITY)
      return { refused: `quantity must be a whole number from 1 to ${MAX_QUANTITY}` };
    if (lines.some((line) => line.product === product)) return { refused: `${product.sku} is listed twice` };
    lines.push({ product, quantity: quantity as number });
  }
  return { lines };
}

/**
 * The shop's server routes (`/shop/…`), creating orders with `client` (keyed: the merchant's API key
 * stays on this server). `origin` is the demo's own: only its pages may create orders.
 */
export function createDemoShop(client: PaylinkClient, origin: string) {
  const orders = rateLimiter(0.5, 5);
  let next = 0;

  async function createOrder(request: Request, visitor: string): Promise<Response> {
    if (request.headers.get('origin') !== origin && request.headers.get('sec-fetch-site') !== 'same-origin')
      return problem(403, 'cross_site_request', 'the demo shop takes orders from its own pages only');
    if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json'))
      return problem(415, 'unsupported_media_type', 'send JSON (content-type: application/json)');
    const text = await request.text();
    if (Buffer.byteLength(text) > MAX_BODY_BYTES) return problem(413, 'body_too_large', `the cart is larger than ${MAX_BODY_BYTES} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return problem(400, 'invalid_json', 'the body is not JSON');
    }
    const cart = readCart(body);
    if ('refused' in cart) return problem(400, 'invalid_cart', cart.refused);
    if (!orders(visitor)) return problem(429, 'rate_limited', 'too many orders at once: wait a moment');
    // The shop's own order number: the Paylink order's reference, which its webhook events carry back.
    const reference = `demo-shop-${Date.now().toString(36)}-${++next}`;
    try {
      const order = await client.orders.create(
        {
          reference,
          fiatAmount: cartTotal(cart.lines),
          fiatCurrency: 'NGN',
          title: 'Lagos Coffee Roasters',
          description: `Order ${reference}: roasted this week, delivered within Lagos in two days.`,
          cart: { items: cart.lines.map(({ product, quantity }) => ({ name: product.name, quantity, unitAmount: product.price })) },
          postpayAction: { successMessage: 'Thank you! Your coffee is on its way.', showConfirmationPage: true },
        },
        { idempotencyKey: randomUUID() },
      );
      return json({ id: order.id, url: order.url, fiatAmount: order.fiatAmount, fiatCurrency: order.fiatCurrency }, 201);
    } catch (error) {
      // The service's refusal, in its words (never the key); anything else is the service being away.
      if (error instanceof PaylinkError && error.status > 0 && error.status < 500) return problem(error.status, error.code, error.message);
      return problem(502, 'paylink_unavailable', 'the payment service did not answer; try again');
    }
  }

  return {
    /** Answers `/shop/…`; `visitor` is the caller's address (for the rate limit). */
    async handle(request: Request, visitor: string): Promise<Response> {
      const { pathname } = new URL(request.url);
      if (pathname === '/shop/catalogue' && request.method === 'GET') return json({ items: SHOP_CATALOGUE, currency: 'NGN' });
      if (pathname === '/shop/orders') {
        if (request.method !== 'POST') return problem(405, 'method_not_allowed', 'use POST');
        return createOrder(request, visitor);
      }
      return problem(404, 'not_found', 'no such shop route');
    },
  };
}
