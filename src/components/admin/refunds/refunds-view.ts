/**
 * Refunds in the admin: one list controller for every place that shows them (the Refunds screen of the
 * payments tab, filtered by status or by an order; a payment's own refunds on its detail), with their
 * status, where each goes, the claim link to copy while one awaits the customer's address, and Cancel
 * then; and the payment detail's actions: Refund (all of what is left, or part of it; to an address, or
 * through a claim link) and Accept as paid (`resolve`) for an underpaid or late payment.
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import { compareDecimal, fromUnits, toUnits } from '../../../core/money.js';
import { REFUND_STATUSES, checkRefund } from '../../../core/rules/refund.js';
import { CRYPTO_DIGITS } from '../../../core/rules/limits.js';
import type { CheckoutSessionRecord, Refund, RefundStatus } from '../../../core/schemas.js';
import { copyToClipboard, errorMessage, newIdempotencyKey, normalizeAmount, type AdminHost } from '../admin-context.js';
import { describedBy, fieldError, ifDefined, invalid } from '../fields.js';
import { PagedResource } from '../resource-controller.js';
import { errorBox, pagedTable, selectFilter } from '../templates.js';

/** The list's filters ('' for "any"). */
export type RefundFilters = { status: '' | RefundStatus; sessionId: string; orderId: string };

/** What a list of refunds asks of its owner. */
export interface RefundsActions {
  /** A refund changed (made, cancelled): what shows the payment's amounts reads it again. */
  changed(): void;
  /** Opens the payment a refund gives back (the Refunds screen only). */
  openPayment?(sessionId: string): void;
}

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

  constructor(
    private readonly host: AdminHost,
    private readonly actions: RefundsActions,
    pageSize = 20,
  ) {
    this.list = new PagedResource<Refund, RefundFilters>(host, {
      pageSize,
      filters: { status: '', sessionId: '', orderId: '' },
      fetch: (query, signal) => host.api.refunds.list(query as never, { signal }),
    });
  }

  /** Shows the refunds matching `filters` from page 1, and loads them. */
  show(filters: Partial<RefundFilters>): Promise<void> {
    this.list.filters = { status: '', sessionId: '', orderId: '', ...filters };
    this.list.page = 1;
    this.link = '';
    return this.list.load();
  }

  private async copy(url: string): Promise<void> {
    this.link = url;
    await copyToClipboard(this.host, url, this.host.text.t('copiedUrl'), '#claim-link', () => {});
  }

  private async cancel(refund: Refund): Promise<void> {
    try {
      await this.host.api.refunds.cancel(refund.id);
      this.link = '';
      this.actions.changed();
      await this.list.load();
    } catch (error) {
      if (!this.host.handleAuthError(error)) this.list.error = errorMessage(this.host.text, error);
      this.host.requestUpdate();
    }
  }

  /** The claim link to copy, in a field (selected for a manual copy where the clipboard is not allowed). */
  renderLink(): TemplateResult | typeof nothing {
    const t = this.host.text.t.bind(this.host.text);
    return this.link
      ? html`<div part="claim-link" class="field">
          <label for="claim-link">${t('claimLink')}</label>
          <div class="copy-row">
            <input id="claim-link" readonly class="mono" .value=${this.link} />
            <button type="button" part="button copy-claim-link" @click=${() => this.copy(this.link)}>${t('copyUrl')}</button>
          </div>
        </div>`
      : nothing;
  }

  /** The table of the refunds, with the claim link above it. */
  renderTable(label: string, heading: string): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const open = this.actions.openPayment;
    return html`${this.renderLink()}
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
          class: 'num',
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
          cell: (refund) =>
            html`<span part="badge refund-status status-${refund.status}" class="badge ${refund.status}">${t(`status_${refund.status}`)}</span>
              <span class="sub mono">${refund.failureReason ?? refund.address ?? ''}</span>`,
        },
        { label: t('colDate'), class: 'date', cell: (refund) => text.shortDateTime(refund.createdAt) },
        {
          label: t('colActions'),
          labelHidden: true,
          class: 'actions',
          cell: (refund) =>
            refund.status == 'awaiting_address'
              ? html`<div class="row-actions">
                  ${refund.claimUrl
                    ? html`<button type="button" part="button copy-refund-link" class="small" @click=${() => this.copy(refund.claimUrl!)}>${t('copyUrl')}</button>`
                    : nothing}
                  <button type="button" part="button cancel-refund" class="ghost small" @click=${() => this.cancel(refund)}>${t('cancel')}</button>
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
      <div part="refund-filters" class="filters" role="group" aria-label=${t('refundsTitle')}>
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
}

/**
 * The payment detail's refunds: its refunds, Refund (a form: the amount, all that is left by default;
 * an address, or none for a claim link) and Accept as paid for a payment that is underpaid or came late.
 */
export class PaymentRefunds {
  readonly refunds: RefundsController;
  /** The form is open, with one Idempotency-Key per opening (a retry of the same form refunds once). */
  private key = '';
  private amount = '';
  private address = '';
  private errors: { amount?: string; address?: string } = {};
  private error = '';
  private busy = false;

