import { html } from 'lit/html.js';
import { TERMINAL_STATUSES, type CheckoutSession, type PublicLink } from '../../client/checkout.js';
import { PaylinkError } from '../../client/errors.js';
import { compareDecimal, fractionDigits } from '../../core/money.js';
import { ApiController } from '../../internal/api-controller.js';
import { CountdownController } from '../../internal/countdown-controller.js';
import { Localizer, type MessageKey } from '../../internal/localize.js';
import { LightElement, type ChangedProperties, type LightPropertyOptions } from '../../internal/light-element.js';
import { tokens } from '../../internal/styles.js';
import { renderAmountStep } from './amount-step.js';
import { renderDetailsStep } from './details-step.js';
import { renderDoneStep } from './done-step.js';
import { renderPayStep } from './pay-step.js';
import styles from './paylink-checkout.styles.js';
import { renderState } from './states.js';

/** What the checkout shows: a step of the payment, or one of its unhappy states. */
export type CheckoutView = 'loading' | 'notFound' | 'inactive' | 'closed' | 'error' | 'amount' | 'details' | 'pay' | 'expired' | 'done';

/** `paylink-ready`: the link loaded (whatever its state). */
export interface PaylinkReadyDetail {
  link: PublicLink;
}
/** `paylink-session`: a payment session started or resumed, or its status changed. */
export interface PaylinkSessionDetail {
  session: CheckoutSession;
}
/** `paylink-success`: the service reported the session `paid` or `overpaid`. */
export interface PaylinkSuccessDetail {
  session: CheckoutSession;
}
/** `paylink-error`: an error screen or a field error appeared. */
export interface PaylinkErrorDetail {
  /** The server's code (`not_found`, `link_closed`, `link_inactive`, `validation_failed`…) or `network_error`. */
  code: string;
  message: string;
  error: PaylinkError;
}

const storageKey = (slug: string) => `paylink:session:${slug}`;

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

/** The redirect target of a paid session: only an absolute `http:`/`https:` URL, else ''. */
export function safeRedirectUrl(session: CheckoutSession): string {
  const action = session.postpayAction;
  try {
    const url = new URL(action!.redirectUrl);
    return action!.redirect && /^https?:$/.test(url.protocol) ? url.href : '';
  } catch {
    return '';
  }
}

/**
 * The checkout a customer sees on a merchant's page: pick or confirm the amount, give the details
 * the merchant asks for, pay in USDT or cNGN to the address shown (QR, copy buttons, countdown to
 * the quote's expiry, live status), then the merchant's success message, receipt or redirect.
 * A pending payment survives a reload: the session id is kept per slug in `localStorage`.
 *
 * @tagname paylink-checkout
 * @summary Embeddable checkout for a Paylink payment link.
 *
 * @event paylink-ready - The link loaded. `detail.link` is its public view.
 * @event paylink-session - A session started, resumed, or changed status. `detail.session`.
 * @event paylink-success - The service reported the payment `paid` (or `overpaid`); never fired on a guess.
 *   Cancelable: `preventDefault()` stops the merchant's redirect (to route it yourself).
 * @event paylink-error - An error screen appeared, or the server refused a field. `detail.code`, `detail.message`, `detail.error` (a `PaylinkError`).
 *
 * @csspart card - The frame of the checkout; reserves its height (`--paylink-min-height`) so loading never shifts the page.
 * @csspart heading - The heading of each step and state (focused when the customer moves to a new one).
 * @csspart badge - "Test mode", on sandbox links.
 * @csspart state - An unhappy or final screen; also carries its name: `loading`, `notFound`, `inactive`, `closed`, `error`, `expired`, `done`.
 * @csspart spinner - The busy indicator (still when the reader prefers reduced motion).
 * @csspart form - A step's form. @csspart description - The link's description.
 * @csspart cart - The list of cart items. @csspart cart-item - One item. @csspart item-name - Its name and quantity × price.
 * @csspart item-total - Its line total. @csspart total - The total row. @csspart price - The fixed amount of a link without cart.
 * @csspart suggestions - The suggested amounts. @csspart chip - One suggested amount (`aria-pressed` when chosen).
 * @csspart field - A label, control, hint and error. @csspart label - A field's label. @csspart input - A text field.
 * @csspart hint - A field's hint (e.g. the donation's minimum and maximum). @csspart error - A field's error message.
 * @csspart button - Every button. @csspart primary - The main actions. @csspart back - The back button.
 * @csspart assets - The asset choice. @csspart asset - One "Pay … · USDT (network)" button.
 * @csspart pay - The payment screen. @csspart pay-grid - QR code beside amount and address.
 * @csspart qr - The QR code of the address (SVG). @csspart value - The amount or address to copy.
 * @csspart amount - The exact amount to send. @csspart address - The address to pay.
 * @csspart copy-button - The copy buttons ("Copied" once used). @csspart warning - The "only this asset on this network" warning.
 * @csspart waiting - The live payment status. @csspart countdown - How long the price is held.
 * @csspart simulate - "Simulate payment" (sandbox only). @csspart notice - What an underpaid or expired session received.
 * @csspart success-icon - The check mark when paid. @csspart message - The merchant's success message.
 * @csspart receipt - The payment's details on the confirmation page.
 * @csspart status - The polite live region announcing status changes (visually hidden).
 *
 * @cssproperty --paylink-accent - Main colour: primary buttons, focus ring, spinner. @cssproperty --paylink-on-accent - Text on it.
 * @cssproperty --paylink-bg - Background. @cssproperty --paylink-fg - Text. @cssproperty --paylink-muted - Secondary text.
 * @cssproperty --paylink-border - Borders. @cssproperty --paylink-tint - Notices, warning and receipt panels.
 * @cssproperty --paylink-danger - Errors. @cssproperty --paylink-success - The paid check mark.
 * @cssproperty --paylink-radius - Corner radius of the card. @cssproperty --paylink-font - Font family.
 * @cssproperty --paylink-focus - Focus ring colour. @cssproperty --paylink-min-height - Height reserved for the card (30rem).
 * @cssproperty --paylink-max-width - Width of the card (28rem).
 */
