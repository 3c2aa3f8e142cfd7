/**
 * `<paylink-admin>`: the frame of the merchant's console. It owns what every tab shares: the client
 * and its credentials, the texts of the locale, the tab bar, the sign-in message, focus moves and
 * the live region. Boundary: it knows its tabs only as `AdminTab`s (`links-tab.ts`, `money-tab.ts`);
 * a tab owns its screens, requests (through `ResourceController`) and styles; validation rules come
 * from `core/` and are not decided here.
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import { createPaylinkClient, type PaylinkClient } from '../../client/index.js';
import type { Order, PaymentLink } from '../../core/schemas.js';
import { PaylinkElement, type PropertyDeclarations, type PropertyValues } from '../../internal/paylink-element.js';
import { tokensText } from '../../internal/tokens.js';
import { AdminText, needsSignIn, type AdminHost, type AdminTab } from './admin-context.js';
import { TRANSLATIONS_EVENT } from './admin-locales.js';
// The order of these imports is the order of the modules in dist/paylink.js, and it weighs: gzip finds
// repeats only within 32 kB. The views that repeat each other's blocks (the links', orders' and
// webhooks' lists, details and forms) sit side by side, and the stylesheet (about 20 kB) comes last,
// not between them. Measure (`npm run build`) before reordering.
import { LinksTab } from './links/links-tab.js';
import { OrdersTab } from './orders/orders-tab.js';
import { WebhooksTab } from './webhooks/webhooks-tab.js';
import { MoneyTab } from './money/money-tab.js';
import { NetworkDirectory } from './networks.js';
import { PaymentsTab } from './payments/payments-tab.js';
import { RatesTab } from './rates/rates-tab.js';
import { downloadCsv, type PaymentsExportDetail } from './payments/payments-export.js';
import { adminStyles } from './paylink-admin.styles.js';

/** The tabs of the console, in the order of the tab bar. */
export const ADMIN_VIEWS = ['links', 'money', 'payments', 'orders', 'webhooks', 'rates'] as const;
/**
 * One tab of the console: `links` (payment links), `money` (balances and withdrawals), `payments` (the
 * checkout sessions of every link and order, with what the customer entered), `orders` (the orders the
 * shop's server created), `webhooks` (endpoints and their deliveries) or `rates` (the exchange rates
 * and what each source says).
 */
export type AdminView = (typeof ADMIN_VIEWS)[number];

