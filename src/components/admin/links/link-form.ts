/**
 * The form that creates and edits payment links of both kinds: its render and its moves (focus,
 * announcements, saving). What the merchant types, the bodies it maps to and the rules it is checked
 * with are the model's (`link-form-model.ts`, DOM-free), never only in the DOM, so a failed save or a
 * server error loses nothing; the service's own field errors are shown beside the fields they name.
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import { PaylinkValidationError } from '../../../client/errors.js';
import { FIAT_DIGITS, fiatDigits } from '../../../core/money.js';
import type { PaymentLink, UpdatePaymentLinkInput } from '../../../core/schemas.js';
import { errorMessage, fieldErrorsFrom, type AdminHost } from '../admin-context.js';
import { describedBy, fieldError, ifDefined, invalid } from '../fields.js';
import { LinkFormModel, type AfterPayment, type CartItemDraft, type LinkFormValues } from './link-form-model.js';
import { errorBox } from '../templates.js';

/** What the form tells the links tab. */
export interface LinkFormActions {
  saved(link: PaymentLink, created: boolean): void;
  cancelled(editing: PaymentLink | undefined): void;
}

/** Currencies offered as extra display currencies (the price currency is chosen from all of `FIAT_DIGITS`). */
const COMMON_CURRENCIES = ['NGN', 'USD', 'EUR', 'GBP', 'GHS', 'KES', 'ZAR'];

/** The link form of the links tab: renders the model and saves it through the host's client. */
export class LinkFormController {
  /** What is typed, its errors and its bodies. */
  readonly model: LinkFormModel;
  saving = false;

  constructor(
    private readonly host: AdminHost,
    private readonly actions: LinkFormActions,
  ) {
    this.model = new LinkFormModel(() => host.text);
  }

  /** Opens the form empty (create) or filled from `link` (edit). */
  open(link?: PaymentLink): void {
    this.model.open(link);
    this.saving = false;
    this.host.requestUpdate();
  }

  private get values(): LinkFormValues {
    return this.model.values;
  }

  private get errors(): Record<string, string> {
    return this.model.errors;
  }

  private set<K extends keyof LinkFormValues>(name: K, value: LinkFormValues[K], errorId?: string): void {
    this.model.set(name, value, errorId);
    this.host.requestUpdate();
  }

  private setItem(key: number, patch: Partial<CartItemDraft>, errorId: string): void {
    this.model.setItem(key, patch, errorId);
    this.host.requestUpdate();
  }

  private addItem(): void {
    const key = this.model.addItem();
    this.host.requestUpdate();
    this.host.focusAfterRender(`#lf-item-${key}-name`);
  }

  private removeItem(key: number): void {
    this.model.removeItem(key);
    this.host.requestUpdate();
    this.host.announce(this.host.text.t('itemRemoved'));
    this.host.focusAfterRender('#lf-add-item');
  }

  private async handleSubmit(event: Event): Promise<void> {
    event.preventDefault();
    if (this.saving) return;
    const model = this.model;
    const errors = model.check();
    if (Object.keys(errors).length || model.formError) {
      this.showErrors(errors);
      return;
    }
    model.errors = {};
    this.saving = true;
    this.host.requestUpdate();
    const editing = model.editing;
    try {
      const body = model.body();
      const link = editing ? await this.host.api.links.update({ ...(body as UpdatePaymentLinkInput), id: editing.id }) : await this.host.api.links.create(body);
      this.saving = false;
      this.actions.saved(link, !editing);
    } catch (error) {
      this.saving = false;
      if (this.host.handleAuthError(error)) return;
      if (error instanceof PaylinkValidationError && error.errors.length) {
        const { fields, unclaimed } = fieldErrorsFrom(error.errors, (path) => model.controlOf(path));
        model.formError = unclaimed.join(' ');
        this.showErrors(fields);
      } else {
        model.formError = errorMessage(this.host.text, error);
        this.host.announce(model.formError);
        this.host.requestUpdate();
      }
    }
  }

  private showErrors(errors: Record<string, string>): void {
    const { t } = this.bound();
    this.model.errors = errors;
    const count = Object.keys(errors).length;
    if (count) {
      this.host.announce(count === 1 ? t('fixFields', { count }) : t('fixFieldsMany', { count }));
      this.host.focusAfterRender('[part~="link-form"] [aria-invalid="true"]');
    } else if (this.model.formError) {
      this.host.announce(this.model.formError);
    }
    this.host.requestUpdate();
  }

  private bound() {
    const text = this.host.text;
    return { t: text.t.bind(text), text };
  }

