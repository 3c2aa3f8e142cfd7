/**
 * A fake Paylink checkout API for `<paylink-checkout>` tests: a `fetch` that serves
 * `/paylink/checkout/*` from in-memory links, orders and sessions, records every call, and lets a test
 * override any answer. Injected through the element's `fetch` property; no globals patched.
 */
import type { CheckoutSession, PublicDonor, PublicLink, PublicOrder } from '../../src/core/schemas.js';

export const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

export function makeLink(overrides: Partial<PublicLink> = {}): PublicLink {
  return {
    id: 'lnk_1',
    slug: 'shop1',
    url: 'http://localhost/pay/shop1',
    title: 'Coffee order',
    description: 'Freshly roasted',
    linkType: 'Standard',
    fiatAmount: '19500.50',
    fiatCurrency: ['NGN'],
    prepayOptions: { collectAddress: false, collectPhone: false },
    cart: {
      items: [
        { name: 'Yirgacheffe 250 g', quantity: 2, unitAmount: '8500' },
        { name: 'Filter papers', quantity: 1, unitAmount: '2500.50' },
      ],
    },
    isActive: true,
    closesAt: null,
    minAmount: null,
    maxAmount: null,
    suggestedAmounts: [],
    goalAmount: null,
    raised: null,
    donorCount: null,
    state: 'open',
    assets: [
      { assetId: 'USDT', blockchainId: 'bsc', networkName: 'BNB Smart Chain', ...SANDBOX_CHAIN_FACTS },
      { assetId: 'CNGN', blockchainId: 'bsc', networkName: 'BNB Smart Chain', ...SANDBOX_CHAIN_FACTS },
    ],
    sandbox: true,
    merchantName: 'Ada Stores',
    ...overrides,
  };
}

/** What the sandbox chain reports of its assets: no real chain, so no token, explorer or wallet parameters. */
export const SANDBOX_CHAIN_FACTS = { chainId: null, tokenAddress: null, decimals: null, explorerUrl: null, addNetwork: null };

/** What the service gives a wallet to add BNB Smart Chain (`wallet_addEthereumChain`). */
export const BSC_ADD_NETWORK = {
  chainId: '0x38',
  chainName: 'BNB Smart Chain',
  nativeCurrency: { name: 'BNB', symbol: 'BNB', decimals: 18 },
  rpcUrls: ['https://bsc-dataseed.bnbchain.org'],
};

export function makeDonation(overrides: Partial<PublicLink> = {}): PublicLink {
  return makeLink({
    slug: 'give1',
    title: 'Library books',
    description: 'Every naira buys books',
    linkType: 'Donation',
    fiatAmount: '0.00',
    cart: { items: [] },
    minAmount: '500',
    maxAmount: '2000000',
    suggestedAmounts: ['1000', '5000'],
    ...overrides,
  });
}

/** An order's public view, as `GET /checkout/orders/{id}` returns it, with `overrides` applied. */
export function makeOrder(overrides: Partial<PublicOrder> = {}): PublicOrder {
  return {
    id: '0f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b',
    url: 'http://localhost/pay/order/0f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b',
    title: 'Order 1042',
    description: 'Two lamps',
    fiatAmount: '1500.00',
    fiatCurrency: 'USD',
    cart: { items: [{ name: 'Lamp', quantity: 2, unitAmount: '750.00' }] },
    prepayOptions: { collectAddress: false, collectPhone: false },
    state: 'open',
    expiresAt: new Date(Date.now() + 24 * 3_600_000).toISOString(),
    assets: makeLink().assets,
    sandbox: true,
    merchantName: 'Lamp Shop',
    ...overrides,
  };
}

export function makeSession(overrides: Partial<CheckoutSession> = {}): CheckoutSession {
  return {
    id: 'ses_1',
    slug: 'shop1',
    orderId: null,
    status: 'awaiting_payment',
    fiatAmount: '19500.50',
    fiatCurrency: 'NGN',
    assetId: 'USDT',
    blockchainId: 'bsc',
    networkName: 'BNB Smart Chain',
    cryptoAmount: '12.187813',
    rate: '0.000625',
    rateSource: 'static',
    rateAt: new Date().toISOString(),
    paidAmount: '0',
    remainingAmount: '12.187813',
    payAddress: ADDRESS,
    txHash: null,
    paidBlockchainId: null,
    expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
    createdAt: new Date().toISOString(),
    sandbox: true,
    postpayAction: null,
    chainId: null,
    tokenAddress: null,
    tokenDecimals: null,
    explorerUrl: null,
    confirmations: null,
    requiredConfirmations: null,
    ...overrides,
  };
}

