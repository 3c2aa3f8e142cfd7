/**
 * One payment (a checkout session) in detail: what the customer gave (delivery address, phone,
 * email), the amounts (price, crypto due, received, received late, refunded, the exchange rate of the
 * quote with its sources and time, what each code of it was made of: every source's value then, ✗ on
 * those dropped, and the way to the rates as they stand), its order (if it pays one), the merchant's
 * reference and metadata, what the page said (`clientReference`, marked as the page's word), the network
 * it was paid on when another than the one quoted, when its money became final, every transfer with a
 * link to its page on its network's explorer, and its refunds with Refund and Accept as paid
 * (`../refunds/refunds-view.ts`). Shown from the payments list and from a link's detail; the owner says
 * where "back" goes.
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import { compareDecimal } from '../../../core/money.js';
import { isEmail } from '../../../core/rules/customer.js';
import { assetName } from '../../../internal/localize.js';
import type { CheckoutSessionRecord, SessionStatus, SessionTransfer } from '../../../core/schemas.js';
import type { AdminHost, AdminText } from '../admin-context.js';
import type { NetworkDirectory } from '../networks.js';
import { RefundsController } from '../refunds/refunds-view.js';
import { ResourceController } from '../resource-controller.js';
import { backButton, errorBox, itemsTable, loadingPlaceholder } from '../templates.js';

/** The badge tone of each session status (`.badge.success` and so on in the base styles). */
const TONES: Record<SessionStatus, string> = {
  awaiting_payment: 'waiting',
  confirming: 'processing',
  paid: 'success',
  overpaid: 'success',
  underpaid: 'pending',
  expired: 'expired',
  reversed: 'failed',
};

/** A session's status as a badge (`part="badge session-status status-paid"`). */
export function sessionBadge(text: AdminText, status: SessionStatus): TemplateResult {
  return html`<span part="badge session-status status-${status}" class="badge ${TONES[status]}">${text.t(`session_${status}`)}</span>`;
}

/** What a payment is for: its link's title, or an order badge (an order's sessions have no link). */
export function paidFor(text: AdminText, payment: CheckoutSessionRecord): TemplateResult | string {
  return payment.linkTitle ?? html`<span part="badge order-badge" class="badge waiting">${text.t('orderLabel')}</span>`;
}

/**
 * A payment's reference in a list: the merchant's (an order's), else what the page said, marked as
 * such (anyone can change a page), else a dash.
 */
export function referenceCell(text: AdminText, payment: CheckoutSessionRecord): TemplateResult | string {
  if (payment.reference) return html`<span class="mono">${payment.reference}</span>`;
  if (payment.clientReference)
    return html`<span part="client-reference" class="sub" title=${text.t('clientReferenceHint')}
      >${text.t('clientReference')}: <span class="mono">${payment.clientReference}</span></span
    >`;
  return '—';
}

/** The button that opens a payment from a list: its amount, named with its date for screen readers. */
export function paymentButton(text: AdminText, payment: CheckoutSessionRecord, open: (payment: CheckoutSessionRecord) => void): TemplateResult {
  const amount = text.money(payment.fiatAmount, payment.fiatCurrency);
  return html`<button type="button" part="open-payment" class="link-button" aria-label=${text.t('openPayment', { amount, date: text.shortDateTime(payment.createdAt) })}
    @click=${() => open(payment)}>${amount}</button>`;
}

/**
 * A customer's email as a `mailto:` link when it is an address and nothing else; otherwise as text. A
 * value stored before the rule (`shop@example.com?bcc=…`) would make a link that writes to others too.
 */
function emailLink(email: string): TemplateResult {
  return isEmail(email) ? html`<a href=${`mailto:${email.trim()}`}>${email}</a>` : html`<span class="address-text">${email}</span>`;
}

/** What the detail asks of its owner. */
export interface PaymentDetailActions {
  /** The text of the back button (`All payments`, `Back to <link>`). */
  backLabel(): string;
  back(): void;
}

export class PaymentDetailController {
  /** The payment shown: set at once from a list, then read again for its latest state. */
  readonly resource: ResourceController<CheckoutSessionRecord>;
  /** Its refunds, Refund and Accept as paid. */
  private readonly refunds: RefundsController;

  constructor(
    private readonly host: AdminHost,
    private readonly networks: NetworkDirectory,
    private readonly actions: PaymentDetailActions,
  ) {
    this.resource = new ResourceController(host, {
      fetch: (signal) => host.api.sessions.get(this.resource.data!.id, { signal }),
    });
    this.refunds = new RefundsController(host, () => this.resource.load({ quiet: true }));
  }

  /** The payment shown, if any. */
  get payment(): CheckoutSessionRecord | undefined {
    return this.resource.data;
  }