/**
 * @summary The merchant's console: payment links (list, create, edit, counts, share, their payments),
 * money (balances, withdrawals and their history), payments (every checkout session with the customer's
 * details, filters, CSV export), orders (those the shop's server created, by status) and webhooks
 * (endpoints, test events, deliveries and retries) and rates (what each price source says, and whether a
 * pair is quoted or why not). Talks only to the proxy's admin routes under `api-base`.
 *
 * Credentials: by default every request carries the merchant's own cookies (`credentials: 'include'`),
 * for a proxy whose `authorize` reads the merchant's session. Or set the `token` property (never an
 * attribute, so it is not in the page's markup) and requests carry `Authorization: Bearer <token>`.
 * A 401 (or a 403 from the proxy's `authorize`) shows a sign-in message (the `sign-in` slot replaces its
 * text) and fires `paylink-auth-required`. A write the proxy refused as cross-site (403
 * `cross_site_request`) shows the proxy's reason where the write was made instead: signing in
 * again would not help, naming the public origin would.
 *
 * @event paylink-auth-required - The proxy refused the credentials (401, or 403 from `authorize`). `detail: { status }`.
 * @event paylink-link-saved - A link was created or edited. `detail: { link, created }`.
 * @event paylink-withdrawal-created - The service accepted a withdrawal. `detail: { id }`.
 * @event paylink-payments-export - A CSV export of the payments is ready. `detail: { fileName, csv, count }`. Cancelable: `preventDefault()` stops the download (to store or send the file yourself).
 *
 * @slot sign-in - What to show when the merchant must sign in (e.g. a link to your login page).
 *
 * @csspart base - The frame around everything.
 * @csspart tabs - The tab list; each tab is `tab` and `tab-links` / `tab-money` / `tab-payments` / `tab-orders` / `tab-webhooks` / `tab-rates`.
 * @csspart panel - Each tab panel (`panel-links`, `panel-money`, `panel-payments`, `panel-orders`, `panel-webhooks`, `panel-rates`).
 * @csspart links-list - The list of links, with `filters`, `search`, `filter-kind`, `filter-active`, `links-table`, `link-row`, `pagination`.
 * @csspart cell-label - A column's label beside each value when a table's rows are stacked (under 600 px).
 * @csspart error - A view's error box (with a `retry` button when trying again can help); `form-error` under a form.
 * @csspart link-form - The create/edit form, with `input`, `field-error`, `cart`, `cart-item`, `cart-total`, `after-payment`, `active-toggle`, `submit`.
 * @csspart link-detail - One link, with `stats`, `chart`, `bar`, `public-url`, `embed-snippet`, `copy-url`, `copy-snippet`, and `link-payments` (`link-payments-table`, `link-payment-row`, `all-link-payments`).
 * @csspart balances - The balance cards (`balance`, `balance-usdt`, `balance-cngn`).
 * @csspart withdraw-form - The withdrawal form, with `address`, `address-status`, `withdraw-amount`, `max`, `review`.
 * @csspart withdraw-confirm - The confirm step, with `confirm-amount`, `confirm-address`, `confirm`.
 * @csspart withdrawal-history - The history, with `filter-status`, `filter-from`, `filter-to`, `withdrawals-table`, `withdrawal-row`.
 * @csspart orders-list - The orders, with `order-filters`, `filter-order-status`, `filter-order-reference`, `orders-table`, `order-row`, `order-status`, `order-payments`, `order-page`, `orders-pagination`.
 * @csspart payments-list - The payments, with `export-csv`, `export-progress`, `payment-filters`, `filter-payment-status`, `filter-link`, `filter-reference`, `filter-payments-from`, `filter-payments-to`, `payments-table`, `payment-row`, `open-payment`.
 * @csspart payment-detail - One payment, with `customer` (`customer-address`, `customer-phone`, `customer-email`), `amounts` (`rate-basis`, `show-rates`), `tags` (`reference`, `metadata`), `transactions` (`transactions-table`, `transaction-row`, `explorer-link`, `tx-hash`).
 * @csspart webhooks-list - The endpoints, with `new-endpoint`, `endpoints-table`, `endpoint-row`, `endpoint-url`, `toggle-endpoint`.
 * @csspart webhook-form - The add/change form, with `wh-url`, `events`, `event-option`, `wh-description`, `submit-endpoint`.
 * @csspart webhook-detail - One endpoint, with `endpoint-secret` (`secret`, `copy-secret`, `secret-saved`), `send-test`, `test-result`, `delete-endpoint`, `delete-confirm` (`confirm-delete`), `deliveries` (`deliveries-table`, `delivery-row`, `retry-delivery`).
 * @csspart rates - The rates, with `rates-table`, `rate-row`, `rate-source`, `rate-status`.
 * @csspart badge - Status badges (`badge-active`, `status-pending`, …).
 * @csspart button - Every button; `primary` marks the main action of a view.
 * @csspart sign-in - The sign-in message.
 * @csspart status - The visually hidden live region.
 *
 * @cssproperty --paylink-accent - Main action and selection colour.
 * @cssproperty --paylink-bg - Background.
 * @cssproperty --paylink-fg - Text colour.
 * @cssproperty --paylink-muted - Secondary text.
 * @cssproperty --paylink-border - Borders.
 * @cssproperty --paylink-surface - Table heads, tab bar, stat tiles.
 * @cssproperty --paylink-danger - Errors.
 * @cssproperty --paylink-success - Success and active states.
 * @cssproperty --paylink-warning - Pending states.
 * @cssproperty --paylink-radius - Corner radius.
 * @cssproperty --paylink-font - Font family.
 * @cssproperty --paylink-space - Base spacing.
 */
