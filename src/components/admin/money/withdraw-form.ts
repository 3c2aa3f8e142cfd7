/**
 * The withdrawal form: asset, network, destination address (checked as it is typed, EIP-55 included),
 * amount with "max", then a confirm step that repeats address and amount. Review runs the service's
 * own rules (`checkWithdrawal` of `core/rules/withdrawal.ts`) on the body it would send, against the
 * networks the service is configured with (`GET /withdrawal/networks`), so it refuses exactly what
 * the service would.
 *
 * Paying once: each submission carries an `Idempotency-Key`. The key is made when a body is first
 * sent and reused for every retry of that same body (after a timeout, a network error, a 5xx), so the
 * service applies it once however often it arrives; a changed body, or a definitive answer, gets a new
 * key next time. A second click while a request is in flight does nothing (the button is disabled too).
 */
import type { ReactiveController } from 'lit';
import { html, nothing, type TemplateResult } from 'lit/html.js';
import { PaylinkConflictError, PaylinkRuleError, PaylinkValidationError } from '../../../client/errors.js';
import { checkAddress, toChecksumAddress } from '../../../core/evm-address.js';
import { ASSET_IDS, compareDecimal, type AssetId } from '../../../core/money.js';
import { CRYPTO_DIGITS } from '../../../core/rules/limits.js';
import type { NetworkInfo } from '../../../core/rules/networks.js';
import { checkWithdrawal } from '../../../core/rules/withdrawal.js';
import type { CreateWithdrawalInput, WithdrawalNetwork } from '../../../core/schemas.js';
import { assetName } from '../../../internal/localize.js';
import { errorMessage, fieldErrorsFrom, isTransient, newIdempotencyKey, normalizeAmount, type AdminHost } from '../admin-context.js';
import { describedBy, fieldError, ifDefined, invalid } from '../fields.js';
import { errorBox } from '../templates.js';

/** Names of the networks the service said it is configured with, by id (shared with the history's labels). */
const configuredNames = new Map<string, string>();

/** A network's name for people: as configured when the service has said, else its id (`bsc` has a translated name). */
export function networkName(id: string, text: AdminHost['text']): string {
  return configuredNames.get(id) ?? (id === 'bsc' ? text.t('networkBsc') : id);
}

export interface WithdrawActions {
  /** The available balance of `assetId`, once known. */
  availableOf(assetId: string, blockchainId: string): string | undefined;
  /** A withdrawal was accepted: refresh balances and history. */
  submitted(id: string): void;
}

type Step = 'edit' | 'confirm' | 'done';
type Field = 'asset' | 'network' | 'address' | 'amount';

export class WithdrawController implements ReactiveController {
  step: Step = 'edit';
  assetId: AssetId = 'USDT';
  blockchainId = 'bsc';
  address = '';
  amount = '';
  /** Errors the form or the service found, by field. */
  errors: Partial<Record<Field, string>> = {};
  /** An error no field claims, shown on the confirm step. */
  formError = '';
  /** True when `formError` came from an answer-less failure that may be retried safely. */
  canRetry = false;
  sending = false;
  addressBlurred = false;
  lastCreated: { id: string; amount: string; assetId: string; address: string } | undefined;
  /** The networks the service is configured with, and their alerts; undefined until `GET /withdrawal/networks` answered. */
  networks: WithdrawalNetwork[] | undefined;
  /** The key of the body last sent, kept while that body may be retried. */
  private attempt: { key: string; fingerprint: string } | undefined;
  private networksLoading: Promise<void> | undefined;
  /** The client the networks were last asked through: new credentials ask again. */
  private networksAskedWith: unknown;

  constructor(
    private readonly host: AdminHost,
    private readonly actions: WithdrawActions,
  ) {
    host.addController(this);
  }

  hostUpdated(): void {
    // After the element's first render (its credentials are set by then), and again when they change.
    if (!this.networks && !this.networksLoading && this.networksAskedWith !== this.host.api) void this.loadNetworks();
  }