  /** Shows `payment` at once and reads it again from the service (and the explorers, once). */
  show(payment: CheckoutSessionRecord): void {
    this.resource.set(payment);
    void this.refunds.show({ sessionId: payment.id });
    void this.reload();
  }

  /** Loads the payment shown again, with its refunds. */
  async reload(): Promise<void> {
    if (!this.resource.data) return;
    await Promise.all([this.resource.load(), this.networks.load(), this.refunds.list.load()]);
  }

  /** The name of network `id`: the session's own, or as the service names it. */
  private networkName(payment: CheckoutSessionRecord, id: string): string {
    return id === payment.blockchainId ? payment.networkName : (this.networks.networks?.find((network) => network.id === id)?.name ?? id);
  }

  private transaction(payment: CheckoutSessionRecord, transfer: SessionTransfer): TemplateResult {
    const t = this.host.text.t.bind(this.host.text);
    // A transfer is on its own network: any configured one pays the session.
    const url = this.networks.transactionUrl(transfer.blockchainId, transfer.txHash);
    const hash = html`<span class="mono hash">${transfer.txHash}</span>`;
    return url
      ? html`<a part="explorer-link" href=${url} target="_blank" rel="noopener noreferrer"
          >${hash}<span class="visually-hidden"> – ${t('viewOnExplorer', { network: this.networkName(payment, transfer.blockchainId) })} ${t('opensNewTab')}</span></a
        >`
      : html`<span part="tx-hash">${hash}</span>`;
  }

