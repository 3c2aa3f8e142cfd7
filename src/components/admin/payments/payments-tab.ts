/**
 * The payments tab: the list of the merchant's payments and one payment's detail, and the moves
 * between them (focus on each screen's heading). A link's detail can open this tab on that link's
 * payments (`showLink`).
 */
import type { TemplateResult } from 'lit';
import type { CheckoutSessionRecord, PaymentLink } from '../../../core/schemas.js';
import type { AdminHost, AdminTab } from '../admin-context.js';
import type { NetworkDirectory } from '../networks.js';
import { PaymentDetailController } from './payment-detail.js';
import type { PaymentsExportDetail } from './payments-export.js';
import { PaymentsListController } from './payments-view.js';

/** What the payments tab asks of `<paylink-admin>`. */
export interface PaymentsTabOptions {
  /** Saves a finished export (a download, unless the page takes it). */
  exported(file: PaymentsExportDetail): void;
}

type Screen = 'list' | 'detail';

export class PaymentsTab implements AdminTab {
  readonly label = 'tabPayments';
  /** The screen shown. */
  screen: Screen = 'list';
  readonly payments: PaymentsListController;
  private readonly detail: PaymentDetailController;

  constructor(
    private readonly host: AdminHost,
    networks: NetworkDirectory,
    options: PaymentsTabOptions,
  ) {
    this.payments = new PaymentsListController(host, {
      openPayment: (payment) => this.showPayment(payment),
      exported: (file) => options.exported(file),
    });
    this.detail = new PaymentDetailController(host, networks, {
      backLabel: () => host.text.t('backToPayments'),
      back: () => this.showList(),
    });
  }

  async load(): Promise<void> {
    if (this.screen === 'detail') await Promise.all([this.payments.load(), this.detail.reload()]);
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

  render(): TemplateResult {
    return this.screen === 'detail' ? this.detail.render() : this.payments.render();
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