  constructor(
    private readonly host: AdminHost,
    private readonly payment: () => CheckoutSessionRecord | undefined,
    private readonly changed: () => void,
  ) {
    this.refunds = new RefundsController(host, { changed: () => this.changed() }, 5);
  }

  /** Shows the refunds of the payment on screen (a new payment closes the form). */
  show(sessionId: string): Promise<void> {
    this.key = '';
    this.error = '';
    return this.refunds.show({ sessionId });
  }

  private async run(work: () => Promise<unknown>): Promise<void> {
    this.busy = true;
    this.error = '';
    this.host.requestUpdate();
    try {
      await work();
      this.changed();
    } catch (error) {
      if (!this.host.handleAuthError(error)) this.error = errorMessage(this.host.text, error);
      this.host.announce(this.error);
    } finally {
      this.busy = false;
      this.host.requestUpdate();
    }
  }

  private submit(event: Event, payment: CheckoutSessionRecord): void {
    event.preventDefault();
    const t = this.host.text.t.bind(this.host.text);
    const amount = normalizeAmount(this.amount, this.host.text.decimalSeparator);
    const address = this.address.trim();
    const check = checkRefund({ amount: amount || undefined, address });
    this.errors = {};
    if (!check.ok) {
      for (const error of check.errors) this.errors[error.path as 'amount'] ??= t(error.key, { example: '25.5', digits: CRYPTO_DIGITS, ...error.params });
      this.host.focusAfterRender('[part~="refund-form"] [aria-invalid="true"]');
      this.host.requestUpdate();
      return;
    }
    void this.run(async () => {
      const refund = await this.host.api.refunds.create(
        { sessionId: payment.id, ...(amount ? { amount } : {}), ...(address ? { address } : {}) },
        { idempotencyKey: this.key },
      );
      this.key = '';
      this.refunds.link = refund.claimUrl ?? '';
      this.host.announce(`${t('refund')}: ${this.host.text.crypto(refund.amount, refund.assetId)} · ${t(`status_${refund.status}`)}`);
      this.host.focusAfterRender(refund.claimUrl ? '#claim-link' : '#pd-refunds');
      await this.refunds.list.load();
    });
  }

  private renderForm(payment: CheckoutSessionRecord, left: string): TemplateResult {
    const t = this.host.text.t.bind(this.host.text);
    const field = (id: string, name: 'amount' | 'address', label: string, hint: string) =>
      html`<div class="field">
        <label for=${id}>${label}</label>
        <input id=${id} class=${name == 'address' ? 'mono' : ''} autocomplete="off" spellcheck="false" inputmode=${name == 'amount' ? 'decimal' : 'text'}
          placeholder=${name == 'amount' ? left : ''} .value=${this[name]} aria-invalid=${ifDefined(invalid(this.errors[name]))}
          aria-describedby=${ifDefined(describedBy(id, this.errors[name], true))}
          @input=${(event: Event) => {
            this[name] = (event.target as HTMLInputElement).value;
            this.errors = { ...this.errors, [name]: undefined };
          }} />
        <p id="${id}-hint" class="hint">${hint}</p>
        ${fieldError(id, this.errors[name])}
      </div>`;
    return html`<form part="refund-form" class="filters" novalidate @submit=${(event: Event) => this.submit(event, payment)}>
      ${field('rf-amount', 'amount', `${t('amount')} (${payment.assetId})`, t('refundUpTo', { amount: this.host.text.crypto(left, payment.assetId) }))}
      ${field('rf-address', 'address', t('address'), t('refundAddressHint', { network: payment.networkName }))}
      <button type="submit" part="button primary submit-refund" class="primary" ?disabled=${this.busy}>${t('refund')}</button>
    </form>`;
  }

  render(payment: CheckoutSessionRecord): TemplateResult {
    const t = this.host.text.t.bind(this.host.text);
    const left = refundable(payment);
    const came = compareDecimal(payment.paidAmount, '0') > 0 || compareDecimal(payment.lateAmount, '0') > 0;
    // Underpaid, or paid after its quote ran out: the merchant may accept it as paid.
    const resolvable = came && !payment.resolution && (payment.status == 'underpaid' || payment.status == 'expired');
    return html`<section part="refunds" class="card span-all" aria-labelledby="pd-refunds">
      <div class="toolbar">
        <h3 id="pd-refunds" tabindex="-1">${t('refundsTitle')}</h3>
        ${resolvable
          ? html`<button type="button" part="button resolve" ?disabled=${this.busy}
              @click=${() => confirm(t('resolveConfirm')) && this.run(() => this.host.api.sessions.resolve(payment.id))}>${t('resolve')}</button>`
          : nothing}
        ${left && !this.key
          ? html`<button type="button" part="button refund" @click=${() => {
              this.key = newIdempotencyKey();
              this.amount = this.address = '';
              this.errors = {};
              this.host.focusAfterRender('#rf-amount');
            }}>${t('refund')}</button>`
          : nothing}
      </div>
      ${errorBox(this.host.text, this.error, { part: 'form-error' })}
      ${this.key ? this.renderForm(payment, left) : nothing}
      ${this.refunds.renderTable(t('refundsTitle'), '#pd-refunds')}
    </section>`;
  }
}
