/**
 * `<paylink-checkout>`, the element every customer's browser downloads: a plain `HTMLElement` that
 * renders with lit-html's `render()`, on purpose not a Lit `ReactiveElement` or `LitElement`. What it
 * needs of them is property accessors that batch a change into one render per microtask and focus
 * moves after it, a few dozen lines here; the states and transitions live in `CheckoutMachine`
 * (DOM-free). Measured on one tree with `npm run build`, the script-tag bundle is 14,833 B gzip as it
 * is, 16,803 B on `ReactiveElement` (+1,970 B) and 17,233 B on `LitElement` (+2,400 B, its lit-html
 * kept whole), against a budget of 15,000 B. Given up: decorators, controllers, and `updateComplete`
 * meaning more than "the pending render is done".
 */
import { html, render } from 'lit/html.js';
import { discoverWallets, type Eip1193Provider, type Wallet } from '../../internal/evm-wallet.js';
import { Localizer } from '../../internal/localize.js';
import { tokensText } from '../../internal/tokens.js';
import { renderAmountStep } from './amount-step.js';
import { CheckoutMachine } from './checkout-machine.js';
import type { CheckoutView, PaylinkErrorDetail, PaylinkReadyDetail, PaylinkSessionDetail, PaylinkSuccessDetail } from './checkout-types.js';
import { renderDetailsStep } from './details-step.js';
import { renderDoneStep } from './done-step.js';
import { renderPayStep } from './pay-step.js';
import styles from './paylink-checkout.styles.js';
import { renderState } from './states.js';
import en from './translations/en.js';
import fr from './translations/fr.js';

export type { CheckoutView, PaylinkErrorDetail, PaylinkReadyDetail, PaylinkSessionDetail, PaylinkSuccessDetail };

