/**
 * One link in detail: its visits and payments with the conversion between them (a small bar chart
 * with a text alternative), the public URL and a ready-to-paste embed snippet, each with a copy button,
 * and the link's payments (`link-payments.ts`).
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { CheckoutSessionRecord, PaymentLink } from '../../../core/schemas.js';
import { priceCurrencyOf } from '../../../core/money.js';
import { FlashController } from '../../../internal/flash-controller.js';
import { copyToClipboard, errorMessage, type AdminHost } from '../admin-context.js';
import { isHttpUrl } from '../../../core/rules/link.js';
import { LinkPaymentsController } from './link-payments.js';
import { linkBadge } from './links-view.js';
import { ResourceController } from '../resource-controller.js';
import { backButton, errorBox, loadingPlaceholder } from '../templates.js';

export interface LinkDetailActions {
  back(): void;
  edit(link: PaymentLink): void;
  changed(link: PaymentLink): void;
  /** Opens one of the link's payments. */
  openPayment(payment: CheckoutSessionRecord, link: PaymentLink): void;
  /** Opens the payments tab on the link's payments. */
  allPayments(link: PaymentLink): void;
}

/** The `<script>` + element pair a merchant pastes to sell through `link` on their own pages. */
export function embedSnippet(link: Pick<PaymentLink, 'slug' | 'url'>, scriptSrc?: string): string {
  let src = scriptSrc;
  if (!src) {
    let origin = '';
    try {
      origin = new URL(link.url).origin;
    } catch {
      // A relative or odd URL: fall back to a path on the merchant's own site.
    }
    src = `${origin}/dist/paylink-checkout.js`;
  }
  const slug = link.slug.replace(/[^A-Za-z0-9_-]/g, '');
  return `<script type="module" src="${src.replaceAll('"', '%22')}"></script>\n<paylink-checkout slug="${slug}"></paylink-checkout>`;
}

export class LinkDetailController {
  /** The link shown: set at once from the list, then refreshed for its latest counts. */
  readonly resource: ResourceController<PaymentLink>;
  /** Why the last change (pause or resume) was refused, or ''. */
  writeError = '';
  toggling = false;
  /** Where the embed snippet loads the checkout from; derived from the link's URL when unset. */
  scriptSrc: string | undefined;
  /** The link's payments, below its figures. */
  readonly payments: LinkPaymentsController;
  private readonly flash: FlashController;
  private copyFailed = '';

  constructor(
    private readonly host: AdminHost,
    private readonly actions: LinkDetailActions,
  ) {
    this.resource = new ResourceController(host, {
      fetch: (signal) => host.api.links.get(this.resource.data!.id, { signal }),
      received: (fresh) => actions.changed(fresh),
    });
    this.flash = new FlashController(host, 2500);
    this.payments = new LinkPaymentsController(host, {
      openPayment: (payment) => this.link && actions.openPayment(payment, this.link),
      allPayments: () => this.link && actions.allPayments(this.link),
    });
  }

  /** The link shown, if any. */
  get link(): PaymentLink | undefined {
    return this.resource.data;
  }

  /** Shows `link` at once and refreshes its counts (and always its payments) from the service. */
  show(link: PaymentLink, refresh = true): void {
    this.resource.set(link);
    this.writeError = '';
    this.copyFailed = '';
    if (refresh) void this.reload();
    else void this.payments.show(link);
  }

  /** Loads the link shown, and its payments, again. */
  async reload(): Promise<void> {
    const link = this.resource.data;
    if (link) await Promise.all([this.resource.load(), this.payments.show(link)]);
  }

  private async toggleActive(): Promise<void> {
    const link = this.link;
    if (!link || this.toggling) return;
    this.toggling = true;
    this.writeError = '';
    this.host.requestUpdate();
    try {
      const updated = await this.host.api.links.update({ id: link.id, isActive: !link.isActive });
      this.resource.set(updated);
      this.actions.changed(updated);
      this.host.announce(this.host.text.t(updated.isActive ? 'nowActive' : 'nowInactive'));
    } catch (error) {
      if (!this.host.handleAuthError(error)) this.writeError = errorMessage(this.host.text, error);
    } finally {
      this.toggling = false;
      this.host.requestUpdate();
    }
  }

  private async copy(which: 'url' | 'snippet', value: string): Promise<void> {
    const t = this.host.text.t.bind(this.host.text);
    this.copyFailed = '';
    const copied = await copyToClipboard(
      this.host,
      value,
      t(which === 'url' ? 'copiedUrl' : 'copiedSnippet'),
      which === 'url' ? '#ld-url' : '#ld-snippet',
      () => {
        this.copyFailed = which;
      },
    );
    if (copied) this.flash.show(which);
  }

  /** A fundraiser's progress: what its paid donations raised of its goal, over a bar at the percent reached. */
  private renderRaised(link: PaymentLink, goal: string): TemplateResult {
    const { text } = this.host;
    const currency = link.fiatCurrency[0]!;
    const percent = Math.min(100, ((100 * Number(link.raised)) / Number(goal)) | 0);
    return html`<div>
      <dt id="ld-raised">${text.t('raised')}</dt>
      <dd part="stat-raised">
        ${text.money(link.raised ?? '0', currency)} / ${text.money(goal, currency)}
        <progress part="progress" max="100" value=${percent} aria-labelledby="ld-raised"></progress>
      </dd>
    </div>`;
  }