  // ------------------------------------------------------------------------------------------
  // Rendering

  private input(
    id: string,
    label: string,
    value: string,
    onInput: (value: string) => void,
    options: { type?: string; hint?: string; inputmode?: string; placeholder?: string; part?: string; required?: boolean; autocomplete?: string } = {},
  ): TemplateResult {
    const error = this.errors[id];
    return html`<div class="field">
      <label for=${id}>${label}</label>
      ${options.hint ? html`<p id="${id}-hint" class="hint">${options.hint}</p>` : nothing}
      <input
        id=${id}
        part=${options.part ?? 'input'}
        type=${options.type ?? 'text'}
        inputmode=${ifDefined(options.inputmode)}
        placeholder=${ifDefined(options.placeholder)}
        autocomplete=${options.autocomplete ?? 'off'}
        ?required=${options.required ?? false}
        .value=${value}
        aria-invalid=${ifDefined(invalid(error))}
        aria-describedby=${ifDefined(describedBy(id, error, Boolean(options.hint)))}
        @input=${(event: Event) => onInput((event.target as HTMLInputElement).value)}
      />
      ${fieldError(id, error)}
    </div>`;
  }

  private renderKind(): TemplateResult {
    const { t } = this.bound();
    const kind = (value: 'Standard' | 'Donation', id: string, label: string, hint: string) =>
      html`<label class="choice card-choice" for=${id}>
        <input
          id=${id}
          type="radio"
          name="lf-kind"
          part="kind-option"
          value=${value}
          .checked=${this.values.linkType === value}
          aria-describedby="${id}-hint"
          @change=${() => this.set('linkType', value)}
        />
        <span><strong>${label}</strong><span id="${id}-hint" class="hint">${hint}</span></span>
      </label>`;
    return html`<fieldset part="kind" class="kinds">
      <legend>${t('linkKind')}</legend>
      <div class="choices-row">
        ${kind('Standard', 'lf-kind-standard', t('kindStandard'), t('standardHint'))}
        ${kind('Donation', 'lf-kind-donation', t('kindDonation'), t('donationHint'))}
      </div>
      ${fieldError('lf-kind-standard', this.errors['lf-kind-standard'])}
    </fieldset>`;
  }

  private renderCurrencies(): TemplateResult {
    const { t } = this.bound();
    const v = this.values;
    const extra = [...new Set([...COMMON_CURRENCIES, ...v.otherCurrencies])].filter((code) => code !== v.currency);
    const error = this.errors['lf-currency'];
    return html`<div class="row">
      <div class="field">
        <label for="lf-currency">${t('currency')}</label>
        <select
          id="lf-currency"
          part="currency"
          aria-invalid=${ifDefined(invalid(error))}
          aria-describedby=${ifDefined(describedBy('lf-currency', error))}
          @change=${(event: Event) => this.set('currency', (event.target as HTMLSelectElement).value, 'lf-currency')}
        >
          ${Object.keys(FIAT_DIGITS).map((code) => html`<option value=${code} ?selected=${code === v.currency}>${code}</option>`)}
        </select>
        ${fieldError('lf-currency', error)}
      </div>
      <fieldset class="field grow currencies" part="other-currencies">
        <legend>${t('otherCurrencies')}</legend>
        <div class="chips">
          ${extra.map(
            (code) => html`<label class="chip" for="lf-cur-${code}">
              <input
                id="lf-cur-${code}"
                type="checkbox"
                .checked=${v.otherCurrencies.includes(code)}
                @change=${(event: Event) => {
                  const on = (event.target as HTMLInputElement).checked;
                  this.set('otherCurrencies', on ? [...v.otherCurrencies, code] : v.otherCurrencies.filter((c) => c !== code));
                }}
              />${code}
            </label>`,
          )}
        </div>
      </fieldset>
    </div>`;
  }