export class PaylinkCheckout extends LightElement {
  static override styles = [tokens, styles];

  /** @internal */ readonly api = new ApiController(this);
  /** @internal */ readonly countdown = new CountdownController(this);

  static override properties: Record<string, LightPropertyOptions> = {
    slug: {},
    apiBase: { attribute: 'api-base' },
    locale: {},
    theme: { reflect: true },
    fetch: { attribute: false },
    // Internal reactive state.
    ...Object.fromEntries(
      'view link session amountText errors address phone busy redirectTo announcement copied'.split(' ').map((name) => [name, { state: true }]),
    ),
  };

  /** The payment link's slug (the last part of its URL). */
  slug = '';

  /** Where the merchant's Paylink proxy is mounted; calls go to `${apiBase}/checkout/…`. Attribute `api-base`. */
  apiBase = '/paylink';

  /** BCP 47 locale of texts and formats (`en`, `fr-FR`…). Default: the page's `lang`, then the browser's. */
  locale = '';

  /** Forces the light or dark scheme; by default the reader's `prefers-color-scheme` decides. Reflected. */
  theme?: 'light' | 'dark';

  /** A `fetch` for every request (tests, or a merchant's instrumented fetch). Property only, never an attribute. */
  fetch?: typeof fetch;

  /** @internal */ view: CheckoutView = 'loading';
  /** @internal */ link?: PublicLink | undefined;
  /** @internal */ session?: CheckoutSession | undefined;
  /** @internal The donation amount as typed. */ amountText = '';
  /** @internal Field errors by path (`fiatAmount`, `customer.phone`…), from the form or the server. */
  errors: Record<string, string> = {};
  /** @internal */ address = '';
  /** @internal */ phone = '';
  /** @internal */ busy = false;
  /** @internal */ redirectTo = '';
  /** @internal */ announcement = '';
  /** @internal What was copied last (its button says so until the next copy). */ copied = '';

  /** @internal */ l10n!: Localizer;
  private generation = 0;
  private interacted = false;
  private moveFocus = false;
  private retry: () => unknown = () => this.load();

  constructor() {
    super();
    // Focus follows the customer's own actions: the first render never steals it from the page.
    this.addEventListener('click', () => (this.interacted = true));
  }

  /** Loads the link again from the start. */
  async load(): Promise<void> {
    const generation = ++this.generation;
    const { slug, api } = this;
    api.unwatch();
    this.countdown.set();
    this.link = this.session = undefined;
    this.retry = () => this.load();
    this.show('loading');
    try {
      if (!slug) throw new PaylinkError('No slug', 404, 'not_found');
      const link = await api.checkout.getLink(slug, api);
      if (generation != this.generation) return;
      this.link = link;
      this.emit('paylink-ready', { link });
      // Counted once per page view: reloads send back the same visit id.
      const visitKey = `paylink:visit:${slug}`;
      api.checkout.recordVisit(slug, { visitId: stored('sessionStorage', visitKey) ?? undefined }).then(
        (visit) => stored('sessionStorage', visitKey, visit.visitId),
        () => {},
      );
      if (link.state != 'open') return this.show(link.state, this.t(link.state));
      // A pending payment survives a reload: pick up the session kept for this link.
      const id = stored('localStorage', storageKey(slug));
      const session = id && (await api.checkout.getSession(id, api).catch(() => undefined));
      if (generation != this.generation) return;
      if (session && session.slug == slug && session.status != 'expired') this.follow(session);
      else this.show('amount');
    } catch (error) {
      if (generation == this.generation) this.fail(error);
    }
  }