export class PaylinkAdmin extends PaylinkElement implements AdminHost {
  static override styles = tokensText + adminStyles;
  // Declared here rather than with Lit's decorators, whose helpers cost dist/paylink.js 0.46 kB gzipped;
  // each property's documentation stays on its field below.
  static override properties: PropertyDeclarations = {
    signedOut: { state: true, attribute: false },
    announcement: { state: true, attribute: false },
    apiBase: { attribute: 'api-base' },
    view: { reflect: true },
    locale: {},
    theme: { reflect: true },
    pollInterval: { attribute: 'poll-interval', type: Number },
    checkoutSrc: { attribute: 'checkout-src' },
    token: { attribute: false },
    fetch: { attribute: false },
    client: { attribute: false },
  };

  private readonly networks = new NetworkDirectory(this);
  private readonly payments = new PaymentsTab(this, this.networks, {
    exported: (file) => {
      if (this.emit('paylink-payments-export', file, true)) downloadCsv(file.csv, file.fileName, this.renderRoot);
    },
  });
  private readonly tabs: Record<AdminView, AdminTab> = {
    links: new LinksTab(this, {
      saved: (link, created) => this.emit('paylink-link-saved', { link, created }),
      checkoutSrc: () => this.checkoutSrc,
      showPayments: (link) => this.showLinkPayments(link),
      networks: this.networks,
    }),
    money: new MoneyTab(this, { withdrawalCreated: (id) => this.emit('paylink-withdrawal-created', { id }) }),
    orders: new OrdersTab(this, {
      showPayments: (order) => this.showOrderPayments(order),
      showRefunds: (order) => {
        this.payments.showRefunds({ orderId: order.id });
        this.view = 'payments';
      },
    }),
    payments: this.payments,
    webhooks: new WebhooksTab(this),
    rates: new RatesTab(this),
  };

  private signedOut = false;
  private announcement = '';

  /** Where the merchant's proxy is mounted; requests go to `${apiBase}/admin/…`. */
  apiBase = '/paylink';

  /** The area shown: `links` (default), `money`, `payments`, `orders`, `webhooks` or `rates`. Reflected, so it can be set in markup. */
  view: AdminView = 'links';

  /** Language of texts and `Intl` formats (`en`, `fr`, `fr-CA`, …). Defaults to the page's `lang`, then the browser's. */
  locale = '';

  /** `light` or `dark` forces a scheme; unset follows `prefers-color-scheme`. */
  theme: 'light' | 'dark' | undefined;

  /** Milliseconds between two refreshes of pending withdrawals; pending balances refresh three times as slowly. */
  pollInterval = 4000;

  /** The checkout script the embed snippet loads; defaults to `/dist/paylink-checkout.js` on the links' own origin. */
  checkoutSrc: string | undefined;

  /**
   * A bearer token for the proxy's admin routes (`Authorization: Bearer …`). A property only: an
   * attribute would put the secret in the page's markup. When unset, the merchant's cookies are sent.
   */
  token: string | undefined;

  /** The fetch to use (defaults to the global one). Tests and apps that wrap fetch set it. */
  fetch: typeof fetch | undefined;

  /** A ready client to use instead of one built from `apiBase`, `token` and `fetch`. */
  client: PaylinkClient | undefined;

  private builtClient: { client: PaylinkClient; key: readonly unknown[] } | undefined;
  private currentText: { requested: string; text: AdminText } | undefined;
  private loaded = new Set<AdminView>();
  private pendingFocus: { selector: string; tries: number } | undefined;

  /** The client the admin uses: `client`, or one for `${apiBase}/admin` with the element's credentials. */
  get api(): PaylinkClient {
    if (this.client) return this.client;
    const key = [this.apiBase, this.token, this.fetch] as const;
    if (!this.builtClient || this.builtClient.key.some((value, index) => value !== key[index])) {
      const root = `${(this.apiBase || '/paylink').replace(/\/+$/, '')}/admin`;
      const client = createPaylinkClient({
        baseUrl: root,
        token: this.token || undefined,
        fetch: this.fetch,
        // The merchant's session cookie authorizes the proxy unless a token does.
        credentials: this.token ? 'same-origin' : 'include',
      });
      this.builtClient = { client, key };
    }
    return this.builtClient.client;
  }

