/**
 * `<paylink-refund>`: the customer's side of a refund a merchant made without knowing where to send it.
 * The hosted page `{paylink_url}/refund/<id>#<token>` shows it: what is given back, by whom, for what
 * and on which network, then takes the customer's address, from their browser wallet (every wallet that
 * announces itself, EIP-6963, one button each; else the injected `window.ethereum`, EIP-1193) or pasted
 * (a mixed-case address must pass its EIP-55 checksum), and sends it once. Then it follows the refund
 * until it is paid out, with a link to the transaction.
 *
 * The claim token is the link's fragment (`location.hash`, or the `token` property): it never reaches a
 * server log or a `Referer`, and goes to the service only in the `Paylink-Claim` header. Built on the
 * admin's light element base (`internal/paylink-element.ts`), not Lit's, and shipped as a script-tag
 * bundle of its own (`dist/paylink-refund.js`), so the checkout, which every customer loads, carries none of it.
 *
 * @summary A refund's claim: what is given back, and the address it goes to, from a wallet or pasted.
 *
 * @event paylink-refund-claimed - The customer's address was accepted: the refund is on its way. `detail: { id, address }`.
 *
 * @csspart card - The frame around everything.
 * @csspart heading - The heading of each state.
 * @csspart amount - The amount given back.
 * @csspart facts - What it is for and on which network.
 * @csspart wallet - A button that takes the address from a browser wallet.
 * @csspart address - The address field.
 * @csspart error - Why the address is refused, or what the wallet said.
 * @csspart submit - The button that sends the address.
 * @csspart outcome - Where the refund stands once it has its address, with `explorer` (the transaction).
 * @csspart badge - "Test mode" on the sandbox.
 * @csspart button - Every button.
 * @csspart status - The visually hidden live region.
 *
 * @cssproperty --paylink-accent - Main action colour.
 * @cssproperty --paylink-bg - Background.
 * @cssproperty --paylink-fg - Text colour.
 * @cssproperty --paylink-muted - Secondary text.
 * @cssproperty --paylink-border - Borders.
 * @cssproperty --paylink-danger - Errors.
 * @cssproperty --paylink-radius - Corner radius.
 * @cssproperty --paylink-font - Font family.
 */
import type { ReactiveController } from 'lit';
import { html, nothing, type TemplateResult } from 'lit/html.js';
import { checkAddress, toChecksumAddress } from '../../core/evm-address.js';
import type { PublicRefund } from '../../core/schemas.js';
import { discoverWallets, walletAddress, type Eip1193Provider, type Wallet, type WalletFailure } from '../../internal/evm-wallet.js';
import { Localizer } from '../../internal/localize.js';
import { PaylinkElement, type PropertyDeclarations, type PropertyValues } from '../../internal/paylink-element.js';
import { tokensText } from '../../internal/tokens.js';
import styles from './paylink-refund.styles.js';
import en from './translations/en.js';
import fr from './translations/fr.js';

type Text = keyof typeof en;

/** What the element shows: loading, a link that does not work, a failed load, or the refund. */
type View = 'loading' | 'invalid' | 'error' | 'refund';

/** The statuses after which a refund never changes again. */
const FINAL = ['success', 'failed', 'cancelled'];

/**
 * Reads the refund again every `ms` while it is on its way (pending, processing) and the element is on
 * the page: the customer sees it paid out without reloading.
 */