  private renderStandard(): TemplateResult {
    const { t, text } = this.bound();
    const v = this.values;
    const total = this.model.cartTotal;
    const inputmode = fiatDigits(v.currency) === 0 ? 'numeric' : 'decimal';
    return html`${
      v.items.length === 0
        ? this.input('lf-amount', `${t('amount')} (${v.currency})`, v.amount, (value) => this.set('amount', value, 'lf-amount'), {
            inputmode,
            part: 'input amount',
            required: true,
          })
        : html`<p class="hint">${t('amountFromCart')}</p>`
    }
      <fieldset part="cart" class="cart">
        <legend>${t('cart')}</legend>
        ${
          v.items.length === 0
            ? html`<p class="hint">${t('cartEmpty')}</p>`
            : html`<div class="cart-head" aria-hidden="true">
                <span>${t('itemName')}</span><span>${t('itemQuantity')}</span><span>${t('itemUnitAmount')} (${v.currency})</span><span></span>
              </div>
              ${v.items.map((item, index) => this.renderItem(item, index))}`
        }
        <div class="cart-foot">
          <button type="button" id="lf-add-item" part="button add-item" aria-invalid=${ifDefined(invalid(this.errors['lf-add-item']))}
            aria-describedby=${ifDefined(describedBy('lf-add-item', this.errors['lf-add-item']))} @click=${() => this.addItem()}>
            + ${t('addItem')}
          </button>
          ${
            v.items.length
              ? html`<p part="cart-total" class="total" aria-live="polite">
                ${t('cartTotal')}: <strong>${total === undefined ? '—' : text.money(total, v.currency)}</strong>
              </p>`
              : nothing
          }
        </div>
        ${fieldError('lf-add-item', this.errors['lf-add-item'])}
      </fieldset>`;
  }

  private renderItem(item: CartItemDraft, index: number): TemplateResult {
    const { t } = this.bound();
    const n = index + 1;
    const cell = (field: 'name' | 'quantity' | 'unit', label: string, value: string, onInput: (value: string) => void, inputmode?: string) => {
      const id = `lf-item-${item.key}-${field}`;
      const error = this.errors[id];
      return html`<div class="cell">
        <label for=${id} class="item-label">${label}</label>
        <input
          id=${id}
          part="input item-${field}"
          placeholder=${label}
          inputmode=${ifDefined(inputmode)}
          autocomplete="off"
          .value=${value}
          aria-invalid=${ifDefined(invalid(error))}
          aria-describedby=${ifDefined(describedBy(id, error))}
          @input=${(event: Event) => onInput((event.target as HTMLInputElement).value)}
        />
        ${fieldError(id, error)}
      </div>`;
    };
    return html`<div part="cart-item" class="cart-item" role="group" aria-label=${t('itemN', { n })}>
      ${cell('name', t('itemName'), item.name, (value) => this.setItem(item.key, { name: value }, `lf-item-${item.key}-name`))}
      ${cell('quantity', t('itemQuantity'), item.quantity, (value) => this.setItem(item.key, { quantity: value }, `lf-item-${item.key}-quantity`), 'numeric')}
      ${cell('unit', t('itemUnitAmount'), item.unitAmount, (value) => this.setItem(item.key, { unitAmount: value }, `lf-item-${item.key}-unit`), 'decimal')}
      <button
        type="button"
        part="button remove-item"
        class="icon"
        aria-label=${item.name.trim() ? t('removeItem', { name: item.name.trim() }) : t('removeItemN', { n })}
        @click=${() => this.removeItem(item.key)}
      >
        <span aria-hidden="true">✕</span>
      </button>
    </div>`;
  }

  private renderDonation(): TemplateResult {
    const { t } = this.bound();
    const v = this.values;
    const inputmode = fiatDigits(v.currency) === 0 ? 'numeric' : 'decimal';
    return html`<fieldset part="donation" class="group">
      <legend>${t('donationSettings')}</legend>
      <div class="row">
        ${this.input('lf-min', `${t('minAmount')} (${v.currency})`, v.minAmount, (value) => this.set('minAmount', value, 'lf-min'), { inputmode, part: 'input min-amount' })}
        ${this.input('lf-max', `${t('maxAmount')} (${v.currency})`, v.maxAmount, (value) => this.set('maxAmount', value, 'lf-max'), { inputmode, part: 'input max-amount' })}
      </div>
      ${this.input('lf-goal', `${t('goal')} (${v.currency})`, v.goalAmount, (value) => this.set('goalAmount', value, 'lf-goal'), { inputmode, part: 'input goal-amount' })}
      ${this.input('lf-suggested', t('suggestedAmounts'), v.suggestedAmounts, (value) => this.set('suggestedAmounts', value, 'lf-suggested'), {
        hint: t('suggestedHint'),
        inputmode,
        part: 'input suggested-amounts',
      })}
      ${this.input('lf-closes-at', t('closesAt'), v.closesAt, (value) => this.set('closesAt', value, 'lf-closes-at'), {
        type: 'datetime-local',
        hint: t('closesAtHint'),
        part: 'input closes-at',
      })}
    </fieldset>`;
  }