  /** Loads the configured networks (once per client while it fails; once for good when it answers). */
  loadNetworks(): Promise<void> {
    this.networksAskedWith = this.host.api;
    this.networksLoading ??= this.host.api.withdrawals
      .networks()
      .then(({ items }) => {
        this.networks = items;
        for (const network of items) configuredNames.set(network.id, network.name);
        if (items.length && !items.some((network) => network.id === this.blockchainId)) this.blockchainId = items[0]!.id;
        this.host.requestUpdate();
      })
      // Until they load (an older service has no such route), the form offers the network it holds and the service decides.
      .catch(() => {})
      .finally(() => (this.networksLoading = undefined));
    return this.networksLoading;
  }

  /** The networks to offer and check against: the configured ones, or until they load the one chosen. */
  private offeredNetworks(): NetworkInfo[] {
    return this.networks ?? [{ id: this.blockchainId, name: networkName(this.blockchainId, this.host.text), aliases: [], assets: ASSET_IDS }];
  }

  /** What the address must be, naming the network chosen as the service calls it. */
  private addressHint(): string {
    const network = this.offeredNetworks().find((candidate) => candidate.id === this.blockchainId);
    return this.host.text.t('addressHint', { network: network?.name ?? networkName(this.blockchainId, this.host.text) });
  }

  /** The address verdict as typed, for the live message. */
  private addressVerdict(): { kind: 'none' | 'progress' | 'error' | 'ok' | 'note'; message: string } {
    const t = this.host.text.t.bind(this.host.text);
    const value = this.address.trim();
    if (value === '') return { kind: 'none', message: '' };
    if (!/^0x/.test(value.slice(0, 2)) && !(value === '0')) return { kind: 'error', message: t('addressPrefix') };
    const body = value.slice(2);
    if (/[^0-9a-fA-F]/.test(body)) return { kind: 'error', message: t('addressNotHex') };
    if (body.length < 40 && !this.addressBlurred) return { kind: 'progress', message: t('addressTyping', { count: body.length }) };
    const verdict = checkAddress(value);
    if (verdict === 'invalid_format') return { kind: 'error', message: t('addressFormat', { count: body.length }) };
    if (verdict === 'bad_checksum') return { kind: 'error', message: t('addressChecksum') };
    const singleCase = body === body.toLowerCase() || body === body.toUpperCase();
    return singleCase ? { kind: 'note', message: t('addressNoChecksum') } : { kind: 'ok', message: t('addressOk') };
  }

  /** The errors of the service's rules on the body a confirmation would send, by field, in the admin's words. */
  private ruleErrors(): Partial<Record<Field, string>> {
    const t = this.host.text.t.bind(this.host.text);
    const check = checkWithdrawal(this.body(), this.offeredNetworks());
    const errors: Partial<Record<Field, string>> = {};
    if (check.ok) return errors;
    const fieldOf: Record<string, Field> = { amount: 'amount', address: 'address', assetId: 'asset', blockchainId: 'network' };
    for (const error of check.errors) {
      const field = fieldOf[error.path];
      if (field) errors[field] ??= t(error.key, { example: '25.5', digits: CRYPTO_DIGITS, ...error.params });
    }
    return errors;
  }

  private amountError(): string | undefined {
    const t = this.host.text.t.bind(this.host.text);
    const amount = normalizeAmount(this.amount, this.host.text.decimalSeparator);
    const available = this.actions.availableOf(this.assetId, this.blockchainId);
    if (available !== undefined && compareDecimal(amount, available) > 0)
      return t('withdrawAmountOver', { amount: this.host.text.crypto(available, this.assetId) });
    return undefined;
  }

  private clearError(field: Field): void {
    if (this.errors[field]) {
      const { [field]: _, ...rest } = this.errors;
      this.errors = rest;
    }
  }

  private handleAddressInput(event: Event): void {
    this.address = (event.target as HTMLInputElement).value;
    this.clearError('address');
    this.host.requestUpdate();
  }

  private handleAddressBlur(): void {
    this.addressBlurred = this.address.trim() !== '';
    this.host.requestUpdate();
  }

  private handleAmountInput(event: Event): void {
    this.amount = (event.target as HTMLInputElement).value;
    this.clearError('amount');
    this.host.requestUpdate();
  }