  override connectedCallback(): void {
    // Back on the page after a move: start over (a pending session resumes from storage); a
    // finished payment stays on its confirmation.
    if (this.hasUpdated && this.view != 'done') this.load();
    super.connectedCallback();
  }

  protected override willUpdate(changed: ChangedProperties): void {
    if (!this.hasUpdated || changed.has('locale')) this.l10n = new Localizer(this.locale || document.documentElement.lang);
    if (!this.hasUpdated || changed.has('slug') || changed.has('apiBase') || changed.has('fetch')) this.load();
  }

  protected override updated(): void {
    if (this.moveFocus) this.renderRoot.querySelector<HTMLElement>('[part~=heading]')!.focus();
    this.moveFocus = false;
  }

  /** @internal A text of the current locale. */
  t(key: MessageKey, values?: Record<string, string | number>): string {
    return this.l10n.t(key, values);
  }

  /** @internal A fiat amount in the link's currency. */
  money(amount: string): string {
    return this.l10n.money(amount, this.currency);
  }

  /** @internal The currency the link is priced in. */
  get currency(): string {
    return this.link!.fiatCurrency[0]!;
  }

  /** @internal The fiat amount to pay: the link's, or the donor's as entered (canonical decimal). */
  get price(): string {
    const link = this.link!;
    if (link.linkType == 'Standard') return link.fiatAmount;
    // `1 000,50` (fr) or `1,000.50` (en) → `1000.50`: drop group separators, then a comma is the decimal point.
    const group = this.l10n.number('1.5').charAt(1) == ',' ? '.' : ',';
    const text = this.amountText.replace(/\s/g, '').replace(new RegExp(`\\${group}(?=\\d{3}(\\D|$))`, 'g'), '').replace(',', '.');
    return /^\d+(\.\d+)?$/.test(text) ? text : '';
  }

  /** @internal */
  get needsDetails(): boolean {
    const { collectAddress, collectPhone } = this.link!.prepayOptions;
    return collectAddress || collectPhone;
  }

  /** @internal Moves to `view`; `announcement` is said by the polite live region. */
  show(view: CheckoutView, announcement?: string): void {
    this.moveFocus ||= view != this.view && this.interacted;
    this.view = view;
    if (announcement) this.announce(announcement);
  }

  /** @internal */
  announce(text: string): void {
    this.announcement = text;
  }

  /** Shows `session` and, while it can still change, follows its status live. */
  private follow(session: CheckoutSession): void {
    this.apply(session);
    if (!TERMINAL_STATUSES.has(session.status)) this.api.watch(session.id, (next) => this.apply(next));
  }

  /** @internal Takes in what the server says about the session: the only way to "done". */
  apply(session: CheckoutSession): void {
    const previous = this.session;
    const { status, slug, id } = session;
    this.session = session;
    if (previous?.id == id && previous.status == status && previous.paidAmount == session.paidAmount) return;
    this.emit('paylink-session', { session });
    const pending = !TERMINAL_STATUSES.has(status);
    stored('localStorage', storageKey(slug), pending ? id : null);
    this.countdown.set(pending ? session.expiresAt : undefined);
    if (pending) return this.show('pay', status == 'underpaid' ? this.t('underpaid') : '');
    this.api.unwatch();
    if (status == 'expired') return this.show('expired', this.t('expired'));
    const url = safeRedirectUrl(session);
    this.show('done', this.t('paid'));
    // Cancelling the event keeps the customer here (e.g. to route with the merchant's own router).
    if (this.emit('paylink-success', { session }, true) && url) location.assign((this.redirectTo = url));
  }

  /** Shows the screen for `error` and tells the page. */
  private fail(error: unknown, retry: () => unknown = this.retry): void {
    if ((error as Error).name == 'AbortError') return;
    const problem = error instanceof PaylinkError ? error : new PaylinkError(String(error), 0, 'network_error');
    this.retry = retry;
    this.emit('paylink-error', { code: problem.code, message: problem.message, error: problem });
    const view =
      problem.status == 404 ? 'notFound' : problem.status == 410 ? 'closed' : problem.code == 'link_inactive' ? 'inactive' : 'error';
    this.show(view, this.t(view));
  }