  private renderChart(link: PaymentLink): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const visits = link.visitedCount;
    const payments = link.paymentCount;
    const rate = visits > 0 ? text.number(String(payments / visits), { style: 'percent', maximumFractionDigits: 1 }) : '—';
    const scale = Math.max(visits, payments, 1);
    const summary = visits > 0 || payments > 0 ? t('chartSummary', { visits: text.count(visits), payments: text.count(payments), rate }) : t('chartEmpty');
    const bar = (kind: 'visits' | 'payments', label: string, value: number) =>
      html`<div class="bar-row">
        <span class="bar-label">${label}</span>
        <span class="bar-track"><span part="bar bar-${kind}" class="bar ${kind}" .style=${`--size:${(value / scale) * 100}%`}></span></span>
        <span class="bar-value">${text.count(value)}</span>
      </div>`;
    return html`<section part="performance" class="card" aria-labelledby="ld-performance">
      <h3 id="ld-performance">${t('performance')}</h3>
      <dl part="stats" class="stats">
        <div><dt>${t('visits')}</dt><dd part="stat-visits">${text.count(visits)}</dd></div>
        <div><dt>${t('payments')}</dt><dd part="stat-payments">${text.count(payments)}</dd></div>
        <div><dt>${t('conversion')}</dt><dd part="stat-conversion">${rate}</dd></div>
        ${link.goalAmount ? this.renderRaised(link, link.goalAmount) : nothing}
      </dl>
      <figure part="chart" class="chart">
        <div class="bars" role="img" aria-label=${summary}>
          ${bar('visits', t('visits'), visits)} ${bar('payments', t('payments'), payments)}
        </div>
        <figcaption part="chart-summary">${summary}</figcaption>
      </figure>
    </section>`;
  }

  render(): TemplateResult {
    const link = this.link;
    const text = this.host.text;
    const t = text.t.bind(text);
    if (!link) return loadingPlaceholder(text);
    const currency = priceCurrencyOf(link.fiatCurrency);
    const snippet = embedSnippet(link, this.scriptSrc);
    const price =
      link.linkType === 'Donation'
        ? link.minAmount && link.maxAmount
          ? `${text.money(link.minAmount, currency)} – ${text.money(link.maxAmount, currency)}`
          : t('donorChooses')
        : text.money(link.fiatAmount, currency);
    const copied = this.flash.current;
    return html`<article part="link-detail" class="detail" aria-labelledby="link-detail-heading" aria-busy=${this.resource.loading ? 'true' : 'false'}>
      ${backButton(t('backToLinks'), () => this.actions.back())}
      <header class="detail-head">
        <div>
          <h2 id="link-detail-heading" tabindex="-1">${link.title}</h2>
          <p class="meta">
            ${linkBadge(this.host, link)}
            <span>${link.linkType === 'Donation' ? t('kindDonation') : t('kindStandard')}</span>
            <span>${t('price')}: <strong>${price}</strong></span>
            ${link.closesAt && link.state != 'closed' ? html`<span>${t('closesOn', { date: text.shortDateTime(link.closesAt) })}</span>` : nothing}
          </p>
          ${link.description ? html`<p class="description">${link.description}</p>` : nothing}
        </div>
        <div class="head-actions">
          <button type="button" part="button toggle-active" ?disabled=${this.toggling} @click=${() => this.toggleActive()}>
            ${link.isActive ? t('deactivate') : t('activate')}
          </button>
          <button type="button" part="button primary edit-link" class="primary" @click=${() => this.actions.edit(link)}>${t('edit')}</button>
        </div>
      </header>
      ${errorBox(text, this.resource.error, { retry: () => this.reload() })} ${errorBox(text, this.writeError)}
      <div class="detail-grid">
        ${this.renderChart(link)}
        <section part="share" class="card" aria-labelledby="ld-share">
          <h3 id="ld-share">${t('publicUrl')}</h3>
          <div class="copy-row">
            <label for="ld-url" class="visually-hidden">${t('publicUrl')}</label>
            <input id="ld-url" part="public-url" readonly .value=${link.url} @focus=${(e: Event) => (e.target as HTMLInputElement).select()} />
            <button type="button" part="button copy-url" aria-describedby=${this.copyFailed === 'url' ? 'ld-url-failed' : nothing} @click=${() => this.copy('url', link.url)}>
              ${copied === 'url' ? html`<span aria-hidden="true">✓</span> ${t('copied')}` : t('copyUrl')}
            </button>
          </div>
          ${this.copyFailed === 'url' ? html`<p id="ld-url-failed" part="field-error">${t('copyFailed')}</p>` : nothing}
          ${isHttpUrl(link.url) ? html`<p><a part="open-page" href=${link.url} target="_blank" rel="noopener noreferrer">${t('openPage')}</a></p>` : nothing}
          <h3 id="ld-embed">${t('embedSnippet')}</h3>
          <p id="ld-embed-hint" class="hint">${t('embedHint')}</p>
          <textarea id="ld-snippet" part="embed-snippet" readonly rows="3" spellcheck="false" aria-labelledby="ld-embed" aria-describedby="ld-embed-hint"
            .value=${snippet}></textarea>
          <div class="copy-actions">
            <button type="button" part="button copy-snippet" @click=${() => this.copy('snippet', snippet)}>
              ${copied === 'snippet' ? html`<span aria-hidden="true">✓</span> ${t('copied')}` : t('copySnippet')}
            </button>
          </div>
          ${this.copyFailed === 'snippet' ? html`<p part="field-error">${t('copyFailed')}</p>` : nothing}
        </section>
      </div>
      ${this.payments.render()}
    </article>`;
  }
}