  private fillMax(): void {
    const available = this.actions.availableOf(this.assetId, this.blockchainId);
    if (available === undefined) return;
    this.amount = available;
    this.clearError('amount');
    this.host.requestUpdate();
    this.host.focusAfterRender('#wd-amount');
  }

  private review(event: Event): void {
    event.preventDefault();
    this.addressBlurred = true;
    const errors = this.ruleErrors();
    const verdict = this.addressVerdict();
    // With `addressBlurred` set the verdict is final: none, error, ok or note. Its words say more than the rule's.
    if (verdict.kind === 'none') errors.address = this.addressHint();
    else if (verdict.kind === 'error' && errors.address) errors.address = verdict.message;
    // The balance is the service's to check (422); saying so before asking saves a round trip.
    const amountError = errors.amount ? undefined : this.amountError();
    if (amountError) errors.amount = amountError;
    this.errors = errors;
    this.formError = '';
    if (Object.keys(errors).length) {
      this.host.announce(Object.values(errors).join(' '));
      this.host.focusAfterRender('[part~="withdraw-form"] [aria-invalid="true"]');
      this.host.requestUpdate();
      return;
    }
    this.step = 'confirm';
    this.host.requestUpdate();
    this.host.focusAfterRender('#wd-confirm-heading');
  }

  private back(): void {
    this.step = 'edit';
    this.formError = '';
    this.host.requestUpdate();
    this.host.focusAfterRender('#wd-address');
  }

  /** The body the merchant confirmed. */
  private body(): CreateWithdrawalInput {
    return {
      amount: normalizeAmount(this.amount, this.host.text.decimalSeparator),
      address: this.address.trim(),
      blockchainId: this.blockchainId,
      assetId: this.assetId,
    };
  }

  /** Sends the confirmed withdrawal. Safe to call repeatedly: one request at a time, one key per body. */
  async confirm(): Promise<void> {
    if (this.sending || this.step !== 'confirm') return;
    const body = this.body();
    const fingerprint = JSON.stringify(body);
    if (!this.attempt || this.attempt.fingerprint !== fingerprint) this.attempt = { key: newIdempotencyKey(), fingerprint };
    const { key } = this.attempt;
    this.sending = true;
    this.formError = '';
    this.canRetry = false;
    this.host.requestUpdate();
    try {
      const created = await this.host.api.withdrawals.create(body, { idempotencyKey: key });
      this.attempt = undefined;
      this.lastCreated = { id: created.id, amount: String(body.amount), assetId: body.assetId, address: body.address };
      this.step = 'done';
      this.host.announce(this.host.text.t('withdrawSubmitted', { amount: this.host.text.crypto(String(body.amount), body.assetId) }));
      this.host.focusAfterRender('#wd-done-heading');
      this.actions.submitted(created.id);
    } catch (error) {
      // After a sign-in the same submission may be retried with the same key: keep it.
      if (this.host.handleAuthError(error)) return;
      if (isTransient(error)) {
        this.canRetry = true;
        this.formError = errorMessage(this.host.text, error);
        this.host.announce(this.formError);
        return;
      }
      // A definitive refusal: the merchant will change something, and that is a new submission.
      this.attempt = undefined;
      this.showRefusal(error);
    } finally {
      this.sending = false;
      this.host.requestUpdate();
    }
  }

