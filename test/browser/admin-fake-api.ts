/**
 * An in-memory stand-in for the proxy's admin routes (`/paylink/admin/*`), injected into
 * `<paylink-admin>` as its `fetch`. It answers like the service (shapes from `core/schemas.ts`),
 * records every request, and lets a test answer one route its own way (`intercept`).
 *
 * The payments and webhooks routes follow the service's contract (`core/schemas.ts`,
 * `client/sessions.ts`, `client/webhooks.ts`): sessions filtered by link, status, exact reference
 * and an inclusive creation range, newest first; endpoints whose secret only `POST` returns; test
 * events and retries that make one attempt against `endpointAnswer` and answer the delivery after it.
 */
import { checkWebhookEndpoint, WEBHOOK_EVENT_TYPES } from '../../src/core/rules/webhooks.js';
import type {
  CheckoutSessionRecord,
  Order,
  PaymentLink,
  RatesView,
  Refund,
  WebhookDelivery,
  WebhookEndpoint,
  Withdrawal,
  WithdrawalNetwork,
} from '../../src/core/schemas.js';

export interface RecordedRequest {
  method: string;
  url: URL;
  path: string;
  headers: Record<string, string>;
  credentials: RequestCredentials | undefined;
  body: any;
}

type Interceptor = (request: RecordedRequest) => Response | undefined | Promise<Response | undefined>;

let linkCounter = 0;

/** A link as the service returns it, with `overrides` applied. */
export function makeLink(overrides: Partial<PaymentLink> = {}): PaymentLink {
  const n = ++linkCounter;
  const slug = overrides.slug ?? `Slug${String(n).padStart(6, '0')}`;
  // Where it stands, as the service says by its own clock (unless the test says it).
  const closed = overrides.linkType === 'Donation' && overrides.closesAt && Date.parse(overrides.closesAt) <= Date.now();
  return {
    id: `lnk_${n}`,
    slug,
    url: `https://pay.example.com/pay/${slug}`,
    title: `Link ${n}`,
    description: '',
    linkType: 'Standard',
    userId: 'usr_1',
    integratorId: 'int_1',
    fiatAmount: '5000.00',
    fiatCurrency: ['NGN'],
    prepayOptions: { collectAddress: false, collectPhone: false },
    postpayAction: { redirect: false, showConfirmationPage: false, successMessage: '', redirectUrl: '' },
    cart: { items: [] },
    isActive: true,
    state: overrides.isActive === false ? 'inactive' : closed ? 'closed' : 'open',
    visitedCount: 0,
    paymentCount: 0,
    createdAt: new Date(Date.UTC(2025, 0, 1) + n * 60_000).toISOString(),
    updatedAt: new Date(Date.UTC(2025, 0, 1) + n * 60_000).toISOString(),
    deletedAt: null,
    __type: 'PaymentLink',
    ...overrides,
  };
}

let withdrawalCounter = 0;

export function makeWithdrawal(overrides: Partial<Withdrawal> = {}): Withdrawal {
  const n = ++withdrawalCounter;
  return {
    id: `wd_${n}`,
    amount: '10.000000',
    assetId: 'USDT',
    blockchainId: 'bsc',
    address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    status: 'success',
    txHash: `0x${'ab'.repeat(32)}`,
    stalledReason: null,
    failureReason: null,
    receivedAmount: null,
    createdAt: new Date(Date.UTC(2025, 4, 1, 12) - n * 3_600_000).toISOString(),
    updatedAt: new Date(Date.UTC(2025, 4, 1, 12) - n * 3_600_000).toISOString(),
    ...overrides,
  };
}

let sessionCounter = 0;