  /** Texts and formats for the current locale. */
  get text(): AdminText {
    const locale = this.locale || this.closest<HTMLElement>('[lang]')?.lang || '';
    if (!this.currentText || this.currentText.requested !== locale) this.currentText = { requested: locale, text: new AdminText(locale || undefined) };
    return this.currentText.text;
  }

  /** Reloads what is on screen (e.g. after the merchant signed in again in another tab). */
  async refresh(): Promise<void> {
    this.signedOut = false;
    const views = new Set<AdminView>([...this.loaded, this.view]);
    this.loaded.clear();
    await Promise.all([...views].map((view) => this.loadView(view)));
  }

  announce(message: string): void {
    // The same text twice would not be re-announced; a trailing no-break space makes it new.
    this.announcement = message === this.announcement.trimEnd() ? `${message}\u00a0` : message;
  }

  handleAuthError(error: unknown): boolean {
    if (!needsSignIn(error)) return false;
    if (!this.signedOut) {
      this.signedOut = true;
      for (const view of ADMIN_VIEWS) this.tabs[view].shown?.(false);
      this.emit('paylink-auth-required', { status: error.status });
      this.focusAfterRender('#sign-in-heading');
    }
    return true;
  }

  focusAfterRender(selector: string): void {
    this.pendingFocus = { selector, tries: 3 };
    this.requestUpdate();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    globalThis.addEventListener(TRANSLATIONS_EVENT, this.translationsArrived);
    // Back on the page: show fresh data rather than what was there when it left.
    if (this.hasUpdated) void this.refresh();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    globalThis.removeEventListener(TRANSLATIONS_EVENT, this.translationsArrived);
  }

