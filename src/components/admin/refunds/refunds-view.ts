/**
 * Refunds in the admin, one controller for every place that shows them: a payment's detail (its
 * refunds, Refund: all that is left or part of it, to an address or through a claim link to copy; and
 * Accept as paid for an underpaid or late payment) and the Refunds screen of the payments tab (every
 * refund, by status, or an order's; each opening its payment). A refund awaiting the customer's
 * address has its claim link to copy and Cancel. Kept small on purpose: `dist/paylink.js` carries it.
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import { fromUnits, toUnits } from '../../../core/money.js';
import { CRYPTO_DIGITS } from '../../../core/rules/limits.js';
import { REFUND_STATUSES, checkRefund } from '../../../core/rules/refund.js';
import type { CheckoutSessionRecord, Refund, RefundStatus } from '../../../core/schemas.js';
import { copyToClipboard, errorMessage, newIdempotencyKey, normalizeAmount, type AdminHost } from '../admin-context.js';
import { describedBy, fieldError, ifDefined, invalid } from '../fields.js';
import { PagedResource } from '../resource-controller.js';
import { errorBox, pagedTable, selectFilter } from '../templates.js';

/** The list's filters ('' for "any"). */
export type RefundFilters = { status: '' | RefundStatus; sessionId: string; orderId: string };

/** What a payment can still give back, as its detail reckons it: what came in less its refunds (the service has the last word); '' for nothing. */
export function refundable({ paidAmount, lateAmount, refundedAmount }: CheckoutSessionRecord): string {
  const units = (amount: string) => toUnits(amount, CRYPTO_DIGITS);
  const left = units(paidAmount) + units(lateAmount) - units(refundedAmount);
  return left > 0n ? fromUnits(left, CRYPTO_DIGITS) : '';
}

export class RefundsController {
  /** The refunds shown, with their page and filters. */
  readonly list: PagedResource<Refund, RefundFilters>;
  /** A claim link shown whole, to copy or select: the refund just made, or one the merchant asked to copy. */
  link = '';
  /** Why the last action failed, or ''. */
  private error = '';
  /** The refund form is open, with its Idempotency-Key (one per opening: a retry of the same form refunds once). */
  private key = '';
  private amount = '';
  private address = '';
  private errors: { amount?: string; address?: string } = {};

  /**
   * `changed` is told when a refund was made or cancelled, or a payment accepted; `openPayment` (the
   * Refunds screen) opens the payment a refund gives back.
   */
  constructor(
    private readonly host: AdminHost,
    private readonly changed: () => unknown,
    private readonly openPayment?: (sessionId: string) => unknown,
  ) {
    this.list = new PagedResource<Refund, RefundFilters>(host, {
      pageSize: openPayment ? 20 : 5,
      filters: { status: '', sessionId: '', orderId: '' },
      fetch: (query, signal) => host.api.refunds.list(query as never, { signal }),
    });
  }

  /** Shows the refunds matching `filters` (of a payment, an order, or all) from page 1, and loads them. */
  show(filters: Partial<RefundFilters>): Promise<void> {
    this.list.filters = { status: '', sessionId: '', orderId: '', ...filters };
    this.list.page = 1;
    this.link = this.key = this.error = '';
    return this.list.load();
  }

  /** Runs an action; what it changed is read again, and why it failed is shown and said. */
  private async act(work: () => Promise<unknown>): Promise<void> {
    this.error = '';
    try {
      await work();
      this.changed();
      await this.list.load();
    } catch (error) {
      if (this.host.handleAuthError(error)) return;
      this.host.announce((this.error = errorMessage(this.host.text, error)));
    }
    this.host.requestUpdate();
  }

  private copy(url: string): Promise<boolean> {
    this.link = url;
    return copyToClipboard(this.host, url, this.host.text.t('copiedUrl'), '#claim-link', () => {});
  }

  private submit(event: Event, payment: CheckoutSessionRecord): void {
    event.preventDefault();
    const t = this.host.text.t.bind(this.host.text);
    const amount = normalizeAmount(this.amount, this.host.text.decimalSeparator);
    const address = this.address.trim();
    const check = checkRefund({ amount: amount || undefined, address });
    this.errors = {};
    if (!check.ok) {
      for (const { path, key, params } of check.errors) this.errors[path as 'amount'] ??= t(key, { example: '25.5', digits: CRYPTO_DIGITS, ...params });
      this.host.focusAfterRender('[part~="refund-form"] [aria-invalid="true"]');
      this.host.requestUpdate();
      return;
    }
    void this.act(async () => {
      const refund = await this.host.api.refunds.create(
        { sessionId: payment.id, ...(amount ? { amount } : {}), ...(address ? { address } : {}) },
        { idempotencyKey: this.key },
      );
      this.key = '';
      this.link = refund.claimUrl ?? '';
      this.host.announce(`${t('refund')}: ${this.host.text.crypto(refund.amount, refund.assetId)}, ${t(`status_${refund.status}`)}`);
      this.host.focusAfterRender(this.link ? '#claim-link' : '#pd-refunds');
    });
  }