/** A uuid-shaped id, distinct per call (`kind` keeps the kinds apart when reading a failure). */
function fakeUuid(kind: number, n: number): string {
  return `${String(kind).padStart(8, '0')}-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

/** A checkout session as the keyed read returns it, with `overrides` applied. */
export function makeSession(overrides: Partial<CheckoutSessionRecord> = {}): CheckoutSessionRecord {
  const n = ++sessionCounter;
  const createdAt = new Date(Date.UTC(2025, 2, 1, 12) + n * 3_600_000).toISOString();
  return {
    id: fakeUuid(1, n),
    linkId: 'lnk_1',
    orderId: null,
    slug: 'Slug000001',
    linkTitle: 'Coffee beans 1',
    status: 'paid',
    fiatAmount: '5000.00',
    fiatCurrency: 'NGN',
    assetId: 'USDT',
    blockchainId: 'bsc',
    networkName: 'BNB Smart Chain',
    cryptoAmount: '3.250000',
    rate: '0.00065',
    rateSource: 'coingecko+coinbase',
    rateAt: createdAt,
    rateBasis: [
      {
        pair: 'USD/NGN',
        perUsd: '1538.5',
        quorum: 2,
        sources: [
          { source: 'coingecko', perUsd: '1537.5', at: createdAt, used: true },
          { source: 'coinbase', perUsd: '1539.5', at: createdAt, used: true },
          { source: 'exchangerate', perUsd: '1490', at: createdAt, used: false },
        ],
      },
    ],
    paidAmount: '3.250000',
    lateAmount: '0.000000',
    reversedAmount: '0.000000',
    payAddress: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
    paidBlockchainId: 'bsc',
    transfers: [{ txHash: `0x${n.toString(16).padStart(2, '0').repeat(32)}`, blockchainId: 'bsc', amount: '3.250000', confirmedAt: createdAt, late: false }],
    reference: `order-${1000 + n}`,
    metadata: {},
    clientReference: null,
    customer: { address: null, phone: null, email: null },
    donorName: null,
    message: null,
    showPublicly: false,
    donorHiddenAt: null,
    createdAt,
    paidAt: createdAt,
    finalizedAt: null,
    expiresAt: new Date(Date.parse(createdAt) + 30 * 60_000).toISOString(),
    refundedAmount: '0.000000',
    resolution: null,
    resolvedAt: null,
    resolutionReason: null,
    ...overrides,
  };
}

let orderCounter = 0;

/** An order as the keyed read returns it (open, created an hour apart), with `overrides` applied. */
export function makeOrder(overrides: Partial<Order> = {}): Order {
  const n = ++orderCounter;
  const createdAt = new Date(Date.UTC(2025, 5, 1, 9) + n * 3_600_000).toISOString();
  const id = fakeUuid(4, n);
  return {
    id,
    status: 'open',
    url: `https://pay.example.com/pay/order/${id}`,
    reference: `order-${2000 + n}`,
    title: `Order ${2000 + n}`,
    description: '',
    fiatAmount: '149.00',
    fiatCurrency: 'USD',
    cart: { items: [] },
    metadata: {},
    prepayOptions: { collectAddress: false, collectPhone: false },
    postpayAction: { redirect: false, showConfirmationPage: true, successMessage: '', redirectUrl: '' },
    paidSessionId: null,
    paidAt: null,
    cancelledAt: null,
    expiresAt: new Date(Date.parse(createdAt) + 24 * 3_600_000).toISOString(),
    createdAt,
    updatedAt: createdAt,
    refundedAmount: '0.000000',
    resolution: null,
    ...overrides,
  };
}

let endpointCounter = 0;