/** Reads, writes (`value`) or removes (`null`) a storage entry; storage may be off (sandboxed frames). */
function stored(area: 'localStorage' | 'sessionStorage', key: string, value?: string | null): string | null {
  try {
    const storage = window[area];
    if (value) storage.setItem(key, value);
    else if (value === null) storage.removeItem(key);
    return storage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * The element's properties: each set re-renders (the attributes map onto all but `metadata` and
 * `fetch`). Listed so that two runs of them are slices (one list is fewer bytes than three): the
 * first five (re)load what is paid; the middle five go to the machine as they are
 * (`CheckoutMachine`'s inputs of the same names).
 */
const PROPERTIES = ['slug', 'order', 'donors', 'apiBase', 'fetch', 'clientReference', 'metadata', 'locale', 'theme'] as const;
const LOADS = PROPERTIES.slice(0, 5);
const MACHINE_INPUTS = PROPERTIES.slice(2, 7) as ('donors' | 'apiBase' | 'fetch' | 'clientReference' | 'metadata')[];

/**
 * The checkout a customer sees on a merchant's page, for a payment link (`slug`) or an order the
 * shop's server created (`order`): pick or confirm the amount (an order's is shown, never edited), give the details
 * the merchant asks for, choose USDT or cNGN, then pay from a browser wallet (EIP-6963 / EIP-1193)
 * or to the address shown (EIP-681 QR, copy buttons, countdown to the quote's expiry, live status
 * with confirmations), then the merchant's success message, receipt or redirect. On a phone without a
 * browser wallet, "Open in wallet" hands the transfer to the phone's wallet app. A fundraiser (a
 * donation link with a goal) shows its progress live, and with `donors` its latest public donors. A pending payment
 * survives a reload: the session id is kept per slug (or order) in `localStorage`. The states and transitions
 * live in `CheckoutMachine` (DOM-free); this element wires attributes, events and rendering.
 *
 * @tagname paylink-checkout
 * @summary Embeddable checkout for a Paylink payment link or order.
 *
 * @event paylink-ready - The link (or order) loaded. `detail.link` is its public view.
 * @event paylink-session - A session started, resumed, or changed status. `detail.session`.
 * @event paylink-success - The service reported the payment `paid` (or `overpaid`); never fired on a guess.
 *   Cancelable: `preventDefault()` stops the merchant's redirect (to route it yourself).
 * @event paylink-error - An error screen appeared, or the server refused a field. `detail.code`, `detail.message`, `detail.error` (a `PaylinkError`).
 *
 * @csspart card - The frame of the checkout; while loading it reserves its height (`--paylink-min-height`) so the page does not jump.
 * @csspart heading - The heading of each step and state (focused when the customer moves to a new one).
 * @csspart badge - "Test mode", on sandbox links.
 * @csspart state - An unhappy or final screen; also carries its name: `loading`, `notFound`, `inactive`, `closed`, `error`, `rates` (no current exchange rate), `expired`, `done` (paid; also an order opened again once paid).
 * @csspart spinner - The busy indicator (still when the reader prefers reduced motion).
 * @csspart form - A step's form. @csspart description - The link's description. @csspart closes - Until when a fundraiser is open.
 * @csspart cart - The list of cart items. @csspart cart-item - One item. @csspart item-name - Its name and quantity × price.
 * @csspart item-total - Its line total. @csspart total - The total row. @csspart price - The fixed amount of a link without cart.
 * @csspart suggestions - The suggested amounts. @csspart chip - One suggested amount (`aria-pressed` when chosen).
 * @csspart field - A label, control, and hint or error. @csspart label - A field's label. @csspart input - A text field.
 * @csspart hint - A field's hint (e.g. the donation's minimum and maximum). @csspart error - A field's error message (in place of the hint).
 * @csspart button - Every button. @csspart primary - The main actions. @csspart back - The back button.
 * @csspart assets - The asset selector (a select). @csspart asset - One asset (an option), naming its network.
 * @csspart pay-button - The one pay button ("Pay NGN 5,000.00 · USDT"; no amount while the amount is not payable).
 * @csspart pay - The payment screen. @csspart wallet - A "Pay with …" button, one per browser wallet found.
 * @csspart wallet-error - Why paying from the wallet stopped (a notice).
 * @csspart divider - "or scan with your wallet app". @csspart no-wallet - What to do when the browser has no wallet.
 * @csspart qr - The QR code (SVG): the EIP-681 transfer, or the address on the sandbox. @csspart pay-details - Amount and address.
 * @csspart value - The amount or address to copy. @csspart amount - The exact amount to send. @csspart fiat - What it stands for in fiat.
 * @csspart rate - The exchange rate of the quote (`1 USDT = NGN 1,612.40`).
 * @csspart address - The address to pay. @csspart copy-button - The copy buttons ("Copied" once used).
 * @csspart hash - A transaction hash, shortened (the whole hash is its title). @csspart explorer - The link to the transaction on the explorer.
 * @csspart warning - The "only this asset on this network" warning.
 * @csspart waiting - The live status: what the wallet is asked, waiting, sent, confirming n/N.
 * @csspart countdown - How long the price is held. @csspart change-asset - Back to choose another asset (before anything is paid).
 * @csspart simulate - "Simulate payment" (sandbox only). @csspart notice - What an underpaid or expired session received.
 * @csspart success-icon - The drawn check mark when paid. @csspart message - The merchant's success message.
 * @csspart receipt - The payment's details on the confirmation page.
 * @csspart status - The polite live region announcing status changes (visually hidden).
 * @csspart wallet-link - "Open in wallet" (also `button primary`): on a touch device without a browser wallet, the EIP-681 transfer the QR code encodes.
 * @csspart paid-on - "Paid on …", when the payment came on another offered network than the one quoted.
 * @csspart raised - A fundraiser's progress: raised of goal and donors, over the bar. @csspart progress - The progress bar (`role="progressbar"`, `aria-valuenow` the percent).
 * @csspart donors - The latest public donors (with the `donors` attribute). @csspart donor - One, with what it gave. @csspart donor-name - Its name and message.
 * @csspart check - The "show my name" choice (a label with its checkbox). @csspart checkbox - Its checkbox.
 *
 * @cssproperty --paylink-accent - Main colour: primary buttons, chosen options, focus ring, spinner. @cssproperty --paylink-on-accent - Text on it.
 * @cssproperty --paylink-bg - Background. @cssproperty --paylink-fg - Text. @cssproperty --paylink-muted - Secondary text.
 * @cssproperty --paylink-border - Borders. @cssproperty --paylink-tint - Notices, warning and receipt panels.
 * @cssproperty --paylink-danger - Errors. @cssproperty --paylink-success - The paid check mark.
 * @cssproperty --paylink-radius - Corner radius of the card. @cssproperty --paylink-font - Font family.
 * @cssproperty --paylink-focus - Focus ring colour. @cssproperty --paylink-min-height - Height reserved for the card while loading (20rem).
 * @cssproperty --paylink-max-width - Width of the card (28rem).
 * @cssproperty --paylink-progress - Colour of a fundraiser's progress bar (default: the accent).
 *
 * @attribute {string} slug - The payment link's slug (property `slug`).
 * @attribute {string} order - The id of an order the shop's server created (`POST /v1/order`), paid instead of a link (property `order`).
 * @attribute {string} api-base - Where the merchant's Paylink proxy is mounted, default `/paylink` (property `apiBase`).
 * @attribute {string} locale - BCP 47 locale of texts and formats (property `locale`).
 * @attribute {'light' | 'dark'} theme - Forces a colour scheme; reflected (property `theme`).
 * @attribute {string} donors - On a fundraiser, show its latest public donors: how many (1–50; empty for 5) (property `donors`).
 * @attribute {string} client-reference - What the page says the payment is for, sent with the payment session and stored as its
 *   `clientReference` (property `clientReference`): anyone can change a page, so it is never the merchant's `reference`. See also `metadata`.
 */
// Where there is no DOM (Node, a server component, an SSR build) the module still loads: the class
// then stands on `Object` and is never defined, as Lit's own elements do on their server shim.
export class PaylinkCheckout extends ((globalThis.HTMLElement || Object) as typeof HTMLElement) {
  static readonly observedAttributes = ['slug', 'order', 'donors', 'api-base', 'client-reference', 'locale', 'theme'];
  /** One style sheet for every instance (made on first use). */
  static #sheet?: CSSStyleSheet;

  /** The payment link's slug (the last part of its URL). Attribute `slug`. */
  declare slug: string;
  /**
   * The id of an order the shop's server created (`POST /v1/order`), to pay instead of a link: its
   * amount, currency and cart are the order's, shown and never edited. Attribute `order`.
   */
  declare order?: string;
  /** Where the merchant's Paylink proxy is mounted (default `/paylink`); calls go to `${apiBase}/checkout/…`. Attribute `api-base`. */
  declare apiBase: string;
  /** BCP 47 locale of texts and formats (`en`, `fr-FR`…). Default: the page's `lang`, then the browser's. Attribute `locale`. */
  declare locale: string;
  /** Forces the light or dark scheme; by default the reader's `prefers-color-scheme` decides. Attribute `theme`, reflected. */
  declare theme?: 'light' | 'dark';
  /**
   * What the page says the payment is for (up to 200 characters: a cart id, a note), sent with the
   * payment session and stored as its `clientReference`, which the merchant sees in its payments and
   * webhooks. Anyone can change a page, so it never names the merchant's order: an order the shop's
   * server created does. Attribute `client-reference`. Read when the session starts.
   */
  declare clientReference?: string;
  /**
   * Up to 20 string pairs (keys 1–40 characters, values up to 500) the merchant attaches to the
   * payment session, returned on the keyed session read and in webhooks; never shown to the
   * customer. Property only (`el.metadata = { cart: 'c_9' }`; React 19 and Vue set it as a property).
   */
  declare metadata?: Record<string, string>;
  /** A `fetch` for every request (tests, or a merchant's instrumented fetch). Property only, never an attribute. */
  declare fetch?: typeof fetch;
  /**
   * On a fundraiser (a donation link), show its latest public donors (their names, messages and
   * gifts, as the donors chose): how many, 1 to 50 (an empty or other value: 5); unset shows none.
   * Attribute `donors`.
   */
  declare donors?: string | number;

  static {
    for (const name of PROPERTIES)
      Object.defineProperty(this.prototype, name, {
        get(this: PaylinkCheckout) {
          return this.#values[name];
        },
        set(this: PaylinkCheckout, value: unknown) {
          if (value === this.#values[name]) return;
          this.#values[name] = value;
          this.#dirty.add(name);
          this.#requestUpdate();
        },
      });
  }

  /** @internal The checkout's state and transitions; this element is its host. */
  readonly machine = new CheckoutMachine({
    emit: (name, detail, cancelable) => this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable })),
    store: stored,
    navigate: (url) => location.assign(url),
    clipboard: (text) => navigator.clipboard.writeText(text),
    requestUpdate: () => this.#requestUpdate(),
  });

  /** Resolves when the pending render (if any) is done. */
  updateComplete: Promise<void> = Promise.resolve();
  /** The values of the properties above. */
  #values: Record<string, unknown> = { slug: '', apiBase: '/paylink', locale: '' };
  /** Properties changed since the last render. */
  #dirty = new Set<string>(['slug', 'locale']);
  // The flags below start unset, which reads as false (an initializer per field costs every customer bytes).
  #scheduled?: boolean;
  #connected?: boolean;
  #rendered?: boolean;
  /** Wallets that announced themselves (EIP-6963); unset until one does. */
  #found?: Wallet[];
  /** Set on connect: the platform calls `disconnectedCallback` only after `connectedCallback`. */
  #stopDiscovery!: () => void;
  /** The view last rendered: focus moves to the heading of a new one. */
  #shown?: CheckoutView;
  #interacted?: boolean;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    try {
      if (!PaylinkCheckout.#sheet) (PaylinkCheckout.#sheet = new CSSStyleSheet()).replaceSync(tokensText + styles);
      root.adoptedStyleSheets = [PaylinkCheckout.#sheet];
    } catch {
      // Safari before 16.4 has no constructable style sheets: the checkout works there, unstyled.
    }
    // A framework may set properties before this class is defined: they shadow the accessors, so
    // each moves from the instance to its accessor (rendered once connected, like any other set).
    for (const name of PROPERTIES)
      if (Object.hasOwn(this, name)) {
        const value = this[name];
        delete this[name];
        (this as Record<string, unknown>)[name] = value;
      }
    // Focus follows the customer's own actions: the first render never steals it from the page.
    this.addEventListener('click', () => (this.#interacted = true));
  }

  /** Loads the link (or the order) again from the start. */
  load(): Promise<void> {
    return this.machine.load(this.slug, this.order);
  }

  connectedCallback(): void {
    this.#stopDiscovery = discoverWallets(window, (wallets) => {
      this.#found = wallets;
      this.#requestUpdate();
    });
    this.machine.connect();
    this.#connected = true;
    // Back on the page after a move: start over (a pending session resumes from storage); a
    // finished payment stays on its confirmation.
    if (this.#rendered && this.machine.view != 'done') this.#dirty.add('slug');
    this.#requestUpdate();
  }

  disconnectedCallback(): void {
    this.#connected = false;
    this.machine.disconnect();
    this.#stopDiscovery();
  }

  attributeChangedCallback(name: string, _previous: string | null, value: string | null): void {
    // `api-base` → `apiBase`, `client-reference` → `clientReference`.
    (this as Record<string, unknown>)[name == 'api-base' ? 'apiBase' : name == 'client-reference' ? 'clientReference' : name] = value ?? undefined;
  }

  /** Schedules one render for everything changed in this task (once connected). */
  #requestUpdate(): void {
    if (this.#scheduled || !this.#connected) return;
    this.#scheduled = true;
    this.updateComplete = Promise.resolve().then(() => this.#update());
  }

  /** Hands the changed properties to the machine, renders, and moves focus where the customer's action leads. */
  #update(): void {
    const { machine, theme } = this;
    const dirty = this.#dirty;
    this.#scheduled = false;
    this.#dirty = new Set();
    if (dirty.has('locale')) machine.l10n = new Localizer(this.locale || document.documentElement.lang, { en, fr });
    if (dirty.has('theme')) theme ? this.setAttribute('theme', theme) : this.removeAttribute('theme');
    for (const name of MACHINE_INPUTS) (machine as unknown as Record<string, unknown>)[name] = this[name];
    // Wallets that announce come first; an injected provider alone (EIP-1193) is the fallback.
    const injected = (window as { ethereum?: Eip1193Provider }).ethereum;
    machine.wallets = this.#found?.length ? this.#found : injected ? [{ name: '', provider: injected }] : [];
    if (LOADS.some((name) => dirty.has(name))) this.load();
    const { view } = machine;
    render(
      html`<div part="card" aria-busy=${view == 'loading'}>
        ${machine.link?.sandbox ? html`<span part="badge">${machine.t('testMode')}</span>` : ''}
        ${
          view == 'amount'
            ? renderAmountStep(machine)
            : view == 'details'
              ? renderDetailsStep(machine)
              : view == 'pay'
                ? renderPayStep(machine)
                : view == 'done' || view == 'paid'
                  ? renderDoneStep(machine)
                  : renderState(machine)
        }
        <p part="status" role="status">${machine.announcement}</p>
      </div>`,
      this.shadowRoot!,
    );
    this.#rendered = true;
    if (machine.focusInvalid) this.shadowRoot!.querySelector<HTMLElement>('[aria-invalid=true]')?.focus();
    else if (view != this.#shown && this.#interacted) this.shadowRoot!.querySelector<HTMLElement>('[part~=heading]')?.focus();
    machine.focusInvalid = false;
    this.#shown = view;
  }
}

// Both bundles may land on one page: the first definition wins. No registry (a server): no element.
globalThis.customElements?.get('paylink-checkout') || globalThis.customElements?.define('paylink-checkout', PaylinkCheckout);

declare global {
  interface HTMLElementTagNameMap {
    'paylink-checkout': PaylinkCheckout;
  }
  interface GlobalEventHandlersEventMap {
    'paylink-ready': CustomEvent<PaylinkReadyDetail>;
    'paylink-session': CustomEvent<PaylinkSessionDetail>;
    'paylink-success': CustomEvent<PaylinkSuccessDetail>;
    'paylink-error': CustomEvent<PaylinkErrorDetail>;
  }
}
