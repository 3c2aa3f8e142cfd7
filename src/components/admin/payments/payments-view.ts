/**
 * The payments list: every checkout session of the merchant's links and orders, newest first, filtered
 * by status, link, reference (the merchant's order id, matched exactly) and a range of days, with paging
 * and a CSV export of the whole filtered list. Its `PagedResource` owns the requests; the export asks
 * for the same filters (`paymentsQuery`), so the file holds what the list would show page after page.
 */
import type { ReactiveController } from 'lit';
import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { ListSessionsParams } from '../../../client/index.js';
import { SESSION_STATUSES } from '../../../core/rules/session.js';
import type { CheckoutSessionRecord, PaymentLink, SessionStatus } from '../../../core/schemas.js';
import { errorMessage, type AdminHost } from '../admin-context.js';
import { paidFor, paymentButton, referenceCell, sessionBadge } from './payment-detail.js';
import { exportFileName, fetchAllPayments, paymentsCsv, type PaymentsExportDetail } from './payments-export.js';
import { PagedResource, ResourceController } from '../resource-controller.js';
import {
  announcePage,
  clearFiltersButton,
  dayRangeFilter,
  errorBox,
  pagedTable,
  referenceFilter,
  selectFilter,
  type FilterChoice,
  type TableColumn,
} from '../templates.js';
import { dayBoundary } from '../money/withdrawal-history.js';

/** The list's filters, as the merchant set them ('' for "any"); the days are `YYYY-MM-DD` in the merchant's time zone. */
export type PaymentFilters = { status: '' | SessionStatus; linkId: string; reference: string; fromDate: string; toDate: string };

/** The filters every list of payments starts with. */
export const NO_PAYMENT_FILTERS: PaymentFilters = { status: '', linkId: '', reference: '', fromDate: '', toDate: '' };

/** The API's query for `filters` (empty ones left out; days become the bounds of those days). */
export function paymentsQuery(filters: Partial<PaymentFilters>): Omit<ListSessionsParams, 'page' | 'limit'> {
  const { status, linkId, reference, fromDate = '', toDate = '' } = filters;
  const startDate = dayBoundary(fromDate, false);
  const endDate = dayBoundary(toDate, true);
  return {
    ...(status ? { status } : {}),
    ...(linkId ? { linkId } : {}),
    ...(reference ? { reference } : {}),
    ...(startDate ? { startDate } : {}),
    ...(endDate ? { endDate } : {}),
  };
}

/** What the list asks of its tab. */
export interface PaymentsListActions {
  openPayment(payment: CheckoutSessionRecord): void;
  /** An export is ready: save it (or hand it to the page). */
  exported(file: PaymentsExportDetail): void;
  /** Opens the refunds. */
  showRefunds(): void;
}

export class PaymentsListController implements ReactiveController {
  /** The payments shown, with their page and filters. */
  readonly list: PagedResource<CheckoutSessionRecord, PaymentFilters>;
  /** The links the link filter offers (the latest 100), loaded with the list. */
  readonly links: ResourceController<PaymentLink[]>;
  /** Titles of links named elsewhere (a link's detail) that may be past the latest 100. */
  private readonly knownLinks = new Map<string, string>();
  /** The export in progress: how many rows of how many are fetched. */
  exporting: { fetched: number; total: number } | undefined;
  exportError = '';
  private exportAborter: AbortController | undefined;

  constructor(
    private readonly host: AdminHost,
    private readonly actions: PaymentsListActions,
  ) {
    this.list = new PagedResource<CheckoutSessionRecord, PaymentFilters>(host, {
      pageSize: 20,
      filters: { ...NO_PAYMENT_FILTERS },
      fetch: (query, signal) => host.api.sessions.list({ ...paymentsQuery(query), page: query.page, limit: query.limit }, { signal }),
      received: announcePage(host, 'paymentsLoaded'),
    });
    this.links = new ResourceController(host, {
      fetch: async (signal) => (await host.api.links.list({ limit: 100 }, { signal })).items,
      // The filter still works without the names (the list is the point): no banner for them.
      failed: () => {},
    });
    host.addController(this);
  }

  hostDisconnected(): void {
    this.cancelExport();
  }

  /** Loads the page shown, and (quietly: the list matters more) the links the link filter offers. */
  async load(quiet = false): Promise<void> {
    await Promise.all([this.list.load({ quiet }), this.links.load({ quiet: true })]);
  }

  /** Shows the payments of `link` only (from its detail), from page 1. The caller loads. */
  showLink(link: Pick<PaymentLink, 'id' | 'title'>): void {
    this.knownLinks.set(link.id, link.title);
    this.list.filters = { ...NO_PAYMENT_FILTERS, linkId: link.id };
    this.list.page = 1;
  }

  /** Shows the payments with exactly `reference` (an order's) only, from page 1. The caller loads. */
  showReference(reference: string): void {
    this.list.filters = { ...NO_PAYMENT_FILTERS, reference };
    this.list.page = 1;
  }

