/**
 * An in-memory stand-in for the proxy's admin routes (`/paylink/admin/*`), injected into
 * `<paylink-admin>` as its `fetch`. It answers like the service (shapes from `core/schemas.ts`),
 * records every request, and lets a test answer one route its own way (`intercept`).
 */
import type { PaymentLink, Withdrawal } from '../../src/core/schemas.js';

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
    failureReason: null,
    createdAt: new Date(Date.UTC(2025, 4, 1, 12) - n * 3_600_000).toISOString(),
    updatedAt: new Date(Date.UTC(2025, 4, 1, 12) - n * 3_600_000).toISOString(),
    ...overrides,
  };
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
    { assetId: 'USDT', available: '125.500000', pending: '4.000000' },
    { assetId: 'CNGN', available: '0.000000', pending: '0.000000' },
  ];
  readonly requests: RecordedRequest[] = [];
  private interceptors: Interceptor[] = [];

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
          ? { closesAt: body.closesAt, minAmount: body.minAmount, maxAmount: body.maxAmount, suggestedAmounts: body.suggestedAmounts }
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
    return errorResponse(404, 'not_found', `No route ${method} ${path}`);
  }
}
