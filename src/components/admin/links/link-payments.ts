/**
 * The payments of one link, on its detail: the latest first, a few per page, each opening the
 * payment's detail, and a way to the payments tab filtered on the link (for its filters and export).
 * On a fundraiser each says its donor (name and message), with Hide where the donor is on the page.
 */
import { html, type TemplateResult } from 'lit/html.js';
import type { CheckoutSessionRecord, PaymentLink } from '../../../core/schemas.js';
import { errorMessage, type AdminHost } from '../admin-context.js';
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
  /** The link is a fundraiser: its payments are donations, with their donors. */
  private donation = false;

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
    this.donation = link.linkType === 'Donation';
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
      ...(this.donation ? [{ label: t('colDonor'), cell: (payment: CheckoutSessionRecord) => this.donor(payment) }] : []),
      { label: t('reference'), cell: (payment) => referenceCell(text, payment) },
      { label: t('colDate'), class: 'date', cell: (payment) => text.shortDateTime(payment.createdAt) },
    ];
  }

  /** A donation's donor: the name and message they gave, and Hide while they are shown on the link's page. */
  private donor(payment: CheckoutSessionRecord): TemplateResult {
    const t = this.host.text.t.bind(this.host.text);
    return html`${payment.donorName} <small>${payment.message}</small>
      ${
        payment.showPublicly && !payment.donorHiddenAt && payment.paidAt
          ? html`<button type="button" part="button hide-donor" @click=${() => this.hide(payment)}>${t('hideDonor')}</button>`
          : ''
      }`;
  }

  /** Takes a donor off the link's page (the gift still counts), then shows the list again. */
  private async hide(payment: CheckoutSessionRecord): Promise<void> {
    const { host } = this;
    try {
      await host.api.sessions.hideDonor(payment.id);
      host.announce(host.text.t('donorHidden'));
      await this.list.load();
    } catch (error) {
      if (!host.handleAuthError(error)) host.announce(errorMessage(host.text, error));
    }
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