export const PAID_ACTION = { redirect: false, showConfirmationPage: true, successMessage: 'Your beans are on their way.', redirectUrl: '' };

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

export function errorResponse(status: number, code: string, message: string, errors?: { path: string; message: string }[]): Response {
  return json({ status: 'error', statusCode: status, code, message, ...(errors ? { errors } : {}) }, status);
}

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown> | undefined;
}

export class FakeCheckoutApi {
  links = new Map<string, PublicLink>();
  orders = new Map<string, PublicOrder>();
  sessions = new Map<string, CheckoutSession>();
  calls: Call[] = [];
  /** A fundraiser's public donors, newest first, as `GET /checkout/{slug}/donors` lists them (`?limit=` honoured). */
  donors: PublicDonor[] = [];
  /** Answers a call instead of the fake when it returns a Response. */
  override?: (call: Call) => Response | Promise<Response> | undefined;
  /** What the next session will look like (the fake fills in the asked asset and amount). */
  nextSession: Partial<CheckoutSession> = {};
  /** What a simulated payment turns the session into. */
  onSimulate: (session: CheckoutSession) => Partial<CheckoutSession> = (session) => ({
    status: 'paid',
    paidAmount: session.cryptoAmount,
    remainingAmount: '0',
    txHash: '0x' + 'ab'.repeat(32),
    postpayAction: PAID_ACTION,
  });

  constructor(...links: PublicLink[]) {
    for (const link of links) this.links.set(link.slug, link);
  }

  /** Calls whose path ends with `suffix` (method optional). */
  callsTo(suffix: string, method?: string): Call[] {
    return this.calls.filter((call) => call.path.endsWith(suffix) && (!method || call.method === method));
  }

  fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    // Relative to the page in a browser; any origin in Node (the machine's unit tests).
    const url = new URL(String(input), globalThis.location?.href ?? 'http://localhost/');
    const call: Call = {
      method: init.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    this.calls.push(call);
    const overridden = await this.override?.(call);
    if (overridden) return overridden;

    const route = call.path.replace(/^\/paylink\/checkout\//, '').split('/');
    if (route[0] === 'sessions') {
      const session = this.sessions.get(route[1]!);
      if (!session) return errorResponse(404, 'not_found', 'No such session');
      if (route[2] === 'simulate-payment') {
        const paid = { ...session, ...this.onSimulate(session) };
        this.sessions.set(paid.id, paid);
        return json(paid);
      }
      return json(session);
    }
    if (route[0] === 'orders') {
      const order = this.orders.get(route[1]!);
      if (!order) return errorResponse(404, 'not_found', 'Order not found');
      if (route[2] !== 'sessions') return json(order);
      if (order.state === 'paid') return errorResponse(409, 'order_paid', 'This order is already paid');
      if (order.state === 'closed') return errorResponse(410, 'order_expired', 'This order has expired');
      const id = `ses_${this.sessions.size + 1}`;
      const session = makeSession({
        id,
        slug: null,
        orderId: order.id,
        assetId: call.body!.assetId as 'USDT',
        fiatAmount: order.fiatAmount,
        fiatCurrency: order.fiatCurrency,
        sandbox: order.sandbox,
        ...this.nextSession,
      });
      this.sessions.set(id, session);
      return json(session, 201);
    }
    const link = this.links.get(route[0]!);
    if (!link) return errorResponse(404, 'not_found', 'No such payment link');
    if (route[1] === 'visits') return json({ counted: !call.body?.visitId, visitId: (call.body?.visitId as string) ?? 'visit-0001' });
    if (route[1] === 'donors') return json({ items: this.donors.slice(0, Number(call.query.get('limit') ?? 10)) });
    if (route[1] === 'sessions') {
      const id = `ses_${this.sessions.size + 1}`;
      const session = makeSession({
        id,
        slug: link.slug,
        assetId: call.body!.assetId as 'USDT',
        fiatAmount: (call.body!.fiatAmount as string) ?? link.fiatAmount,
        fiatCurrency: link.fiatCurrency[0]!,
        sandbox: link.sandbox,
        ...this.nextSession,
      });
      this.sessions.set(id, session);
      return json(session, 201);
    }
    return json(link);
  };
}