  /** Fetches every page of the filtered list and hands the CSV to the tab. One export at a time. */
  async export(): Promise<void> {
    if (this.exporting) return;
    const t = this.host.text.t.bind(this.host.text);
    const aborter = (this.exportAborter = new AbortController());
    this.exporting = { fetched: 0, total: this.list.data?.meta.totalItems ?? 0 };
    this.exportError = '';
    this.host.announce(t('exportStarted'));
    this.host.requestUpdate();
    try {
      // The filters as the list sends them (trimmed, empty ones left out), so the file holds what the list shows.
      const payments = await fetchAllPayments(this.host, paymentsQuery(this.list.query), aborter.signal, (fetched, total) => {
        this.exporting = { fetched, total };
        this.host.requestUpdate();
      });
      const file = { fileName: exportFileName(), csv: paymentsCsv(payments), count: payments.length };
      this.actions.exported(file);
      this.host.announce(t(file.count === 1 ? 'exportDoneOne' : 'exportDone', { count: this.host.text.count(file.count), file: file.fileName }));
    } catch (error) {
      if (aborter.signal.aborted || this.host.handleAuthError(error)) return;
      this.exportError = errorMessage(this.host.text, error);
      this.host.announce(this.exportError);
    } finally {
      if (this.exportAborter === aborter) {
        this.exporting = undefined;
        this.exportAborter = undefined;
      }
      this.host.requestUpdate();
    }
  }

  /** Stops an export in progress (the element left the page). */
  cancelExport(): void {
    this.exportAborter?.abort();
  }

  /** The link filter's choices, by title: the latest links and any named elsewhere. */
  private linkOptions(): FilterChoice[] {
    const options = new Map<string, string>(this.knownLinks);
    for (const link of this.links.data ?? []) options.set(link.id, link.title);
    const selected = this.list.filters.linkId;
    // A link named by id only (its title unknown here) still shows as chosen.
    if (selected && !options.has(selected)) options.set(selected, selected);
    return [...options].sort((a, b) => a[1].localeCompare(b[1], this.host.text.locale));
  }

  private columns(): TableColumn<CheckoutSessionRecord>[] {
    const text = this.host.text;
    const t = text.t.bind(text);
    return [
      {
        label: t('colAmount'),
        rowHeader: true,
        class: 'amount-cell',
        cell: (payment) =>
          html`${paymentButton(text, payment, (chosen) => this.actions.openPayment(chosen))}<span class="sub">${text.crypto(payment.cryptoAmount, payment.assetId)}</span>`,
      },
      { label: t('colStatus'), cell: (payment) => sessionBadge(text, payment.status) },
      { label: t('colLink'), class: 'link-cell', cell: (payment) => paidFor(text, payment) },
      { label: t('reference'), class: 'reference-cell', cell: (payment) => referenceCell(text, payment) },
      {
        label: t('colCustomer'),
        class: 'customer-cell',
        cell: ({ customer }) => {
          const lines = [customer.phone, customer.email].filter((line): line is string => !!line);
          if (!lines.length && customer.address) lines.push(customer.address.split('\n')[0]!);
          return lines.length ? lines.map((line, index) => (index ? html`<span class="sub">${line}</span>` : html`<span>${line}</span>`)) : '—';
        },
      },
      { label: t('colDate'), class: 'date', cell: (payment) => text.shortDateTime(payment.createdAt) },
    ];
  }

  private handleFilterSubmit(event: Event): void {
    event.preventDefault();
    void this.list.filter({});
  }

  private renderExport(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const progress = this.exporting;
    return html`${
      progress
        ? html`<p part="export-progress" class="hint">
            ${progress.total ? t('exporting', { fetched: text.count(progress.fetched), total: text.count(progress.total) }) : t('exportStarted')}
          </p>`
        : nothing
    }
      ${errorBox(text, this.exportError, { retry: () => this.export(), part: 'error export-error' })}`;
  }

  render(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const empty = this.list.data?.meta.totalItems === 0;
    return html`<section part="payments-list" aria-labelledby="payments-heading">
      <div class="toolbar">
        <h2 id="payments-heading" tabindex="-1">${t('paymentsTitle')}</h2>
        <button type="button" part="button export-csv" ?disabled=${!!this.exporting || empty} aria-describedby="payments-export-hint" @click=${() => this.export()}>
          ${this.exporting ? t('exportingShort') : t('exportCsv')}
        </button>
        <p id="payments-export-hint" class="visually-hidden">${t('exportHint')}</p>
        <button type="button" part="button show-refunds" class="ghost" @click=${() => this.actions.showRefunds()}>${t('refundsTitle')}</button>
      </div>
      ${this.renderExport()}
      <form part="payment-filters" class="filters payment-filters" role="search" aria-label=${t('filterPayments')} @submit=${(event: Event) => this.handleFilterSubmit(event)}>
        ${selectFilter(this.list, 'status', {
          id: 'pay-status',
          part: 'filter-payment-status',
          label: t('filterStatus'),
          any: t('statusAny'),
          choices: SESSION_STATUSES.map((status) => [status, t(`session_${status}`)]),
        })}
        ${selectFilter(this.list, 'linkId', {
          id: 'pay-link',
          part: 'filter-link',
          label: t('colLink'),
          any: t('linkAny'),
          choices: this.linkOptions(),
          class: 'field link-field',
        })}
        ${referenceFilter(text, this.list, 'pay-reference', 'filter-reference')}
        ${dayRangeFilter(text, this.list, ['pay-from', 'pay-to'], ['filter-payments-from', 'filter-payments-to'])}
        ${clearFiltersButton(text, this.list)}
      </form>
      ${pagedTable({
        host: this.host,
        list: this.list,
        label: t('paymentsTitle'),
        part: 'payments-table',
        rowPart: 'payment-row',
        columns: this.columns(),
        empty: t('noPayments'),
        emptyFiltered: t('noPaymentsMatch'),
        paginationPart: 'payments-pagination',
        counts: ['paymentsOne', 'paymentsCount'],
        heading: '#payments-heading',
      })}
    </section>`;
  }
}