  /** A locale script (`dist/paylink-admin.fr.js`) registered a table: the texts are built again from it. */
  private readonly translationsArrived = (): void => {
    this.currentText = undefined;
    this.requestUpdate();
  };

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('view') && !ADMIN_VIEWS.includes(this.view)) this.view = 'links';
  }

  protected override updated(changed: PropertyValues): void {
    const credentialsChanged = ['apiBase', 'token', 'fetch', 'client'].some((name) => changed.has(name as keyof PaylinkAdmin));
    // Loading changes state; it starts after this update so as not to schedule one from inside it.
    if (credentialsChanged && this.loaded.size) {
      queueMicrotask(() => void this.refresh());
    } else {
      const previous = changed.get('view') as AdminView | undefined;
      if (previous !== undefined && previous !== this.view) {
        // A tab seen before is refreshed quietly; one shown for the first time loads below.
        const seen = this.loaded.has(this.view);
        const current = this.tabs[this.view];
        queueMicrotask(() => {
          this.tabs[previous]?.shown?.(false);
          if (seen) current.shown?.(true);
        });
      }
      if (!this.signedOut && !this.loaded.has(this.view)) {
        const view = this.view;
        this.loaded.add(view);
        queueMicrotask(() => void this.loadView(view));
      }
    }
    this.applyPendingFocus();
  }

  private applyPendingFocus(): void {
    const pending = this.pendingFocus;
    if (!pending) return;
    const target = this.renderRoot.querySelector<HTMLElement>(pending.selector);
    if (target) {
      this.pendingFocus = undefined;
      target.focus();
    } else if (--pending.tries <= 0) {
      this.pendingFocus = undefined;
    }
  }

  private async loadView(view: AdminView): Promise<void> {
    this.loaded.add(view);
    await this.tabs[view].load();
  }

  showRates(): void {
    this.selectView('rates');
    this.focusAfterRender('#rates-heading');
  }

  /** Opens the payments tab on `order`'s payments (from the orders list): those of its reference. */
  private showOrderPayments(order: Order): void {
    this.payments.showReference(order.reference);
    if (this.loaded.has('payments')) void this.payments.load();
    this.view = 'payments';
    this.focusAfterRender('#payments-heading');
  }

  /** Opens the payments tab on `link`'s payments (from the link's detail). */
  private showLinkPayments(link: PaymentLink): void {
    this.payments.showLink(link);
    // A tab loaded before is loaded again here; one shown for the first time loads as it appears.
    if (this.loaded.has('payments')) void this.payments.load();
    this.view = 'payments';
    this.focusAfterRender('#payments-heading');
  }

  private selectView(view: AdminView, focusTab = false): void {
    this.view = view;
    if (focusTab) this.focusAfterRender(`#tab-${view}`);
  }

  private handleTabKeydown(event: KeyboardEvent): void {
    const order = ADMIN_VIEWS;
    const index = order.indexOf(this.view);
    const next =
      event.key === 'ArrowRight'
        ? order[(index + 1) % order.length]
        : event.key === 'ArrowLeft'
          ? order[(index - 1 + order.length) % order.length]
          : event.key === 'Home'
            ? order[0]
            : event.key === 'End'
              ? order[order.length - 1]
              : undefined;
    if (!next) return;
    event.preventDefault();
    this.selectView(next, true);
  }

  private renderTab(view: AdminView): TemplateResult {
    const selected = this.view === view;
    const { label, shortLabel } = this.tabs[view];
    const t = this.text.t.bind(this.text);
    // The short label is generated content with empty alternative text: the tab's name stays the long label.
    return html`<button
      type="button"
      role="tab"
      id="tab-${view}"
      part="tab tab-${view}"
      aria-selected=${selected ? 'true' : 'false'}
      aria-controls="panel-${view}"
      tabindex=${selected ? '0' : '-1'}
      data-short=${shortLabel ? t(shortLabel) : nothing}
      @click=${() => this.selectView(view)}
    ><span class="tab-label">${t(label)}</span></button>`;
  }

  private renderSignIn(): TemplateResult {
    const t = this.text.t.bind(this.text);
    return html`<div part="sign-in" class="sign-in card" role="alert" aria-labelledby="sign-in-heading">
      <h2 id="sign-in-heading" tabindex="-1">${t('signInTitle')}</h2>
      <slot name="sign-in"><p>${t('signInBody')}</p></slot>
      <button type="button" part="button primary retry" class="primary" @click=${() => this.refresh()}>${t('tryAgain')}</button>
    </div>`;
  }

  protected override render(): TemplateResult {
    const text = this.text;
    const t = text.t.bind(text);
    return html`<div part="base" class="admin" lang=${text.lang}>
      <div part="status" class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">${this.announcement}</div>
      ${
        this.signedOut
          ? this.renderSignIn()
          : html`<div role="tablist" part="tabs" aria-label=${t('consoleLabel')} @keydown=${this.handleTabKeydown}>
              ${ADMIN_VIEWS.map((view) => this.renderTab(view))}
            </div>
            ${ADMIN_VIEWS.map(
              (view) => html`<div role="tabpanel" id="panel-${view}" part="panel panel-${view}" aria-labelledby="tab-${view}" ?hidden=${this.view !== view}>
                ${this.view === view || this.loaded.has(view) ? this.tabs[view].render() : nothing}
              </div>`,
            )}`
      }
    </div>`;
  }
}

// No registry (a server): no element.
globalThis.customElements?.define('paylink-admin', PaylinkAdmin);

declare global {
  interface HTMLElementTagNameMap {
    'paylink-admin': PaylinkAdmin;
  }
  interface GlobalEventHandlersEventMap {
    'paylink-auth-required': CustomEvent<{ status: number }>;
    'paylink-link-saved': CustomEvent<{ link: PaymentLink; created: boolean }>;
    'paylink-withdrawal-created': CustomEvent<{ id: string }>;
    'paylink-payments-export': CustomEvent<PaymentsExportDetail>;
  }
}
