/**
 * The list of payment links: paging, filters by kind and status, and a search (typed text is sent
 * after a short pause, or at once on Enter). Its `PagedResource` owns the requests (out-of-order
 * answers are dropped, so a slow old page never replaces a newer one); `pagedTable` shows it.
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { PaymentLink } from '../../../core/schemas.js';
import { priceCurrencyOf } from '../../../core/money.js';
import type { AdminHost } from '../admin-context.js';
import { PagedResource } from '../resource-controller.js';
import { announcePage, pagedTable, selectFilter, type TableColumn } from '../templates.js';

/**
 * Where a link stands, as the service says (`state`; a server that does not say: by `isActive`), as a
 * badge: `part="badge badge-active"`, `badge-inactive` or `badge-closed`.
 */
export function linkBadge(host: AdminHost, link: PaymentLink): TemplateResult {
  const status = link.state == 'closed' ? 'closed' : link.isActive ? 'active' : 'inactive';
  return html`<span part="badge badge-${status}" class="badge ${status}">${host.text.t(status)}</span>`;
}
/** What the list asks its host to do when the merchant picks an action. */
export interface LinksListActions {
  openLink(link: PaymentLink): void;
  editLink(link: PaymentLink): void;
  createLink(): void;
}

const SEARCH_PAUSE_MS = 300;

/** The list's filters, as the merchant set them ('' for "any"). */
export type LinkFilters = { linkType: '' | 'Standard' | 'Donation'; isActive: '' | 'true' | 'false'; q: string };

export class LinksListController {
  /** The links shown, with their page and filters. */
  readonly list: PagedResource<PaymentLink, LinkFilters>;

  constructor(
    private readonly host: AdminHost,
    private readonly actions: LinksListActions,
  ) {
    this.list = new PagedResource<PaymentLink, LinkFilters>(host, {
      pageSize: 10,
      filters: { linkType: '', isActive: '', q: '' },
      fetch: ({ isActive, ...query }, signal) => host.api.links.list({ ...query, ...(isActive ? { isActive: isActive === 'true' } : {}) }, { signal }),
      received: announcePage(host, 'listLoaded'),
    });
  }

  /** Loads the current page with the current filters. */
  load(): Promise<void> {
    return this.list.load();
  }

  /** Replaces a link in the page shown (after an edit), so the list is current without a reload. */
  replace(link: PaymentLink): void {
    const data = this.list.data;
    if (data) this.list.data = { ...data, items: data.items.map((item) => (item.id === link.id ? link : item)) };
  }

  private amountOf(link: PaymentLink): string {
    const format = this.host.text;
    const currency = priceCurrencyOf(link.fiatCurrency);
    if (link.linkType === 'Donation') {
      if (link.minAmount && link.maxAmount) return `${format.money(link.minAmount, currency)} – ${format.money(link.maxAmount, currency)}`;
      return format.t('donorChooses');
    }
    return format.money(link.fiatAmount, currency);
  }

  private columns(): TableColumn<PaymentLink>[] {
    const text = this.host.text;
    const t = text.t.bind(text);
    return [
      {
        label: t('colTitle'),
        rowHeader: true,
        class: 'title-cell',
        cell: (link) =>
          html`<button type="button" part="link-title" class="link-button" @click=${() => this.actions.openLink(link)}>${link.title}</button>
            ${link.description ? html`<span class="sub">${link.description}</span>` : nothing}`,
      },
      { label: t('colKind'), cell: (link) => (link.linkType === 'Donation' ? t('kindDonation') : t('kindStandard')) },
      { label: t('colAmount'), class: 'num', cell: (link) => this.amountOf(link) },
      {
        label: t('colStatus'),
        cell: (link) => linkBadge(this.host, link),
      },
      { label: t('colVisits'), class: 'num', cell: (link) => text.count(link.visitedCount) },
      { label: t('colPayments'), class: 'num', cell: (link) => text.count(link.paymentCount) },
      {
        label: t('colActions'),
        labelHidden: true,
        class: 'actions',
        cell: (link) =>
          html`<button type="button" part="button edit-link" class="small" aria-label=${t('editNamed', { title: link.title })} @click=${() => this.actions.editLink(link)}>
            ${t('edit')}
          </button>`,
      },
    ];
  }

  private handleFilterSubmit(event: Event): void {
    event.preventDefault();
    void this.list.filter({});
  }

  render(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const { filters } = this.list;
    return html`<section part="links-list" aria-labelledby="links-heading">
      <div class="toolbar">
        <h2 id="links-heading" tabindex="-1">${t('linksTitle')}</h2>
        <button type="button" part="button primary new-link" class="primary" @click=${() => this.actions.createLink()}>${t('newLink')}</button>
      </div>
      <form part="filters" class="filters" role="search" aria-label=${t('searchLabel')} @submit=${(event: Event) => this.handleFilterSubmit(event)}>
        <div class="field grow">
          <label for="links-q">${t('searchLabel')}</label>
          <input id="links-q" part="search" type="search" .value=${filters.q} placeholder=${t('searchPlaceholder')}
            @input=${(event: Event) => void this.list.filter({ q: (event.target as HTMLInputElement).value }, SEARCH_PAUSE_MS)} />
        </div>
        ${selectFilter(this.list, 'linkType', {
          id: 'links-kind',
          part: 'filter-kind',
          label: t('kindLabel'),
          any: t('kindAll'),
          choices: [
            ['Standard', t('kindStandard')],
            ['Donation', t('kindDonation')],
          ],
        })}
        ${selectFilter(this.list, 'isActive', {
          id: 'links-active',
          part: 'filter-active',
          label: t('statusLabel'),
          any: t('statusAll'),
          choices: [
            ['true', t('active')],
            ['false', t('inactive')],
          ],
        })}
        <button type="submit" part="button search-button">${t('search')}</button>
      </form>
      ${pagedTable({
        host: this.host,
        list: this.list,
        label: t('linksTitle'),
        part: 'links-table',
        rowPart: 'link-row',
        columns: this.columns(),
        empty: t('noLinks'),
        emptyFiltered: t('noMatches'),
        paginationLabel: t('pagination'),
        counts: ['resultsOne', 'resultsCount'],
        heading: '#links-heading',
      })}
    </section>`;
  }
}