  /** Puts field errors beside their fields and focuses the first; true when there is one. */
  private invalid(errors: Record<string, string>): boolean {
    const invalid = Object.values((this.errors = errors)).some(Boolean);
    if (invalid) this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>('[aria-invalid=true]')!.focus());
    return invalid;
  }

  /** @internal Stores what the customer typed in the field `path` and clears its error. */
  edit(path: 'fiatAmount' | 'customer.address' | 'customer.phone', value: string): void {
    if (path == 'fiatAmount') this.amountText = value;
    else this[path == 'customer.phone' ? 'phone' : 'address'] = value;
    this.errors = { ...this.errors, [path]: '' };
  }

  /** @internal */
  handleAmount(event: Event): void {
    event.preventDefault();
    const { minAmount: min, maxAmount: max, suggestedAmounts, linkType } = this.link!;
    const amount = this.price;
    const message =
      linkType == 'Standard'
        ? ''
        : !amount || fractionDigits(amount) > this.l10n.digits(this.currency) || !compareDecimal(amount, '0')
          ? this.t('badAmount', { amount: this.money(suggestedAmounts[0] ?? min ?? '10') })
          : min && compareDecimal(amount, min) < 0
            ? this.t('min', { amount: this.money(min) })
            : max && compareDecimal(amount, max) > 0
              ? this.t('max', { amount: this.money(max) })
              : '';
    if (!this.invalid(message ? { fiatAmount: message } : {})) this.next(event);
  }

  /** @internal */
  handleDetails(event: Event): void {
    event.preventDefault();
    const { collectAddress, collectPhone } = this.link!.prepayOptions;
    const digits = this.phone.replace(/\D/g, '').length;
    const errors: Record<string, string> = {};
    if (collectAddress && this.address.trim().length < 5) errors['customer.address'] = this.t('badAddress');
    if (collectPhone && (/[^\d\s().+-]/.test(this.phone) || digits < 7 || digits > 15)) errors['customer.phone'] = this.t('badPhone');
    if (!this.invalid(errors)) this.next(event);
  }

  /** After a valid step: the details, or the payment in the asset whose button was pressed. */
  private next(event: Event): void {
    const assetId = ((event as SubmitEvent).submitter as HTMLButtonElement | null)?.value;
    assetId ? this.startSession(assetId) : this.show('details');
  }

  /** Starts the payment session in `assetId`. */
  private async startSession(assetId: string): Promise<void> {
    const { link, api, needsDetails } = this;
    const { slug, linkType, prepayOptions } = link!;
    const customer: { address?: string; phone?: string } = {};
    if (prepayOptions.collectAddress) customer.address = this.address.trim();
    if (prepayOptions.collectPhone) customer.phone = this.phone.trim();
    this.busy = true;
    try {
      this.follow(
        await api.checkout.startSession(
          slug,
          {
            assetId,
            fiatCurrency: this.currency,
            ...(linkType == 'Donation' && { fiatAmount: this.price }),
            ...(needsDetails && { customer }),
          },
          api,
        ),
      );
    } catch (error) {
      // The server's field errors go beside their fields, on the step that has them.
      const fields = Object.fromEntries((error as PaylinkError).errors?.map((e) => [e.path, e.message]) ?? []);
      const step = fields.fiatAmount ? 'amount' : Object.keys(fields).some((path) => path.startsWith('customer.')) ? 'details' : '';
      if (step) {
        this.emit('paylink-error', { code: 'validation_failed', message: (error as Error).message, error: error as PaylinkError });
        this.show(step);
        this.invalid(fields);
      } else this.fail(error, () => this.show(this.needsDetails ? 'details' : 'amount'));
    }
    this.busy = false;
  }

  /** @internal Sandbox only: the sandbox chain pays the session. */
  async simulate(): Promise<void> {
    const { session, api } = this;
    this.busy = true;
    // On failure the live status still tells what happened.
    await api.checkout.simulatePayment(session!.id, {}, api).then((next) => this.apply(next), () => {});
    this.busy = false;
  }

  /**
   * @internal Copies `text`, then confirms it on the button (`key`) and to screen readers. Where the
   * clipboard is refused, the text stays selectable (user-select: all) and nothing claims success.
   */
  async copy(text: string, key: string): Promise<void> {
    await navigator.clipboard.writeText(text);
    this.copied = key;
    this.announce(`${this.t('copied')}: ${this.t(key as 'amount')}`);
  }

  /** @internal The button of the unhappy screens: retry what failed, or start again after an expired quote. */
  handleRetry(): void {
    if (this.view != 'expired') return void this.retry();
    this.session = undefined;
    this.show(this.needsDetails ? 'details' : 'amount');
  }

  protected override render() {
    const { view, link } = this;
    const step = { amount: renderAmountStep, details: renderDetailsStep, pay: renderPayStep, done: renderDoneStep }[view as 'pay'] ?? renderState;
    return html`<div part="card" aria-busy=${view == 'loading'}>
      ${link?.sandbox ? html`<span part="badge">${this.t('testMode')}</span>` : ''} ${step(this)}
      <p part="status" role="status">${this.announcement}</p>
    </div>`;
  }
}

// Both bundles may land on one page: the first definition wins.
PaylinkCheckout.define('paylink-checkout');

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
