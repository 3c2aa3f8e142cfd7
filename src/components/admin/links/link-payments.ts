/**
 * The payments of one link, on its detail: the latest first, a few per page, each opening the
 * payment's detail, and a way to the payments tab filtered on the link (for its filters and export).
 */
import { html, type TemplateResult } from 'lit/html.js';
import type { CheckoutSessionRecord, PaymentLink } from '../../../core/schemas.js';
import type { AdminHost } from '../admin-context.js';
import { paymentButton, referenceCell, sessionBadge } from '../payments/payment-detail.js';
import { PagedResource } from '../resource-controller.js';
import { pagedTable, type TableColumn } from '../templates.js';

/** What the list asks of the link's detail. */
export interface LinkPaymentsActions {
  openPayment(payment: CheckoutSessionRecord): void;
  /** Opens the payments tab on this link's payments. */
  allPayments(): void;
}

export class LinkPaymentsController {
  /** The link's payments, newest first. */
  readonly list: PagedResource<CheckoutSessionRecord, { linkId: string }>;

  constructor(
    private readonly host: AdminHost,
    private readonly actions: LinkPaymentsActions,
  ) {
    this.list = new PagedResource<CheckoutSessionRecord, { linkId: string }>(host, {
      pageSize: 5,
      filters: { linkId: '' },
      fetch: ({ linkId, page, limit }, signal) => host.api.sessions.list({ linkId, page, limit }, { signal }),
    });
  }

  /** Shows the payments of `link`, from the first page when it is another link than before. */
  show(link: PaymentLink): Promise<void> {
    if (this.list.filters.linkId !== link.id) {
      this.list.filters = { linkId: link.id };
      this.list.page = 1;
      this.list.set(undefined);
    }
    return this.list.load();
  }

  private columns(): TableColumn<CheckoutSessionRecord>[] {
    const text = this.host.text;
    const t = text.t.bind(text);
    return [
      {
        label: t('colAmount'),
        rowHeader: true,
        cell: (payment) => paymentButton(text, payment, (chosen) => this.actions.openPayment(chosen)),
      },
      { label: t('colStatus'), cell: (payment) => sessionBadge(text, payment.status) },
      { label: t('reference'), cell: (payment) => referenceCell(text, payment) },
      { label: t('colDate'), class: 'date', cell: (payment) => text.shortDateTime(payment.createdAt) },
    ];
  }

  render(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    return html`<section part="link-payments" class="card link-payments" aria-labelledby="ld-payments">
      <div class="toolbar">
        <h3 id="ld-payments" tabindex="-1">${t('linkPaymentsTitle')}</h3>
        <button type="button" part="button all-link-payments" class="ghost" @click=${() => this.actions.allPayments()}>${t('allLinkPayments')}</button>
      </div>
      ${pagedTable({
        host: this.host,
        list: this.list,
        label: t('linkPaymentsTitle'),
        part: 'link-payments-table',
        rowPart: 'link-payment-row',
        columns: this.columns(),
        empty: t('noLinkPayments'),
        paginationPart: 'link-payments-pagination',
        heading: '#ld-payments',
      })}
    </section>`;
  }
}