  /** The table of the refunds, with the claim link to copy above it. */
  private renderTable(label: string, heading: string): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const open = this.openPayment;
    return html`${errorBox(text, this.error, { part: 'form-error' })}
      ${
        this.link
          ? html`<div part="claim-link" class="field">
            <label for="claim-link">${t('claimLink')}</label>
            <div class="copy-row">
              <input id="claim-link" readonly .value=${this.link} />
              <button type="button" part="button copy-claim-link" @click=${() => this.copy(this.link)}>${t('copyUrl')}</button>
            </div>
          </div>`
          : nothing
      }
      ${pagedTable({
        host: this.host,
        list: this.list,
        label,
        part: 'refunds-table',
        rowPart: 'refund-row',
        columns: [
          {
            label: t('colAmount'),
            rowHeader: true,
            cell: (refund) => {
              const amount = text.crypto(refund.amount, refund.assetId);
              return open
                ? html`<button type="button" part="open-payment" class="link-button" aria-label=${t('openPayment', { amount, date: text.shortDateTime(refund.createdAt) })}
                    @click=${() => open(refund.sessionId)}>${amount}</button>`
                : amount;
            },
          },
          {
            label: t('colStatus'),
            cell: ({ status, failureReason, address }) =>
              html`<span part="badge refund-status" class="badge ${status}">${t(`status_${status}`)}</span><span class="sub mono">${failureReason ?? address}</span>`,
          },
          { label: t('colDate'), class: 'date', cell: (refund) => text.shortDateTime(refund.createdAt) },
          {
            label: t('colActions'),
            labelHidden: true,
            class: 'actions',
            cell: (refund) =>
              refund.status == 'awaiting_address'
                ? html`<div class="row-actions">
                    ${refund.claimUrl ? html`<button type="button" part="button copy-refund-link" class="small" @click=${() => this.copy(refund.claimUrl!)}>${t('copyUrl')}</button>` : nothing}
                    <button type="button" part="button cancel-refund" class="ghost small" @click=${() => this.act(() => this.host.api.refunds.cancel(refund.id))}>${t('cancel')}</button>
                  </div>`
                : nothing,
          },
        ],
        empty: t('noRefunds'),
        heading,
      })}`;
  }

  /** The Refunds screen of the payments tab: its status filter and the list. */
  render(back: TemplateResult): TemplateResult {
    const t = this.host.text.t.bind(this.host.text);
    return html`<section part="refunds-list" aria-labelledby="refunds-heading">
      ${back}
      <h2 id="refunds-heading" tabindex="-1">${t('refundsTitle')}</h2>
      <div class="filters">
        ${selectFilter(this.list, 'status', {
          id: 'refund-status',
          part: 'filter-refund-status',
          label: t('filterStatus'),
          any: t('statusAny'),
          choices: REFUND_STATUSES.map((status) => [status, t(`status_${status}`)]),
        })}
      </div>
      ${this.renderTable(t('refundsTitle'), '#refunds-heading')}
    </section>`;
  }

  /** A payment's refunds on its detail, with Refund and, for an underpaid or late payment, Accept as paid. */
  renderPayment(payment: CheckoutSessionRecord): TemplateResult {
    const t = this.host.text.t.bind(this.host.text);
    const left = refundable(payment);
    const { id, status, assetId } = payment;
    // Money came in, but not the whole price in time: the merchant may accept it as paid.
    const resolvable = left && !payment.resolution && (status == 'underpaid' || status == 'expired');
    const field = (name: 'amount' | 'address', label: string, hint: string) => {
      const error = this.errors[name];
      return html`<div class="field">
        <label for="rf-${name}">${label}</label>
        <input id="rf-${name}" autocomplete="off" .value=${this[name]} aria-invalid=${ifDefined(invalid(error))} aria-describedby=${ifDefined(describedBy(`rf-${name}`, error, true))}
          @input=${(event: Event) => (this[name] = (event.target as HTMLInputElement).value)} />
        <p id="rf-${name}-hint" class="hint">${hint}</p>
        ${fieldError(`rf-${name}`, error)}
      </div>`;
    };
    return html`<section part="refunds" class="card span-all" aria-labelledby="pd-refunds">
      <div class="toolbar">
        <h3 id="pd-refunds" tabindex="-1">${t('refundsTitle')}</h3>
        ${
          resolvable
            ? html`<button type="button" part="button resolve" @click=${() => confirm(t('resolveConfirm')) && this.act(() => this.host.api.sessions.resolve(id))}>
              ${t('resolve')}
            </button>`
            : nothing
        }
        ${
          left && !this.key
            ? html`<button type="button" part="button refund" @click=${() => {
                this.key = newIdempotencyKey();
                this.amount = this.address = '';
                this.errors = {};
                this.host.focusAfterRender('#rf-amount');
              }}>${t('refund')}</button>`
            : nothing
        }
      </div>
      ${
        this.key
          ? html`<form part="refund-form" class="filters" novalidate @submit=${(event: Event) => this.submit(event, payment)}>
            ${field('amount', `${t('amount')} (${assetId})`, t('refundUpTo', { amount: this.host.text.crypto(left, assetId) }))}
            ${field('address', t('address'), t('refundAddressHint', { network: payment.networkName }))}
            <button type="submit" part="button primary submit-refund" class="primary">${t('refund')}</button>
          </form>`
          : nothing
      }
      ${this.renderTable(t('refundsTitle'), '#pd-refunds')}
    </section>`;
  }
}