/** A webhook endpoint as the service lists it (no secret), with `overrides` applied. */
export function makeEndpoint(overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  const n = ++endpointCounter;
  const at = new Date(Date.UTC(2025, 3, 1) + n * 60_000).toISOString();
  return {
    id: fakeUuid(2, n),
    url: `https://shop.example/hooks/${n}`,
    description: '',
    events: [...WEBHOOK_EVENT_TYPES],
    isActive: true,
    previousSecretExpiresAt: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

let deliveryCounter = 0;

/** A delivery of an event to `endpointId`, delivered at its first attempt unless `overrides` say otherwise. */
export function makeDelivery(endpointId: string, overrides: Partial<WebhookDelivery> = {}): WebhookDelivery {
  const n = ++deliveryCounter;
  const at = new Date(Date.UTC(2025, 3, 2) + n * 60_000).toISOString();
  return {
    id: fakeUuid(3, n),
    endpointId,
    eventId: `evt_${String(n).padStart(16, '0')}`,
    eventType: 'checkout.session.paid',
    status: 'delivered',
    attemptCount: 1,
    attempts: [{ at, statusCode: 200, error: null, durationMs: 42 }],
    nextAttemptAt: null,
    deliveredAt: at,
    createdAt: at,
    ...overrides,
  };
}

/** The instant an ISO date (a whole UTC day) or time filter starts or ends at; NaN when unreadable. */
function boundOf(value: string, end: boolean): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return Date.parse(`${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z`);
  return Date.parse(value);
}

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

export function errorResponse(statusCode: number, code: string, message: string, errors?: { path: string; message: string }[]): Response {
  return json(statusCode, { status: 'error', statusCode, code, message, ...(errors ? { errors } : {}) });
}

function page<T>(all: T[], url: URL) {
  const pageNumber = Number(url.searchParams.get('page') ?? 1);
  const limit = Number(url.searchParams.get('limit') ?? 20);
  const items = all.slice((pageNumber - 1) * limit, pageNumber * limit);
  return {
    items,
    meta: {
      totalItems: all.length,
      itemCount: items.length,
      itemsPerPage: limit,
      totalPages: Math.ceil(all.length / limit),
      currentPage: pageNumber,
    },
  };
}

export class FakeAdminApi {
  links: PaymentLink[] = [];
  withdrawals: Withdrawal[] = [];
  balance = [
    { assetId: 'USDT', blockchainId: 'bsc', available: '125.500000', pending: '4.000000' },
    { assetId: 'CNGN', blockchainId: 'bsc', available: '0.000000', pending: '0.000000' },
  ];
  /** The merchant's checkout sessions, in any order (the list answers newest first). */
  sessions: CheckoutSessionRecord[] = [];
  /** The orders the shop's server created, in any order (the list answers newest first). */
  orders: Order[] = [];
  /** Refunds made, newest first. */
  refunds: Refund[] = [];
  /** `GET /withdrawal/networks`: a real chain's network has an explorer; the sandbox's (`explorerUrl: null`) has none. */
  networks: WithdrawalNetwork[] = [
    { id: 'bsc', name: 'BNB Smart Chain (BEP-20)', aliases: ['bep20'], assets: ['USDT', 'CNGN'], chainId: 56, explorerUrl: 'https://bscscan.com', alerts: [] },
  ];
  /** `GET /rates`: the book as the service would show it (`at` set when the test runs: ages are a few seconds). */
  rates: RatesView = {
    quorum: 2,
    maxSpread: '0.02',
    markets: [
      {
        pair: 'USDT/USD',
        perUsd: '0.99985',
        reason: null,
        message: null,
        spread: '0.0002',
        sources: [
          { source: 'coingecko', perUsd: '0.9998', at: new Date(Date.now() - 12_000).toISOString(), status: 'agrees', problem: null },
          { source: 'coinbase', perUsd: '0.9999', at: new Date(Date.now() - 12_000).toISOString(), status: 'agrees', problem: null },
          { source: 'kraken', perUsd: '0.111111', at: new Date(Date.now() - 12_000).toISOString(), status: 'outlier', problem: null },
        ],
      },
      {
        pair: 'USD/NGN',
        perUsd: null,
        reason: 'held',
        message:
          'USD/NGN moved 50% from its last quoted rate and is held since 2025-06-01T12:00:00.000Z: it is quoted again once the move has lasted 900 s, or when an operator runs "paylink rates accept USD/NGN"',
        spread: '0.0012',
        sources: [
          { source: 'coingecko', perUsd: '2400', at: new Date(Date.now() - 40_000).toISOString(), status: 'agrees', problem: null },
          { source: 'coinbase', perUsd: '2402.9', at: new Date(Date.now() - 40_000).toISOString(), status: 'agrees', problem: null },
          { source: 'exchangerate', perUsd: null, at: null, status: 'failed', problem: 'redirect' },
        ],
      },
    ],
  };
  /** Webhook endpoints with their secrets (which only `POST` answers with). */
  endpoints: (WebhookEndpoint & { secret: string })[] = [];
  deliveries: WebhookDelivery[] = [];
  /** How the merchant's endpoint answers a test event or a retry: an HTTP status, or null for no answer. */
  endpointAnswer: { statusCode: number | null; error: string | null } = { statusCode: 200, error: null };
  readonly requests: RecordedRequest[] = [];
  private interceptors: Interceptor[] = [];

  /** Adds an endpoint as if created earlier (its secret unknown to the test). */
  addEndpoint(overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
    const endpoint = makeEndpoint(overrides);
    this.endpoints.unshift({ ...endpoint, secret: `whsec_${'0'.repeat(32)}` });
    return endpoint;
  }

  /** The sessions `GET /checkout-session` selects with the filters of `params` (any paging ignored), newest first. */
  filterSessions(params: URLSearchParams): CheckoutSessionRecord[] {
    const linkId = params.get('linkId');
    const status = params.get('status');
    const reference = params.get('reference');
    const start = params.get('startDate');
    const end = params.get('endDate');
    return this.sessions
      .filter((s) => !linkId || s.linkId === linkId)
      .filter((s) => !status || s.status === status)
      .filter((s) => reference === null || s.reference === reference)
      .filter((s) => !start || Date.parse(s.createdAt) >= boundOf(start, false))
      .filter((s) => !end || Date.parse(s.createdAt) <= boundOf(end, true))
      .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  }

  /** One attempt at `delivery` against `endpointAnswer`, as the worker would make it. */
  private attempt(delivery: WebhookDelivery): WebhookDelivery {
    const at = new Date().toISOString();
    const { statusCode, error } = this.endpointAnswer;
    const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const attempts = [...delivery.attempts, { at, statusCode, error: ok ? null : (error ?? `HTTP ${statusCode}`), durationMs: 37 }];
    return {
      ...delivery,
      attempts,
      attemptCount: delivery.attemptCount + 1,
      status: ok ? 'delivered' : 'pending',
      deliveredAt: ok ? at : null,
      nextAttemptAt: ok ? null : new Date(Date.now() + 30_000).toISOString(),
    };
  }

  /** The fetch to give the element. */
  readonly fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input), location.href);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const request: RecordedRequest = {
      method: (init.method ?? 'GET').toUpperCase(),
      url,
      path: url.pathname,
      headers,
      credentials: init.credentials,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    this.requests.push(request);
    for (const interceptor of this.interceptors) {
      const response = await interceptor(request);
      if (response) return response;
    }
    return this.route(request);
  };

  /** Answers matching requests with `handler` (return undefined to fall through). */
  intercept(handler: Interceptor): void {
    this.interceptors.unshift(handler);
  }

  /** Requests to `path` (under `/paylink/admin`) with `method`. */
  calls(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === `/paylink/admin${path}`);
  }

  private route(request: RecordedRequest): Response {
    const { method, url } = request;
    const path = url.pathname.replace(/^\/paylink\/admin/, '');
    if (path === '/payment-link' && method === 'GET') {
      let links = this.links;
      const kind = url.searchParams.get('linkType');
      const active = url.searchParams.get('isActive');
      const q = url.searchParams.get('q')?.toLowerCase();
      if (kind) links = links.filter((l) => l.linkType === kind);
      if (active) links = links.filter((l) => String(l.isActive) === active);
      if (q) links = links.filter((l) => `${l.title} ${l.description}`.toLowerCase().includes(q));
      return json(200, page(links, url));
    }
    if (path === '/payment-link' && method === 'POST') {
      const body = request.body;
      const items = body.cart?.items ?? [];
      const total = items.length
        ? items.reduce((sum: number, item: any) => sum + Number(item.unitAmount) * item.quantity, 0).toFixed(2)
        : String(body.fiatAmount ?? '0');
      const link = makeLink({
        title: body.title,
        description: body.description,
        linkType: body.linkType,
        fiatAmount: total,
        fiatCurrency: body.fiatCurrency,
        cart: { items: items.map((item: any) => ({ ...item })) },
        isActive: body.action?.isActive ?? true,
        prepayOptions: { collectAddress: !!body.options?.collectAddress, collectPhone: !!body.options?.collectPhone },
        postpayAction: {
          redirect: !!body.action?.redirect,
          showConfirmationPage: !!body.action?.showConfirmationPage,
          successMessage: body.action?.successMessage ?? '',
          redirectUrl: body.action?.redirectUrl ?? '',
        },
        ...(body.linkType === 'Donation'
          ? {
              closesAt: body.closesAt,
              minAmount: body.minAmount,
              maxAmount: body.maxAmount,
              suggestedAmounts: body.suggestedAmounts,
              goalAmount: body.goalAmount ?? null,
              raised: '0.00',
              donorCount: 0,
            }
          : {}),
      });
      this.links.unshift(link);
      return json(201, link);
    }
    if (path === '/payment-link' && method === 'PATCH') {
      const index = this.links.findIndex((l) => l.id === request.body.id);
      if (index < 0) return errorResponse(404, 'not_found', 'No such payment link');
      const old = this.links[index]!;
      const body = request.body;
      const updated: PaymentLink = {
        ...old,
        ...(body.title !== undefined ? { title: body.title } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.fiatAmount !== undefined ? { fiatAmount: String(body.fiatAmount) } : {}),
        ...(body.isActive !== undefined ? { isActive: body.isActive } : {}),
        ...(body.action?.isActive !== undefined ? { isActive: body.action.isActive } : {}),
        ...(body.goalAmount !== undefined ? { goalAmount: body.goalAmount } : {}),
        updatedAt: new Date().toISOString(),
      };
      this.links[index] = updated;
      return json(200, updated);
    }
    const single = /^\/payment-link\/([^/]+)\/single$/.exec(path);
    if (single && method === 'GET') {
      const link = this.links.find((l) => l.id === decodeURIComponent(single[1]!));
      return link ? json(200, link) : errorResponse(404, 'not_found', 'No such payment link');
    }
    if (path === '/withdrawal' && method === 'GET') {
      let list = this.withdrawals;
      const status = url.searchParams.get('status');
      if (status) list = list.filter((w) => w.status === status);
      return json(200, page(list, url));
    }
    if (path === '/withdrawal' && method === 'POST') {
      const created = makeWithdrawal({ ...request.body, amount: String(request.body.amount), status: 'pending', txHash: null });
      this.withdrawals.unshift(created);
      return json(200, { message: 'Withdrawal created', status: 'success', statusCode: 200, id: created.id });
    }
    if (path === '/balance' && method === 'GET') return json(200, { items: this.balance });
    if (path === '/rates' && method === 'GET') return json(200, this.rates);
    if (path === '/withdrawal/networks' && method === 'GET') return json(200, { items: this.networks });
    if (path === '/checkout-session' && method === 'GET') return json(200, page(this.filterSessions(url.searchParams), url));
    if (path === '/order' && method === 'GET') {
      const status = url.searchParams.get('status');
      const reference = url.searchParams.get('reference');
      const orders = this.orders
        .filter((order) => !status || order.status === status)
        .filter((order) => reference === null || order.reference === reference)
        .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
      return json(200, page(orders, url));
    }
    const hide = /^\/checkout-session\/([^/]+)\/hide-donor$/.exec(path);
    if (hide && method === 'POST') {
      const index = this.sessions.findIndex((s) => s.id === decodeURIComponent(hide[1]!));
      if (index < 0) return errorResponse(404, 'not_found', 'Checkout session not found');
      this.sessions[index] = { ...this.sessions[index]!, donorHiddenAt: this.sessions[index]!.donorHiddenAt ?? new Date().toISOString() };
      return json(200, this.sessions[index]);
    }
    const refunded = this.refundRoute(request, path);
    if (refunded) return refunded;
    const session = /^\/checkout-session\/([^/]+)$/.exec(path);
    if (session && method === 'GET') {
      const found = this.sessions.find((s) => s.id === decodeURIComponent(session[1]!));
      return found ? json(200, found) : errorResponse(404, 'not_found', 'Checkout session not found');
    }
    return this.webhookRoute(request, path);
  }

  /**
   * The refund routes, as the service answers them: a refund of all that is left by default, to an
   * address (`pending`) or awaiting one with a claim link; cancel while it awaits; resolve an underpaid
   * or late session. The session's `refundedAmount` follows.
   */
  private refundRoute(request: RecordedRequest, path: string): Response | undefined {
    const { method, url, body } = request;
    if (path === '/refund' && method === 'GET') {
      const [status, sessionId, orderId] = ['status', 'sessionId', 'orderId'].map((name) => url.searchParams.get(name));
      return json(
        200,
        page(
          this.refunds.filter((r) => (!status || r.status === status) && (!sessionId || r.sessionId === sessionId) && (!orderId || r.orderId === orderId)),
          url,
        ),
      );
    }
    if (path === '/refund' && method === 'POST') {
      const session = this.sessions.find((s) => s.id === body.sessionId);
      if (!session) return errorResponse(404, 'not_found', 'Checkout session not found');
      const left = (Number(session.paidAmount) + Number(session.lateAmount) - Number(session.refundedAmount)).toFixed(6);
      const amount = body.amount === undefined ? left : Number(body.amount).toFixed(6);
      if (Number(amount) > Number(left)) return errorResponse(422, 'refund_exceeds_payment', `At most ${left} USDT of this payment can still be refunded`);
      const id = `${String(this.refunds.length + 1).padStart(8, '0')}-0000-4000-8000-00000000abcd`;
      const at = new Date().toISOString();
      const refund: Refund = {
        id,
        sessionId: session.id,
        orderId: session.orderId,
        assetId: session.assetId,
        blockchainId: session.blockchainId,
        amount,
        address: body.address ?? null,
        status: body.address ? 'pending' : 'awaiting_address',
        claimUrl: body.address ? null : `https://pay.example.com/pay/refund/${id}#TOKEN-${id}`,
        txHash: null,
        failureReason: null,
        stalledReason: null,
        reason: null,
        createdAt: at,
        updatedAt: at,
      };
      this.refunds.unshift(refund);
      session.refundedAmount = (Number(session.refundedAmount) + Number(amount)).toFixed(6);
      return json(201, refund);
    }
    const cancel = /^\/refund\/([^/]+)\/cancel$/.exec(path);
    if (cancel && method === 'POST') {
      const refund = this.refunds.find((r) => r.id === cancel[1]);
      if (!refund) return errorResponse(404, 'not_found', 'Refund not found');
      if (refund.status !== 'awaiting_address')
        return errorResponse(409, 'refund_not_cancellable', 'Only a refund awaiting the customer’s address can be cancelled');
      Object.assign(refund, { status: 'cancelled', claimUrl: null });
      const session = this.sessions.find((s) => s.id === refund.sessionId)!;
      session.refundedAmount = (Number(session.refundedAmount) - Number(refund.amount)).toFixed(6);
      return json(200, refund);
    }
    const resolve = /^\/checkout-session\/([^/]+)\/resolve$/.exec(path);
    if (resolve && method === 'POST') {
      const session = this.sessions.find((s) => s.id === resolve[1]);
      if (!session) return errorResponse(404, 'not_found', 'Checkout session not found');
      Object.assign(session, { resolution: 'merchant', resolvedAt: new Date().toISOString(), status: 'expired' });
      return json(200, session);
    }
    return undefined;
  }

  private webhookRoute(request: RecordedRequest, path: string): Response {
    const { method, url } = request;
    const withoutSecret = ({ secret: _, ...endpoint }: WebhookEndpoint & { secret: string }): WebhookEndpoint => endpoint;
    const findEndpoint = (id: string) => this.endpoints.find((e) => e.id === decodeURIComponent(id));
    const refused = (errors: { path: string; key: string }[]) =>
      errorResponse(
        400,
        'validation_error',
        'Invalid webhook endpoint',
        errors.map((e) => ({ path: e.path, message: `${e.path}: ${e.key}` })),
      );
    if (path === '/webhook-endpoint' && method === 'POST') {
      const check = checkWebhookEndpoint(request.body, { allowHttp: true, requireUrl: true });
      if (check.errors.length) return refused(check.errors);
      const endpoint = makeEndpoint({
        url: check.fields.url!,
        events: check.fields.events ?? [...WEBHOOK_EVENT_TYPES],
        description: check.fields.description ?? '',
      });
      const secret = `whsec_${Array.from(crypto.getRandomValues(new Uint8Array(24)), (b) => b.toString(16).padStart(2, '0')).join('')}`;
      this.endpoints.unshift({ ...endpoint, secret });
      return json(201, { ...endpoint, secret });
    }
    if (path === '/webhook-endpoint' && method === 'GET') return json(200, page(this.endpoints.map(withoutSecret), url));
    if (path === '/webhook-endpoint' && method === 'PATCH') {
      const index = this.endpoints.findIndex((e) => e.id === request.body.id);
      if (index < 0) return errorResponse(404, 'not_found', 'Webhook endpoint not found');
      const check = checkWebhookEndpoint(request.body, { allowHttp: true, requireUrl: false });
      if (check.errors.length) return refused(check.errors);
      const old = this.endpoints[index]!;
      const isActive = typeof request.body.isActive === 'boolean' ? request.body.isActive : old.isActive;
      this.endpoints[index] = { ...old, ...check.fields, isActive, updatedAt: new Date().toISOString() };
      return json(200, withoutSecret(this.endpoints[index]!));
    }
    const one = /^\/webhook-endpoint\/([^/]+)(\/deliveries|\/test|\/roll-secret)?$/.exec(path);
    if (one) {
      const endpoint = findEndpoint(one[1]!);
      if (!endpoint) return errorResponse(404, 'not_found', 'Webhook endpoint not found');
      if (one[2] === '/roll-secret' && method === 'POST') {
        const hours = typeof request.body?.expiresInHours === 'number' ? request.body.expiresInHours : 24;
        endpoint.secret = `whsec_rolled${Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')}`;
        endpoint.previousSecretExpiresAt = hours ? new Date(Date.now() + hours * 3_600_000).toISOString() : null;
        return json(200, { ...endpoint });
      }
      if (!one[2] && method === 'GET') return json(200, withoutSecret(endpoint));
      if (!one[2] && method === 'DELETE') {
        this.endpoints = this.endpoints.filter((e) => e !== endpoint);
        this.deliveries = this.deliveries.filter((d) => d.endpointId !== endpoint.id);
        return json(200, { id: endpoint.id, deleted: true });
      }
      if (one[2] === '/deliveries' && method === 'GET') {
        const status = url.searchParams.get('status');
        const log = this.deliveries
          .filter((d) => d.endpointId === endpoint.id && (!status || d.status === status))
          .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
        return json(200, page(log, url));
      }
      if (one[2] === '/test' && method === 'POST') {
        const now = new Date().toISOString();
        const fresh = makeDelivery(endpoint.id, {
          eventType: 'webhook.test',
          status: 'pending',
          attemptCount: 0,
          attempts: [],
          deliveredAt: null,
          createdAt: now,
        });
        const tried = this.attempt(fresh);
        // As the service: a test event is not retried on its own, so a failed one is `failed` with no next attempt.
        const sent: WebhookDelivery = tried.status === 'delivered' ? tried : { ...tried, status: 'failed', nextAttemptAt: null };
        this.deliveries.unshift(sent);
        return json(200, sent);
      }
    }
    const retry = /^\/webhook-delivery\/([^/]+)\/retry$/.exec(path);
    if (retry && method === 'POST') {
      const index = this.deliveries.findIndex((d) => d.id === decodeURIComponent(retry[1]!));
      if (index < 0) return errorResponse(404, 'not_found', 'Webhook delivery not found');
      this.deliveries[index] = this.attempt(this.deliveries[index]!);
      return json(200, this.deliveries[index]);
    }
    return errorResponse(404, 'not_found', `No route ${method} ${path}`);
  }
}
