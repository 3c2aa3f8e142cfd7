/**
 * The payments tab: the list of the merchant's payments, one payment's detail, and the refunds, and
 * the moves between them (focus on each screen's heading). A link's detail can open this tab on that
 * link's payments (`showLink`), the orders list on an order's refunds (`showRefunds`).
 */
import { html, type TemplateResult } from 'lit/html.js';
import type { CheckoutSessionRecord, PaymentLink } from '../../../core/schemas.js';
import { errorMessage, type AdminHost, type AdminTab } from '../admin-context.js';
import type { NetworkDirectory } from '../networks.js';
import { PaymentDetailController } from './payment-detail.js';
import type { PaymentsExportDetail } from './payments-export.js';
import { PaymentsListController } from './payments-view.js';
import { RefundsController, type RefundFilters } from '../refunds/refunds-view.js';
import { backButton } from '../templates.js';

/** What the payments tab asks of `<paylink-admin>`. */
export interface PaymentsTabOptions {
  /** Saves a finished export (a download, unless the page takes it). */
  exported(file: PaymentsExportDetail): void;
}

type Screen = 'list' | 'detail' | 'refunds';

export class PaymentsTab implements AdminTab {
  readonly label = 'tabPayments';
  /** The screen shown. */
  screen: Screen = 'list';
  readonly payments: PaymentsListController;
  private readonly detail: PaymentDetailController;
  private readonly refunds: RefundsController;

  constructor(
    private readonly host: AdminHost,
    networks: NetworkDirectory,
    options: PaymentsTabOptions,
  ) {
    this.payments = new PaymentsListController(host, {
      openPayment: (payment) => this.showPayment(payment),
      exported: (file) => options.exported(file),
      showRefunds: () => this.showRefunds(),
    });
    this.refunds = new RefundsController(
      host,
      () => {},
      (id) =>
        host.api.sessions.get(id).then(
          (payment) => this.showPayment(payment),
          (error) => {
            if (!host.handleAuthError(error)) this.refunds.list.error = errorMessage(host.text, error);
            host.requestUpdate();
          },
        ),
    );
    this.detail = new PaymentDetailController(host, networks, {
      backLabel: () => host.text.t('backToPayments'),
      back: () => this.showList(),
    });
  }

  async load(): Promise<void> {
    if (this.screen === 'detail') await Promise.all([this.payments.load(), this.detail.reload()]);
    else if (this.screen === 'refunds') await this.refunds.list.load();
    else await this.payments.load();
  }

  shown(visible: boolean): void {
    // Back on the tab: fresh statuses without a flash (unless a load asked for by a move is on its way).
    if (visible && !this.payments.list.loading) void this.payments.load(true);
  }

  /** Shows the payments of the merchant's `reference` (an order's), from page 1. The caller loads the tab. */
  showReference(reference: string): void {
    this.screen = 'list';
    this.payments.showReference(reference);
  }

  /** Shows the payments of `link` (from its detail), from page 1. The caller loads the tab. */
  showLink(link: Pick<PaymentLink, 'id' | 'title'>): void {
    this.screen = 'list';
    this.payments.showLink(link);
  }

  /** Shows the refunds (of an order, with its `orderId`), from page 1, and loads them. */
  showRefunds(filters: Partial<RefundFilters> = {}): void {
    this.screen = 'refunds';
    void this.refunds.show(filters);
    this.host.focusAfterRender('#refunds-heading');
  }

  render(): TemplateResult {
    return this.screen === 'detail'
      ? this.detail.render()
      : this.screen === 'refunds'
        ? this.refunds.render(backButton(this.host.text.t('backToPayments'), () => this.showList()))
        : this.payments.render();
  }

  private showList(): void {
    this.screen = 'list';
    this.host.requestUpdate();
    this.host.focusAfterRender('#payments-heading');
  }

  private showPayment(payment: CheckoutSessionRecord): void {
    this.screen = 'detail';
    this.detail.show(payment);
    this.host.focusAfterRender('#payment-detail-heading');
  }
}
