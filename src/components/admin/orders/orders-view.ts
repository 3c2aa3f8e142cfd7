/**
 * The orders list: the orders the shop's server created (`POST /v1/order`), newest first, filtered by
 * status and reference (exact), with paging. Each row names its amount, status (with when it was paid
 * or cancelled, or until when it can be paid), reference, title and creation, opens the order's
 * hosted page, and shows its payments (the payments tab, filtered by its reference).
 * The admin creates no orders: a shop's server does, with its key.
 */
import { html, type TemplateResult } from 'lit/html.js';
import { ORDER_STATUSES } from '../../../core/rules/order.js';
import type { Order, OrderStatus } from '../../../core/schemas.js';
import type { AdminHost } from '../admin-context.js';
import { PagedResource } from '../resource-controller.js';
import { announcePage, clearFiltersButton, pagedTable, referenceFilter, selectFilter, type TableColumn } from '../templates.js';

/** The list's filters, as the merchant set them ('' for "any"). */
export type OrderFilters = { status: '' | OrderStatus; reference: string };

/** The badge tone of each order status (`.badge.success` and so on in the base styles). */
const TONES: Record<OrderStatus, string> = { open: 'waiting', paid: 'success', expired: 'expired', cancelled: 'closed' };

/** An order's status as a badge (`part="badge order-status status-paid"`). */
export function orderBadge(host: AdminHost, status: OrderStatus): TemplateResult {
  return html`<span part="badge order-status status-${status}" class="badge ${TONES[status]}">${host.text.t(`order_${status}`)}</span>`;
}

/** What the list asks of its tab. */
export interface OrdersListActions {
  /** Shows the payments of `order` (the payments tab, filtered by its reference). */
  showPayments(order: Order): void;
  /** Shows the refunds of `order`'s payments. */
  showRefunds(order: Order): void;
}

/** The orders list's state (page, filters, answer) and its rendering. */
export class OrdersListController {
  /** The orders shown, with their page and filters. */
  readonly list: PagedResource<Order, OrderFilters>;

  constructor(
    private readonly host: AdminHost,
    private readonly actions: OrdersListActions,
  ) {
    this.list = new PagedResource<Order, OrderFilters>(host, {
      pageSize: 20,
      filters: { status: '', reference: '' },
      // The query holds only the filters that are set (`PagedResource.query`): never an empty status.
      fetch: ({ status, ...query }, signal) => host.api.orders.list({ ...query, ...(status ? { status } : {}) }, { signal }),
      received: announcePage(host, 'ordersLoaded'),
    });
  }

  /** Loads the page shown; `quiet` (a return to the tab) keeps the table as it is until the answer arrives. */
  load(quiet = false): Promise<void> {
    return this.list.load({ quiet });
  }

  private columns(): TableColumn<Order>[] {
    const text = this.host.text;
    const t = text.t.bind(text);
    return [
      { label: t('colAmount'), rowHeader: true, class: 'num amount-cell', cell: (order) => text.money(order.fiatAmount, order.fiatCurrency) },
      {
        label: t('colStatus'),
        class: 'status-cell',
        // When it was paid or cancelled, or until when it can be paid (or could: an expired order).
        cell: (order) =>
          html`${orderBadge(this.host, order.status)}<span class="sub"
              >${
                order.status === 'open'
                  ? t('orderExpiresOn', { date: text.shortDateTime(order.expiresAt) })
                  : text.shortDateTime(order.paidAt ?? order.cancelledAt ?? order.expiresAt)
              }</span
            >`,
      },
      { label: t('reference'), class: 'reference-cell', cell: (order) => html`<span class="mono">${order.reference}</span>` },
      { label: t('colTitle'), class: 'title-cell', cell: (order) => order.title || html`<span class="muted">${t('untitledOrder')}</span>` },
      { label: t('colDate'), class: 'date', cell: (order) => text.shortDateTime(order.createdAt) },
      {
        label: t('colActions'),
        labelHidden: true,
        class: 'actions',
        cell: (order) => html`<div class="row-actions">
          <button type="button" part="button order-payments" class="ghost small" aria-label=${t('orderPaymentsNamed', { reference: order.reference })}
            @click=${() => this.actions.showPayments(order)}>${t('colPayments')}</button>
          ${
            order.refundedAmount != '0.000000'
              ? html`<button type="button" part="button order-refunds" class="ghost small" @click=${() => this.actions.showRefunds(order)}>${t('refundsTitle')}</button>`
              : ''
          }
          <a part="button order-page" href=${order.url} target="_blank" rel="noopener noreferrer"
            >${t('orderPage')}<span class="visually-hidden"> ${order.reference} ${t('opensNewTab')}</span></a
          >
        </div>`,
      },
    ];
  }

  render(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    return html`<section part="orders-list" aria-labelledby="orders-heading">
      <div class="toolbar">
        <h2 id="orders-heading" tabindex="-1">${t('ordersTitle')}</h2>
      </div>
      <p class="hint orders-intro">${t('ordersIntro')}</p>
      <form part="order-filters" class="filters order-filters" role="search" aria-label=${t('filterOrders')}
        @submit=${(event: Event) => {
          event.preventDefault();
          void this.list.filter({});
        }}>
        ${selectFilter(this.list, 'status', {
          id: 'order-status',
          part: 'filter-order-status',
          label: t('filterStatus'),
          any: t('statusAny'),
          choices: ORDER_STATUSES.map((status) => [status, t(`order_${status}`)]),
        })}
        ${referenceFilter(text, this.list, 'order-reference', 'filter-order-reference')}
        ${clearFiltersButton(text, this.list)}
      </form>
      ${pagedTable({
        host: this.host,
        list: this.list,
        label: t('ordersTitle'),
        part: 'orders-table',
        rowPart: 'order-row',
        columns: this.columns(),
        empty: t('noOrders'),
        emptyFiltered: t('noOrdersMatch'),
        paginationPart: 'orders-pagination',
        counts: ['ordersOne', 'ordersCount'],
        heading: '#orders-heading',
      })}
    </section>`;
  }
}