class RefundWatch implements ReactiveController {
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly host: PaylinkRefund,
    private readonly ms: number,
  ) {
    host.addController(this);
  }

  hostUpdated(): void {
    const status = this.host.refundData?.status;
    if (this.#timer || !this.host.isConnected || !status || status == 'awaiting_address' || FINAL.includes(status)) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.host.load(true);
    }, this.ms);
  }

  hostDisconnected(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

export class PaylinkRefund extends PaylinkElement {
  static override styles = tokensText + styles;
  static override properties: PropertyDeclarations = {
    refund: {},
    apiBase: { attribute: 'api-base' },
    locale: {},
    theme: { reflect: true },
    token: { attribute: false },
    fetch: { attribute: false },
    view: { state: true },
    refundData: { state: true },
    address: { state: true },
    error: { state: true },
    sending: { state: true },
    wallets: { state: true },
    announcement: { state: true },
  };

  /** The refund's id (the hosted page sets it from its URL). */
  refund = '';
  /** Where the keyless API is: requests go to `${apiBase}/checkout/refunds/…` (the hosted page: `/v1`). */
  apiBase = '/paylink';
  /** Language of texts and formats (`en`, `fr`); defaults to the page's `lang`, then the browser's. */
  locale = '';
  /** `light` or `dark` forces a scheme; unset follows `prefers-color-scheme`. */
  theme: 'light' | 'dark' | undefined;
  /** The claim token; a property only, read from the page's fragment (`#<token>`) when unset. */
  token: string | undefined;
  /** The fetch to use (defaults to the global one). Tests set it. */
  fetch: typeof fetch | undefined;

  view: View = 'loading';
  /** The refund as the customer may see it, once loaded. */
  refundData: PublicRefund | undefined;
  address = '';
  error = '';
  sending = false;
  wallets: Wallet[] = [];
  announcement = '';

  #stopDiscovery = () => {};
  /** What takes focus after the next render (a selector), if anything. */
  #focus = '';
  #text: { requested: string | undefined; l10n: Localizer<typeof en> } | undefined;

  constructor() {
    super();
    new RefundWatch(this, 3000);
  }

  /** Loads the refund; `quiet` keeps what is shown until the answer (a refresh while it is on its way). */
  async load(quiet = false): Promise<void> {
    if (!quiet) this.view = 'loading';
    try {
      const refund = await this.#call('GET');
      if (refund) this.#show(refund);
    } catch {
      if (!quiet) this.view = 'error';
    }
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#stopDiscovery = discoverWallets(window, (wallets) => (this.wallets = wallets));
    void this.load();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#stopDiscovery();
  }

  protected override updated(changed: PropertyValues): void {
    if (changed.has('refund') && changed.get('refund') !== undefined && this.isConnected) void this.load();
    if (this.#focus) this.renderRoot.querySelector<HTMLElement>(this.#focus)?.focus();
    this.#focus = '';
  }

  /** Texts and formats for the locale: the element's, else the page's `lang`, else the browser's. */
  get #l10n(): Localizer<typeof en> {
    const requested = this.locale || this.closest<HTMLElement>('[lang]')?.lang;
    if (!this.#text || this.#text.requested !== requested) this.#text = { requested, l10n: new Localizer(requested, { en, fr }) };
    return this.#text.l10n;
  }

  #t(key: Text, values?: Record<string, string>): string {
    return this.#l10n.t(key, values);
  }

  /**
   * The claim API: the refund (`GET`) or the address sent (`POST`), with the token in `Paylink-Claim`.
   * Resolves with the refund; with undefined when the link does not work (400, 404: the view says so);
   * throws on a failure worth retrying, or with the service's message for a refused address.
   */
  async #call(method: 'GET' | 'POST', address?: string): Promise<PublicRefund | undefined> {
    const token = this.token ?? decodeURIComponent(location.hash.slice(1));
    const response = await (this.fetch ?? globalThis.fetch)(
      `${this.apiBase.replace(/\/+$/, '')}/checkout/refunds/${encodeURIComponent(this.refund)}${method == 'POST' ? '/address' : ''}`,
      {
        method,
        headers: { accept: 'application/json', 'paylink-claim': token, ...(address ? { 'content-type': 'application/json' } : {}) },
        body: address ? JSON.stringify({ address }) : null,
      },
    );
    const body = await response.json().catch(() => ({}));
    if (response.ok) return body as PublicRefund;
    // Set meanwhile (409) or cancelled (410): what it is now says so.
    if (response.status == 409 || response.status == 410) return this.#call('GET');
    if (response.status == 404 || (response.status == 400 && method == 'GET')) {
      this.view = 'invalid';
      return undefined;
    }
    throw new Error(
      response.status == 400 ? ((body as { errors?: { message: string }[] }).errors?.[0]?.message ?? this.#t('badAddress')) : this.#t('errorBody'),
    );
  }

  #show(refund: PublicRefund): void {
    const changed = refund.status != this.refundData?.status;
    this.refundData = refund;
    this.view = 'refund';
    if (changed && refund.status != 'awaiting_address') this.announcement = this.#outcome(refund);
  }

  /** Takes the address from `wallet`, into the field: the customer checks it, then sends. */
  async #useWallet(wallet: Wallet): Promise<void> {
    this.error = '';
    try {
      this.address = toChecksumAddress(await walletAddress(wallet.provider));
      this.announcement = this.#t('fromWallet');
      this.#focus = '[part~=submit]';
    } catch (failure) {
      this.error = this.#t(failure == ('rejected' satisfies WalletFailure) ? 'walletRejected' : 'walletFailed');
    }
  }

  async #submit(event: Event): Promise<void> {
    event.preventDefault();
    const address = this.address.trim();
    const check = checkAddress(address);
    this.error = check == 'bad_checksum' ? this.#t('badChecksum') : check != 'ok' || /^0x0{40}$/.test(address) ? this.#t('badAddress') : '';
    if (this.error) {
      this.#focus = '#address';
      return;
    }
    this.sending = true;
    try {
      const refund = await this.#call('POST', address);
      if (refund) {
        this.#show(refund);
        this.emit('paylink-refund-claimed', { id: refund.id, address: refund.address ?? address });
        this.#focus = '[part~=heading]';
      }
    } catch (error) {
      this.error = (error as Error).message;
      this.#focus = '#address';
    } finally {
      this.sending = false;
    }
  }

  /** Where a refund with its address stands, in words. */
  #outcome(refund: PublicRefund): string {
    const merchant = refund.merchantName || this.#t('theMerchant');
    const address = refund.address ?? '';
    return refund.status == 'success'
      ? this.#t('success', { address })
      : refund.status == 'failed' || refund.status == 'cancelled'
        ? this.#t(refund.status, { merchant })
        : this.#t('pending', { address });
  }

  #renderClaim(refund: PublicRefund): TemplateResult {
    const network = refund.networkName;
    // Wallets that announce come first; an injected provider alone (EIP-1193) is the fallback.
    const injected = (window as { ethereum?: Eip1193Provider }).ethereum;
    const wallets = this.wallets.length ? this.wallets : injected ? [{ name: '', provider: injected }] : [];
    return html`<form novalidate @submit=${(event: Event) => this.#submit(event)}>
      <p part="notice">${this.#t('ask', { network })}</p>
      ${wallets.map(
        (wallet) => html`<button type="button" part="button wallet" @click=${() => this.#useWallet(wallet)}>
          ${wallet.name ? this.#t('useWallet', { name: wallet.name }) : this.#t('browserWallet')}
        </button>`,
      )}
      ${wallets.length ? html`<p part="divider">${this.#t('or')}</p>` : nothing}
      <label for="address">${this.#t('addressLabel', { network })}</label>
      <input id="address" part="address" autocomplete="off" autocapitalize="off" spellcheck="false" inputmode="text"
        aria-invalid=${this.error ? 'true' : 'false'} aria-describedby=${this.error ? 'address-error' : nothing} .value=${this.address}
        @input=${(event: Event) => (this.address = (event.target as HTMLInputElement).value)} />
      ${this.error ? html`<p id="address-error" part="error">${this.error}</p>` : nothing}
      <button type="submit" part="button primary submit" ?disabled=${this.sending}>${this.sending ? this.#t('sending') : this.#t('submit')}</button>
    </form>`;
  }

  #renderOutcome(refund: PublicRefund): TemplateResult {
    const explorer = refund.txHash && refund.explorerUrl ? `${refund.explorerUrl.replace(/\/+$/, '')}/tx/${refund.txHash}` : '';
    return html`<div part="outcome" class=${refund.status}>
      <p>${this.#outcome(refund)}</p>
      ${
        explorer
          ? html`<a part="button explorer" href=${explorer} target="_blank" rel="noopener noreferrer"
            >${this.#t('viewTx')} <span class="visually-hidden">${this.#t('opensNewTab')}</span></a
          >`
          : refund.txHash
            ? html`<p part="hash">${refund.txHash}</p>`
            : nothing
      }
    </div>`;
  }

  #renderRefund(refund: PublicRefund): TemplateResult {
    const l10n = this.#l10n;
    return html`<h2 part="heading" tabindex="-1">
        ${refund.merchantName ? this.#t('refunding', { merchant: refund.merchantName }) : this.#t('refundingAnon')}
      </h2>
      <p part="amount">${l10n.crypto(refund.amount, refund.assetId)}</p>
      <dl part="facts">
        ${refund.title ? html`<div><dt>${this.#t('forLabel')}</dt><dd>${refund.title}</dd></div>` : nothing}
        <div><dt>${this.#t('networkLabel')}</dt><dd>${refund.networkName}</dd></div>
      </dl>
      ${refund.status == 'awaiting_address' ? this.#renderClaim(refund) : this.#renderOutcome(refund)}`;
  }

  protected override render(): TemplateResult {
    const { view, refundData: refund } = this;
    const { locale } = this.#l10n;
    // The language the texts are in: French, or the English every other locale falls back to.
    return html`<div part="card" aria-busy=${view == 'loading' ? 'true' : 'false'} lang=${locale.startsWith('fr') ? locale : 'en'}>
      ${refund?.sandbox ? html`<span part="badge">${this.#t('testMode')}</span>` : nothing}
      ${
        view == 'refund' && refund
          ? this.#renderRefund(refund)
          : view == 'loading'
            ? html`<p part="state">${this.#t('loading')}</p>`
            : html`<h2 part="heading" tabindex="-1">${this.#t(view == 'invalid' ? 'invalidTitle' : 'errorTitle')}</h2>
              <p>${this.#t(view == 'invalid' ? 'invalidBody' : 'errorBody')}</p>
              ${view == 'error' ? html`<button type="button" part="button retry" @click=${() => this.load()}>${this.#t('retry')}</button>` : nothing}`
      }
      <p part="status" role="status">${this.announcement}</p>
    </div>`;
  }
}

// No registry (a server): no element.
globalThis.customElements?.define('paylink-refund', PaylinkRefund);

declare global {
  interface HTMLElementTagNameMap {
    'paylink-refund': PaylinkRefund;
  }
  interface GlobalEventHandlersEventMap {
    'paylink-refund-claimed': CustomEvent<{ id: string; address: string }>;
  }
}