  /** Puts the service's reasons beside the fields they name, back on the editable form. */
  private showRefusal(error: unknown): void {
    const fieldOf = (path: string): Field | undefined => {
      const head = path.split('.')[0];
      if (head === 'address') return 'address';
      if (head === 'amount') return 'amount';
      if (head === 'assetId') return 'asset';
      if (head === 'blockchainId') return 'network';
      return undefined;
    };
    const errors: Partial<Record<Field, string>> = {};
    let unclaimed: string[] = [];
    if (error instanceof PaylinkValidationError || error instanceof PaylinkRuleError || error instanceof PaylinkConflictError) {
      const spread = fieldErrorsFrom(error.errors, fieldOf);
      Object.assign(errors, spread.fields);
      unclaimed = spread.unclaimed;
      if (!error.errors.length) {
        if (error.code === 'insufficient_balance' || /balance/i.test(error.code)) errors.amount = error.message;
        else if (/address/i.test(error.code)) errors.address = error.message;
        else unclaimed.push(error.message);
      }
    } else {
      unclaimed.push(errorMessage(this.host.text, error));
    }
    this.errors = errors;
    this.formError = unclaimed.join(' ');
    this.step = 'edit';
    this.host.announce([...Object.values(errors), this.formError].filter(Boolean).join(' '));
    this.host.focusAfterRender(Object.keys(errors).length ? '[part~="withdraw-form"] [aria-invalid="true"]' : '#wd-address');
  }

  private startOver(): void {
    this.step = 'edit';
    this.address = '';
    this.amount = '';
    this.errors = {};
    this.formError = '';
    this.addressBlurred = false;
    this.host.requestUpdate();
    this.host.focusAfterRender('#wd-address');
  }

  private renderEdit(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const verdict = this.addressVerdict();
    const addressError = this.errors.address ?? (verdict.kind === 'error' ? verdict.message : undefined);
    const amountError = this.errors.amount;
    const available = this.actions.availableOf(this.assetId, this.blockchainId);
    const hasAvailable = available !== undefined && compareDecimal(available, '0') > 0;
    // The Max button's label has no white space around it: beside the hidden span, white space would be a
    // flex item of its own, and the button a gap (8 px) wider from the sources than from dist/.
    return html`<form part="withdraw-form" class="withdraw-form" novalidate aria-labelledby="withdraw-heading" @submit=${(event: Event) => this.review(event)}>
      <h2 id="withdraw-heading" tabindex="-1">${t('withdrawTitle')}</h2>
      <div class="row">
        <div class="field">
          <label for="wd-asset">${t('asset')}</label>
          <select id="wd-asset" part="asset" aria-invalid=${ifDefined(invalid(this.errors.asset))}
            aria-describedby=${ifDefined(describedBy('wd-asset', this.errors.asset))}
            @change=${(event: Event) => {
              this.assetId = (event.target as HTMLSelectElement).value as AssetId;
              this.clearError('asset');
              this.clearError('amount');
              this.host.requestUpdate();
            }}>
            ${ASSET_IDS.map((id) => html`<option value=${id} ?selected=${id === this.assetId}>${assetName(id)}</option>`)}
          </select>
          ${fieldError('wd-asset', this.errors.asset)}
        </div>
        <div class="field">
          <label for="wd-network">${t('network')}</label>
          <select id="wd-network" part="network" aria-invalid=${ifDefined(invalid(this.errors.network))}
            aria-describedby=${ifDefined(describedBy('wd-network', this.errors.network))}
            @change=${(event: Event) => {
              this.blockchainId = (event.target as HTMLSelectElement).value;
              this.clearError('network');
              this.host.requestUpdate();
            }}>
            ${this.offeredNetworks().map((network) => html`<option value=${network.id} ?selected=${network.id === this.blockchainId}>${network.name}</option>`)}
          </select>
          ${fieldError('wd-network', this.errors.network)}
        </div>
      </div>
      <div class="field">
        <label for="wd-address">${t('address')}</label>
        <p id="wd-address-hint" class="hint">${this.addressHint()}</p>
        <input
          id="wd-address"
          part="input address"
          class="mono"
          autocomplete="off"
          autocapitalize="off"
          spellcheck="false"
          placeholder="0x…"
          .value=${this.address}
          aria-invalid=${ifDefined(invalid(addressError))}
          aria-describedby="wd-address-hint wd-address-status${addressError ? ' wd-address-error' : ''}"
          @input=${(event: Event) => this.handleAddressInput(event)}
          @blur=${() => this.handleAddressBlur()}
        />
        ${addressError ? html`<p id="wd-address-error" part="field-error address-error">${addressError}</p>` : nothing}
        <p id="wd-address-status" part="address-status" class="status ${verdict.kind}" aria-live="polite">
          ${
            verdict.kind === 'ok' || verdict.kind === 'note'
              ? html`<span aria-hidden="true">${verdict.kind === 'ok' ? '✓' : 'ⓘ'}</span> ${verdict.message}`
              : verdict.kind === 'progress' && !addressError
                ? verdict.message
                : nothing
          }
        </p>
      </div>
      <div class="field">
        <label for="wd-amount">${t('withdrawAmount')} (${assetName(this.assetId)})</label>
        <div class="input-with-button">
          <input
            id="wd-amount"
            part="input withdraw-amount"
            inputmode="decimal"
            autocomplete="off"
            .value=${this.amount}
            aria-invalid=${ifDefined(invalid(amountError))}
            aria-describedby="wd-amount-available${amountError ? ' wd-amount-error' : ''}"
            @input=${(event: Event) => this.handleAmountInput(event)}
          />
          <button type="button" part="button max" ?disabled=${!hasAvailable} @click=${() => this.fillMax()}
            >${t('max')}<span class="visually-hidden"> – ${t('maxLabel', { asset: assetName(this.assetId) })}</span></button
          >
        </div>
        <p id="wd-amount-available" class="hint">${t('availableHint', { amount: available === undefined ? '—' : text.crypto(available, this.assetId) })}</p>
        ${fieldError('wd-amount', amountError)}
      </div>
      ${errorBox(text, this.formError, { part: 'form-error' })}
      <div class="form-actions">
        <button type="submit" part="button primary review" class="primary">${t('review')}</button>
      </div>
    </form>`;
  }