  private renderTransfers(payment: CheckoutSessionRecord): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const explorer = payment.transfers.some((transfer) => this.networks.transactionUrl(transfer.blockchainId, transfer.txHash));
    const noExplorer = explorer ? undefined : this.networks.noExplorerReason(payment.blockchainId);
    // A plain block, not a landmark: the table's own scrolling region already carries this name.
    return html`<div part="transactions" class="card span-all">
      <h3 id="pd-transactions">${t('transactionsTitle')}</h3>
      ${
        payment.transfers.length === 0
          ? html`<p part="empty" class="hint">${t('noTransactions')}</p>`
          : html`${itemsTable({
              items: payment.transfers,
              label: t('transactionsTitle'),
              part: 'transactions-table',
              rowPart: 'transaction-row',
              columns: [
                { label: t('colTx'), rowHeader: true, class: 'tx-cell', cell: (transfer) => this.transaction(payment, transfer) },
                { label: t('colAmount'), class: 'num', cell: (transfer) => text.crypto(transfer.amount, payment.assetId) },
                {
                  label: t('colConfirmed'),
                  cell: (transfer) =>
                    html`${transfer.confirmedAt ? text.shortDateTime(transfer.confirmedAt) : t('awaitingConfirmations')}
                    ${transfer.late ? html`<span part="badge late" class="badge pending" title=${t('lateHint')}>${t('lateTransfer')}</span>` : nothing}`,
                },
              ],
            })}
            ${
              noExplorer
                ? html`<p part="no-explorer" class="hint">${t(noExplorer.key, { network: payment.networkName, chainId: noExplorer.chainId })}</p>`
                : nothing
            }`
      }
    </div>`;
  }

  render(): TemplateResult {
    const payment = this.payment;
    const text = this.host.text;
    const t = text.t.bind(text);
    if (!payment) return loadingPlaceholder(text);
    const { customer } = payment;
    const detail = (label: string, value: unknown, part = '') => html`<div><dt>${label}</dt><dd part=${part || nothing}>${value}</dd></div>`;
    const notGiven = html`<span class="muted">${t('notGiven')}</span>`;
    const late = compareDecimal(payment.lateAmount, '0') > 0;
    const metadata = Object.entries(payment.metadata);
    const phoneHref = customer.phone ? `tel:${customer.phone.replace(/[^+\d]/g, '')}` : '';
    return html`<article part="payment-detail" class="detail payment-detail" aria-labelledby="payment-detail-heading" aria-busy=${this.resource.loading ? 'true' : 'false'}>
      ${backButton(this.actions.backLabel(), () => this.actions.back())}
      <header class="detail-head">
        <div>
          <h2 id="payment-detail-heading" tabindex="-1">${t('paymentOf', { amount: text.money(payment.fiatAmount, payment.fiatCurrency) })}</h2>
          <p class="meta">
            ${sessionBadge(text, payment.status)}
            <span part="payment-link">${paidFor(text, payment)}</span>
            ${payment.reference ? html`<span part="payment-reference">${t('reference')}: <strong>${payment.reference}</strong></span>` : nothing}
            <span>${t('createdOn', { date: text.shortDateTime(payment.createdAt) })}</span>
          </p>
        </div>
      </header>
      ${errorBox(text, this.resource.error, { retry: () => this.reload() })}
      <div class="payment-grid">
        <section part="customer" class="card" aria-labelledby="pd-customer">
          <h3 id="pd-customer">${t('customerTitle')}</h3>
          ${
            customer.address === null && customer.phone === null && customer.email === null
              ? html`<p class="hint">${t('noCustomerDetails')}</p>`
              : html`<dl class="facts">
                ${detail(t('deliveryAddress'), customer.address === null ? notGiven : html`<span class="address-text">${customer.address}</span>`, 'customer-address')}
                ${detail(t('phone'), customer.phone === null ? notGiven : html`<a href=${phoneHref}>${customer.phone}</a>`, 'customer-phone')}
                ${detail(t('email'), customer.email === null ? notGiven : emailLink(customer.email), 'customer-email')}
              </dl>`
          }
        </section>
        <section part="amounts" class="card" aria-labelledby="pd-amounts">
          <h3 id="pd-amounts">${t('amountsTitle')}</h3>
          <dl class="facts">
            ${detail(t('price'), text.money(payment.fiatAmount, payment.fiatCurrency), 'fiat-amount')}
            ${detail(t('amountDue'), html`${text.crypto(payment.cryptoAmount, payment.assetId)} <span class="sub">${payment.networkName}</span>`, 'crypto-amount')}
            ${detail(t('received'), text.crypto(payment.paidAmount, payment.assetId), 'paid-amount')}
            ${late ? detail(t('receivedLate'), text.crypto(payment.lateAmount, payment.assetId), 'late-amount') : nothing}
            ${compareDecimal(payment.refundedAmount, '0') > 0 ? detail(t('refundsTitle'), text.crypto(payment.refundedAmount, payment.assetId), 'refunded-amount') : nothing}
            ${payment.resolvedAt ? detail(t('resolved'), text.shortDateTime(payment.resolvedAt), 'resolved-at') : nothing}
            ${
              payment.rate && payment.rateSource && payment.rateAt
                ? detail(
                    t('exchangeRate'),
                    html`${text.rate(payment.rate, payment.assetId, payment.fiatCurrency)}
                    <span class="sub">${t('rateDetail', {
                      rate: text.number(payment.rate, { maximumFractionDigits: 24 }),
                      asset: assetName(payment.assetId),
                      currency: payment.fiatCurrency,
                      source: payment.rateSource,
                      date: text.shortDateTime(payment.rateAt),
                    })}</span>
                    ${payment.rateBasis?.map(
                      (basis) =>
                        html`<span part="rate-basis" class="sub"
                          >${basis.pair} ${text.number(basis.perUsd, { maximumSignificantDigits: 8 })}:
                          ${basis.sources.map((source) => `${source.source} ${text.number(source.perUsd, { maximumSignificantDigits: 8 })}${source.used ? '' : ' ✗'}`).join(', ')}</span
                        >`,
                    )}
                    <button type="button" part="button show-rates" class="link-button" @click=${() => this.host.showRates?.()}>${t('tabRates')}</button>`,
                    'exchange-rate',
                  )
                : nothing
            }
            ${detail(t('payAddress'), html`<span class="mono">${payment.payAddress}</span>`, 'pay-address')}
            ${
              payment.paidBlockchainId && payment.paidBlockchainId !== payment.blockchainId
                ? detail(t('paidOn'), this.networkName(payment, payment.paidBlockchainId), 'paid-network')
                : nothing
            }
            ${payment.paidAt ? detail(t('paidAt'), text.shortDateTime(payment.paidAt), 'paid-at') : detail(t('expiresAt'), text.shortDateTime(payment.expiresAt), 'expires-at')}
            ${payment.finalizedAt ? detail(t('finalizedAt'), text.shortDateTime(payment.finalizedAt), 'finalized-at') : nothing}
          </dl>
        </section>
        <section part="tags" class="card" aria-labelledby="pd-tags">
          <h3 id="pd-tags">${t('referenceTitle')}</h3>
          <dl class="facts">
            ${payment.orderId ? detail(t('orderLabel'), html`<span class="mono">${payment.orderId}</span>`, 'order-id') : nothing}
            ${detail(t('reference'), payment.reference ?? notGiven, 'reference')}
            ${
              payment.clientReference
                ? detail(
                    t('clientReference'),
                    html`<span class="mono">${payment.clientReference}</span><span class="sub">${t('clientReferenceHint')}</span>`,
                    'client-reference',
                  )
                : nothing
            }
            ${detail(
              t('metadata'),
              metadata.length
                ? html`<dl part="metadata" class="metadata">
                    ${metadata.map(([key, value]) => html`<div><dt class="mono">${key}</dt><dd>${value}</dd></div>`)}
                  </dl>`
                : html`<span class="muted">${t('noMetadata')}</span>`,
            )}
          </dl>
        </section>
        ${this.renderTransfers(payment)} ${this.refunds.renderPayment(payment)}
      </div>
    </article>`;
  }
}
