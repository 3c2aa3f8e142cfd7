/**
 * The list of payment links: paging, filters by kind and status, and a search (typed text is sent
 * after a short pause, or at once on Enter). The controller owns the requests; out-of-order answers
 * are dropped so a slow old page never replaces a newer one.
 */
import { html, nothing, type ReactiveController, type TemplateResult } from 'lit';
import type { PaymentLink, PaymentLinkList } from '../../core/schemas.js';
import { errorMessage, type AdminHost } from './admin-context.js';

/** What the list asks its host to do when the merchant picks an action. */
export interface LinksListActions {
  openLink(link: PaymentLink): void;
  editLink(link: PaymentLink): void;
  createLink(): void;
}

const SEARCH_PAUSE_MS = 300;

export class LinksListController implements ReactiveController {
  /** Links per page. */
  pageSize = 10;
  page = 1;
  linkType: '' | 'Standard' | 'Donation' = '';
  isActive: '' | 'true' | 'false' = '';
  query = '';
  data: PaymentLinkList | undefined;
  loading = false;
  error = '';
  private sequence = 0;
  private aborter: AbortController | undefined;
  private searchTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly host: AdminHost,
    private readonly actions: LinksListActions,
  ) {
    host.addController(this);
  }

  /** Loads the current page with the current filters; `announce` tells screen readers what is shown. */
  async load(announce = false): Promise<void> {
    clearTimeout(this.searchTimer);
    this.aborter?.abort();
    const aborter = (this.aborter = new AbortController());
    const sequence = ++this.sequence;
    this.loading = true;
    this.error = '';
    this.host.requestUpdate();
    try {
      const data = await this.host.api.links.list(
        {
          page: this.page,
          limit: this.pageSize,
          ...(this.linkType ? { linkType: this.linkType } : {}),
          ...(this.isActive ? { isActive: this.isActive === 'true' } : {}),
          ...(this.query.trim() ? { q: this.query.trim() } : {}),
        },
        { signal: aborter.signal },
      );
      if (sequence !== this.sequence) return;
      this.data = data;
      // A filter can leave the merchant past the last page: go to the last one that exists.
      if (data.items.length === 0 && this.page > 1 && data.meta.totalPages >= 1 && this.page > data.meta.totalPages) {
        this.page = data.meta.totalPages;
        void this.load(announce);
        return;
      }
      const { currentPage, totalPages, totalItems } = data.meta;
      if (announce) this.host.announce(this.host.text.t('listLoaded', { page: currentPage, pages: Math.max(totalPages, 1), count: totalItems }));
    } catch (error) {
      if (sequence !== this.sequence || aborter.signal.aborted) return;
      if (!this.host.handleAuthError(error)) this.error = errorMessage(this.host.text, error);
    } finally {
      if (sequence === this.sequence) {
        this.loading = false;
        this.host.requestUpdate();
      }
    }
  }

  /** Replaces a link in the page shown (after an edit), so the list is current without a reload. */
  replace(link: PaymentLink): void {
    if (!this.data) return;
    this.data = { ...this.data, items: this.data.items.map((item) => (item.id === link.id ? link : item)) };
  }

  hostDisconnected(): void {
    clearTimeout(this.searchTimer);
    this.aborter?.abort();
  }

  private goTo(page: number): void {
    this.page = page;
    void this.load(true);
    this.host.focusAfterRender('#links-heading');
  }

  private handleSearchInput(event: Event): void {
    this.query = (event.target as HTMLInputElement).value;
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => {
      this.page = 1;
      void this.load(true);
    }, SEARCH_PAUSE_MS);
  }

  private handleFilterSubmit(event: Event): void {
    event.preventDefault();
    this.page = 1;
    void this.load(true);
  }

  private handleKind(event: Event): void {
    this.linkType = (event.target as HTMLSelectElement).value as typeof this.linkType;
    this.page = 1;
    void this.load(true);
  }

  private handleActive(event: Event): void {
    this.isActive = (event.target as HTMLSelectElement).value as typeof this.isActive;
    this.page = 1;
    void this.load(true);
  }

  private amountOf(link: PaymentLink): string {
    const format = this.host.text;
    const t = format.t.bind(format);
    const currency = link.fiatCurrency[0] ?? 'NGN';
    if (link.linkType === 'Donation') {
      if (link.minAmount && link.maxAmount) return `${format.money(link.minAmount, currency)} – ${format.money(link.maxAmount, currency)}`;
      return t('donorChooses');
    }
    return format.money(link.fiatAmount, currency);
  }

  private renderRow(link: PaymentLink): TemplateResult {
    const text = this.host.text;
    const closed = link.linkType === 'Donation' && link.closesAt && Date.parse(link.closesAt) <= Date.now();
    const status = !link.isActive ? 'inactive' : closed ? 'closed' : 'active';
    return html`<tr part="link-row">
      <th scope="row">
        <button type="button" part="link-title" class="link-button" @click=${() => this.actions.openLink(link)}>${link.title}</button>
        ${link.description ? html`<span class="sub">${link.description}</span>` : nothing}
      </th>
      <td>${link.linkType === 'Donation' ? text.t('kindDonation') : text.t('kindStandard')}</td>
      <td class="num">${this.amountOf(link)}</td>
      <td><span part="badge badge-${status}" class="badge ${status}">${text.t(status === 'closed' ? 'closed' : status)}</span></td>
      <td class="num">${text.count(link.visitedCount)}</td>
      <td class="num">${text.count(link.paymentCount)}</td>
      <td class="actions">
        <button type="button" part="button edit-link" class="small" aria-label=${text.t('editNamed', { title: link.title })} @click=${() => this.actions.editLink(link)}>
          ${text.t('edit')}
        </button>
      </td>
    </tr>`;
  }

  render(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const meta = this.data?.meta;
    const items = this.data?.items ?? [];
    const pages = Math.max(meta?.totalPages ?? 1, 1);
    const page = meta?.currentPage ?? this.page;
    const filtered = Boolean(this.linkType || this.isActive || this.query.trim());
    return html`<section part="links-list" aria-labelledby="links-heading">
      <div class="toolbar">
        <h2 id="links-heading" tabindex="-1">${t('linksTitle')}</h2>
        <button type="button" part="button primary new-link" class="primary" @click=${() => this.actions.createLink()}>${t('newLink')}</button>
      </div>
      <form part="filters" class="filters" role="search" aria-label=${t('searchLabel')} @submit=${(event: Event) => this.handleFilterSubmit(event)}>
        <div class="field grow">
          <label for="links-q">${t('searchLabel')}</label>
          <input id="links-q" part="search" type="search" .value=${this.query} placeholder=${t('searchPlaceholder')} @input=${(event: Event) => this.handleSearchInput(event)} />
        </div>
        <div class="field">
          <label for="links-kind">${t('kindLabel')}</label>
          <select id="links-kind" part="filter-kind" @change=${(event: Event) => this.handleKind(event)}>
            <option value="" ?selected=${this.linkType === ''}>${t('kindAll')}</option>
            <option value="Standard" ?selected=${this.linkType === 'Standard'}>${t('kindStandard')}</option>
            <option value="Donation" ?selected=${this.linkType === 'Donation'}>${t('kindDonation')}</option>
          </select>
        </div>
        <div class="field">
          <label for="links-active">${t('statusLabel')}</label>
          <select id="links-active" part="filter-active" @change=${(event: Event) => this.handleActive(event)}>
            <option value="" ?selected=${this.isActive === ''}>${t('statusAll')}</option>
            <option value="true" ?selected=${this.isActive === 'true'}>${t('active')}</option>
            <option value="false" ?selected=${this.isActive === 'false'}>${t('inactive')}</option>
          </select>
        </div>
        <button type="submit" part="button search-button">${t('search')}</button>
      </form>
      ${this.error
        ? html`<div part="error" class="error-box" role="alert">
            <p>${this.error}</p>
            <button type="button" part="button retry" @click=${() => this.load()}>${t('tryAgain')}</button>
          </div>`
        : nothing}
      <div class="table-wrap" aria-busy=${this.loading ? 'true' : 'false'}>
        ${!this.data && this.loading
          ? html`<p part="loading" class="placeholder">${t('loading')}</p>`
          : this.data && items.length === 0
            ? html`<p part="empty" class="placeholder">${filtered ? t('noMatches') : t('noLinks')}</p>`
            : this.data
              ? html`<table part="links-table">
                  <caption class="visually-hidden">${t('linksTitle')}</caption>
                  <thead>
                    <tr>
                      <th scope="col">${t('colTitle')}</th>
                      <th scope="col">${t('colKind')}</th>
                      <th scope="col" class="num">${t('colAmount')}</th>
                      <th scope="col">${t('colStatus')}</th>
                      <th scope="col" class="num">${t('colVisits')}</th>
                      <th scope="col" class="num">${t('colPayments')}</th>
                      <th scope="col"><span class="visually-hidden">${t('colActions')}</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${items.map((link) => this.renderRow(link))}
                  </tbody>
                </table>`
              : nothing}
      </div>
      ${meta && meta.totalItems > 0
        ? html`<nav part="pagination" class="pagination" aria-label=${t('pagination')}>
            <button type="button" part="button previous-page" ?disabled=${page <= 1 || this.loading} @click=${() => this.goTo(page - 1)}>
              ${t('previous')}
            </button>
            <span part="page-info">${t('pageOf', { page, pages })} ·
              ${meta.totalItems === 1 ? t('resultsOne') : t('resultsCount', { count: text.count(meta.totalItems) })}</span>
            <button type="button" part="button next-page" ?disabled=${page >= pages || this.loading} @click=${() => this.goTo(page + 1)}>
              ${t('next')}
            </button>
          </nav>`
        : nothing}
    </section>`;
  }
}