  private renderConfirm(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const body = this.body();
    let shown = body.address;
    try {
      shown = toChecksumAddress(body.address);
    } catch {
      // Already checked on review; show what was typed if not.
    }
    const network = this.offeredNetworks().find((n) => n.id === body.blockchainId);
    return html`<section part="withdraw-confirm" class="withdraw-confirm" aria-labelledby="wd-confirm-heading">
      <h2 id="wd-confirm-heading" tabindex="-1">${t('confirmTitle')}</h2>
      <p class="hint">${t('confirmBody')}</p>
      <dl class="summary" part="confirm-summary">
        <div><dt>${t('youSend')}</dt><dd part="confirm-amount" class="big">${text.crypto(String(body.amount), body.assetId)}</dd></div>
        <div><dt>${t('network')}</dt><dd part="confirm-network">${network ? network.name : body.blockchainId}</dd></div>
        <div><dt>${t('to')}</dt><dd part="confirm-address" class="mono address">${shown}</dd></div>
      </dl>
      ${errorBox(text, this.formError, { part: 'form-error', hint: this.canRetry ? t('retryHint') : undefined })}
      <div class="form-actions">
        <button type="button" part="button edit-withdrawal" ?disabled=${this.sending} @click=${() => this.back()}>${t('editWithdrawal')}</button>
        <button type="button" part="button primary confirm" class="primary" ?disabled=${this.sending} aria-disabled=${this.sending ? 'true' : 'false'}
          @click=${() => this.confirm()}>
          ${this.sending ? t('sending') : this.canRetry ? t('tryAgain') : t('confirm')}
        </button>
      </div>
    </section>`;
  }

  private renderDone(): TemplateResult {
    const text = this.host.text;
    const t = text.t.bind(text);
    const created = this.lastCreated;
    return html`<section part="withdraw-done" class="withdraw-done" aria-labelledby="wd-done-heading">
      <h2 id="wd-done-heading" tabindex="-1"><span aria-hidden="true">✓</span> ${t('withdrawDone')}</h2>
      ${created ? html`<p>${t('withdrawDoneBody', { amount: text.crypto(created.amount, created.assetId), address: created.address })}</p>` : nothing}
      <button type="button" part="button new-withdrawal" @click=${() => this.startOver()}>${t('newWithdrawal')}</button>
    </section>`;
  }

  render(): TemplateResult {
    return html`<div class="card withdraw">
      ${this.step === 'edit' ? this.renderEdit() : this.step === 'confirm' ? this.renderConfirm() : this.renderDone()}
    </div>`;
  }
}