  private renderAfterPayment(): TemplateResult {
    const { t } = this.bound();
    const v = this.values;
    const option = (value: AfterPayment, label: string) => html`<label class="choice" for="lf-after-${value}">
      <input id="lf-after-${value}" type="radio" name="lf-after" part="after-option" .checked=${v.after === value} @change=${() => this.set('after', value)} />
      ${label}
    </label>`;
    const messageError = this.errors['lf-success-message'];
    return html`<fieldset part="after-payment" class="group">
      <legend>${t('afterPayment')}</legend>
      <div class="choices">
        ${option('message', t('afterMessage'))} ${option('confirmation', t('afterConfirmation'))} ${option('redirect', t('afterRedirect'))}
      </div>
      ${
        v.after === 'redirect'
          ? this.input('lf-redirect-url', t('redirectUrl'), v.redirectUrl, (value) => this.set('redirectUrl', value, 'lf-redirect-url'), {
              type: 'url',
              hint: t('redirectHint'),
              placeholder: 'https://',
              part: 'input redirect-url',
              required: true,
            })
          : html`<div class="field">
            <label for="lf-success-message">${t('successMessage')}</label>
            <textarea
              id="lf-success-message"
              part="input success-message"
              rows="2"
              placeholder=${t('successMessagePlaceholder')}
              .value=${v.successMessage}
              aria-invalid=${ifDefined(invalid(messageError))}
              aria-describedby=${ifDefined(describedBy('lf-success-message', messageError))}
              @input=${(event: Event) => this.set('successMessage', (event.target as HTMLTextAreaElement).value, 'lf-success-message')}
            ></textarea>
            ${fieldError('lf-success-message', messageError)}
          </div>`
      }
    </fieldset>`;
  }

  render(): TemplateResult {
    const { t } = this.bound();
    const v = this.values;
    const descriptionError = this.errors['lf-description'];
    return html`<form part="link-form" class="link-form" novalidate aria-labelledby="link-form-heading" @submit=${(event: Event) => this.handleSubmit(event)}>
      <h2 id="link-form-heading" tabindex="-1">${this.model.editing ? t('editTitle', { title: this.model.editing.title }) : t('createTitle')}</h2>
      ${this.renderKind()}
      ${this.input('lf-title', t('title'), v.title, (value) => this.set('title', value, 'lf-title'), { part: 'input title', required: true })}
      <div class="field">
        <label for="lf-description">${t('description')}</label>
        <textarea
          id="lf-description"
          part="input description"
          rows="3"
          .value=${v.description}
          aria-invalid=${ifDefined(invalid(descriptionError))}
          aria-describedby=${ifDefined(describedBy('lf-description', descriptionError))}
          @input=${(event: Event) => this.set('description', (event.target as HTMLTextAreaElement).value, 'lf-description')}
        ></textarea>
        ${fieldError('lf-description', descriptionError)}
      </div>
      ${this.renderCurrencies()} ${v.linkType === 'Standard' ? this.renderStandard() : this.renderDonation()}
      <fieldset part="customer-options" class="group">
        <legend>${t('customerDetails')}</legend>
        <div class="choices-row">
          <label class="choice" for="lf-collect-address">
            <input id="lf-collect-address" type="checkbox" part="collect-address" .checked=${v.collectAddress}
              @change=${(event: Event) => this.set('collectAddress', (event.target as HTMLInputElement).checked)} />
            ${t('collectAddress')}
          </label>
          <label class="choice" for="lf-collect-phone">
            <input id="lf-collect-phone" type="checkbox" part="collect-phone" .checked=${v.collectPhone}
              @change=${(event: Event) => this.set('collectPhone', (event.target as HTMLInputElement).checked)} />
            ${t('collectPhone')}
          </label>
        </div>
      </fieldset>
      ${this.renderAfterPayment()}
      <div class="switch-row">
        <label class="switch" for="lf-active">
          <input id="lf-active" type="checkbox" role="switch" part="active-toggle" .checked=${v.isActive} aria-describedby="lf-active-hint"
            @change=${(event: Event) => this.set('isActive', (event.target as HTMLInputElement).checked)} />
          <span class="track" aria-hidden="true"></span>
          <span>${t('linkActive')}</span>
        </label>
        <p id="lf-active-hint" class="hint">${t('linkActiveHint')}</p>
      </div>
      ${errorBox(this.host.text, this.model.formError, { part: 'form-error' })}
      <div class="form-actions">
        <button type="button" part="button cancel" @click=${() => this.actions.cancelled(this.model.editing)}>${t('cancel')}</button>
        <button type="submit" part="button primary submit" class="primary" ?disabled=${this.saving}>
          ${this.saving ? t('saving') : this.model.editing ? t('saveChanges') : t('createLink')}
        </button>
      </div>
    </form>`;
  }
}
