/**
 * The form that creates and edits payment links of both kinds. What the merchant types lives in
 * the controller (`values`), never only in the DOM, so a failed save or a server error loses nothing.
 * The form runs the service's own rules (`resolveLinkDraft` of `core/rules/link.ts`) on the body it
 * is about to send, so it refuses exactly what the service would, and shows the service's own field
 * errors beside the fields they name.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { PaylinkValidationError } from '../../../client/errors.js';
import { FIAT_DIGITS, fiatDigits, fractionDigits, fromUnits, isDecimalString, toUnits } from '../../../core/money.js';
import { EMPTY_LINK_DRAFT, draftOfLink, isHttpUrl, resolveLinkDraft } from '../../../core/rules/link.js';
import type { CreatePaymentLinkInput, PaymentLink, UpdatePaymentLinkInput } from '../../../core/schemas.js';
import { errorMessage, fieldErrorsFrom, normalizeAmount, type AdminHost } from '../admin-context.js';
import { describedBy, fieldError, ifDefined, invalid } from '../fields.js';
import { errorBox } from '../templates.js';

/** What happens once a customer has paid. */
export type AfterPayment = 'message' | 'confirmation' | 'redirect';

/** One cart line as typed (amounts and quantity stay text until saved). */
export interface CartItemDraft {
  /** Stable across removals, so ids and focus follow the right row. */
  key: number;
  name: string;
  quantity: string;
  unitAmount: string;
  description?: string | undefined;
  imageUrl?: string | undefined;
}

/** Everything the form holds, as the merchant typed it. */
export interface LinkFormValues {
  linkType: 'Standard' | 'Donation';
  title: string;
  description: string;
  currency: string;
  otherCurrencies: string[];
  amount: string;
  items: CartItemDraft[];
  collectAddress: boolean;
  collectPhone: boolean;
  after: AfterPayment;
  successMessage: string;
  redirectUrl: string;
  isActive: boolean;
  /** `datetime-local` value (the merchant's time zone), or ''. */
  closesAt: string;
  minAmount: string;
  maxAmount: string;
  /** Comma-separated, as typed. */
  suggestedAmounts: string;
}

export interface LinkFormActions {
  saved(link: PaymentLink, created: boolean): void;
  cancelled(editing: PaymentLink | undefined): void;
}

/** Currencies offered as extra display currencies (the price currency is chosen from all of `FIAT_DIGITS`). */
const COMMON_CURRENCIES = ['NGN', 'USD', 'EUR', 'GBP', 'GHS', 'KES', 'ZAR'];

/** `2030-01-31T18:00` in the merchant's time zone for an ISO time. */
export function toLocalDateTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** True for an absolute http(s) URL with a host: the only kind of redirect the checkout follows (one rule, in core). */
export { isHttpUrl };

function emptyValues(): LinkFormValues {
  return {
    linkType: 'Standard',
    title: '',
    description: '',
    currency: 'NGN',
    otherCurrencies: [],
    amount: '',
    items: [],
    collectAddress: false,
    collectPhone: false,
    after: 'message',
    successMessage: '',
    redirectUrl: '',
    isActive: true,
    closesAt: '',
    minAmount: '',
    maxAmount: '',
    suggestedAmounts: '',
  };
}

export class LinkFormController {
  values: LinkFormValues = emptyValues();
  /** Errors by the id of the control they belong to (`lf-title`, `lf-item-3-name`, …). */
  errors: Record<string, string> = {};
  /** An error no field claims (network, conflict…). */
  formError = '';
  saving = false;
  /** The link being edited; undefined when creating. */
  editing: PaymentLink | undefined;
  private nextKey = 1;
  /** The closing time the edited link had, as shown in the form. */
  private originalClosesAt = '';

  constructor(
    private readonly host: AdminHost,
    private readonly actions: LinkFormActions,
  ) {
  }

  /** Opens the form empty (create) or filled from `link` (edit). */
  open(link?: PaymentLink): void {
    this.editing = link;
    this.errors = {};
    this.formError = '';
    this.saving = false;
    this.values = link ? this.valuesOf(link) : emptyValues();
    this.originalClosesAt = this.values.closesAt;
    this.host.requestUpdate();
  }

  /** The cart total as a decimal string in the price currency, or undefined while an item is unreadable. */
  get cartTotal(): string | undefined {
    const digits = fiatDigits(this.values.currency);
    let total = 0n;
    for (const item of this.values.items) {
      const amount = normalizeAmount(item.unitAmount, this.host.text.decimalSeparator);
      const quantity = Number(item.quantity);
      if (!isDecimalString(amount) || fractionDigits(amount) > digits || !Number.isInteger(quantity) || quantity < 1) return undefined;
      total += toUnits(amount, digits) * BigInt(quantity);
    }
    return fromUnits(total, digits);
  }

  private valuesOf(link: PaymentLink): LinkFormValues {
    const action = link.postpayAction;
    const [currency = 'NGN', ...others] = link.fiatCurrency;
    return {
      linkType: link.linkType,
      title: link.title,
      description: link.description,
      currency,
      otherCurrencies: others,
      amount: link.linkType === 'Standard' && link.cart.items.length === 0 ? link.fiatAmount : '',
      items: link.cart.items.map((item) => ({
        key: this.nextKey++,
        name: item.name,
        quantity: String(item.quantity),
        unitAmount: item.unitAmount,
        description: item.description,
        imageUrl: item.imageUrl,
      })),
      collectAddress: link.prepayOptions.collectAddress,
      collectPhone: link.prepayOptions.collectPhone,
      after: action.redirect ? 'redirect' : action.showConfirmationPage ? 'confirmation' : 'message',
      successMessage: action.successMessage,
      redirectUrl: action.redirectUrl,
      isActive: link.isActive,
      closesAt: toLocalDateTime(link.closesAt),
      minAmount: link.minAmount ?? '',
      maxAmount: link.maxAmount ?? '',
      suggestedAmounts: (link.suggestedAmounts ?? []).join(', '),
    };
  }

  private set<K extends keyof LinkFormValues>(name: K, value: LinkFormValues[K], errorId?: string): void {
    this.values = { ...this.values, [name]: value };
    // The message about a field goes once the merchant changes it; the others stay until the next save.
    if (errorId && this.errors[errorId]) {
      const { [errorId]: _, ...rest } = this.errors;
      this.errors = rest;
    }
    this.host.requestUpdate();
  }

  private setItem(key: number, patch: Partial<CartItemDraft>, errorId: string): void {
    this.set(
      'items',
      this.values.items.map((item) => (item.key === key ? { ...item, ...patch } : item)),
      errorId,
    );
  }

  private addItem(): void {
    const key = this.nextKey++;
    this.set('items', [...this.values.items, { key, name: '', quantity: '1', unitAmount: '' }]);
    this.host.focusAfterRender(`#lf-item-${key}-name`);
  }

  private removeItem(key: number): void {
    this.set(
      'items',
      this.values.items.filter((item) => item.key !== key),
    );
    this.host.announce(this.host.text.t('itemRemoved'));
    this.host.focusAfterRender('#lf-add-item');
  }

  /**
   * Checks what is typed with the service's rules, on the very body a save would send: the errors
   * by control id (what no control claims goes to `formError`). Empty when the service would accept it.
   */
  check(): Record<string, string> {
    const { t } = this.bound();
    const digits = fiatDigits(this.values.currency);
    const example = digits === 0 ? '2500' : '25.50';
    const base = this.editing ? draftOfLink(this.editing) : EMPTY_LINK_DRAFT;
    const { errors } = resolveLinkDraft(base, this.body(), new Date(), !this.editing);
    const fields: Record<string, string> = {};
    const unclaimed: string[] = [];
    for (const error of errors) {
      const message = t(error.key, { example, digits, ...error.params });
      const control = this.controlOf(error.path);
      if (control === undefined) unclaimed.push(message);
      else fields[control] ??= message;
    }
    this.formError = unclaimed.join(' ');
    return fields;
  }

  /** The suggested amounts as typed, one decimal string (or unreadable text, which the rules refuse) each. */
  private suggestedList(): string[] {
    const sep = this.host.text.decimalSeparator;
    // In a comma-decimal locale amounts are separated by semicolons or spaces as well as ", ".
    return this.values.suggestedAmounts
      .split(sep === ',' ? /;|\s+|,\s+/ : /[;,]/)
      .map((part) => normalizeAmount(part, sep))
      .filter((part) => part !== '');
  }

  /** The request body for what is typed (`check()` says whether the service would accept it). */
  body(): CreatePaymentLinkInput {
    const v = this.values;
    const sep = this.host.text.decimalSeparator;
    const body: CreatePaymentLinkInput = {
      title: v.title.trim(),
      description: v.description,
      linkType: v.linkType,
      fiatCurrency: [v.currency, ...v.otherCurrencies.filter((code) => code !== v.currency)],
      action: {
        successMessage: v.successMessage,
        redirect: v.after === 'redirect',
        showConfirmationPage: v.after === 'confirmation',
        isActive: v.isActive,
        ...(v.after === 'redirect' ? { redirectUrl: v.redirectUrl.trim() } : {}),
      },
      options: { collectAddress: v.collectAddress, collectPhone: v.collectPhone },
      cart: {
        items:
          v.linkType === 'Standard'
            ? v.items.map((item) => ({
                name: item.name.trim(),
                quantity: item.quantity.trim() === '' ? Number.NaN : Number(item.quantity),
                unitAmount: normalizeAmount(item.unitAmount, sep),
                ...(item.description ? { description: item.description } : {}),
                ...(item.imageUrl ? { imageUrl: item.imageUrl } : {}),
              }))
            : [],
      },
    };
    if (v.linkType === 'Standard') {
      // With items the service sets the price to their total; sending it too could only disagree.
      // An empty amount is left out: the rules then ask for one (or for cart items).
      if (v.items.length === 0 && v.amount.trim()) body.fiatAmount = normalizeAmount(v.amount, sep);
    } else {
      // An unchanged closing time is not sent, so it is not re-checked: a closed fundraiser stays editable.
      if (!this.editing || v.closesAt !== this.originalClosesAt) {
        const closesAt = new Date(v.closesAt);
        body.closesAt = !v.closesAt ? null : Number.isNaN(closesAt.getTime()) ? v.closesAt : closesAt.toISOString();
      }
      body.minAmount = v.minAmount.trim() ? normalizeAmount(v.minAmount, sep) : null;
      body.maxAmount = v.maxAmount.trim() ? normalizeAmount(v.maxAmount, sep) : null;
      body.suggestedAmounts = this.suggestedList();
    }
    return body;
  }

  /** The control a server error path belongs to. */
  private controlOf(path: string): string | undefined {
    const item = /^cart\.items\.(\d+)(?:\.(\w+))?/.exec(path);
    if (item) {
      const draft = this.values.items[Number(item[1])];
      if (!draft) return 'lf-add-item';
      const field = item[2] === 'quantity' ? 'quantity' : item[2] === 'unitAmount' ? 'unit' : 'name';
      return `lf-item-${draft.key}-${field}`;
    }
    if (/^suggestedAmounts(\.\d+)?$/.test(path)) return 'lf-suggested';
    const direct: Record<string, string> = {
      title: 'lf-title',
      description: 'lf-description',
      linkType: 'lf-kind-standard',
      fiatCurrency: 'lf-currency',
      'cart.fiatCurrency': 'lf-currency',
      fiatAmount: this.values.items.length ? 'lf-add-item' : 'lf-amount',
      'cart.fiatAmount': this.values.items.length ? 'lf-add-item' : 'lf-amount',
      'cart.items': 'lf-add-item',
      'action.redirectUrl': 'lf-redirect-url',
      'action.redirectURL': 'lf-redirect-url',
      'action.successMessage': 'lf-success-message',
      closesAt: 'lf-closes-at',
      minAmount: 'lf-min',
      maxAmount: 'lf-max',
    };
    return direct[path];
  }

  private async handleSubmit(event: Event): Promise<void> {
    event.preventDefault();
    if (this.saving) return;
    const errors = this.check();
    if (Object.keys(errors).length || this.formError) {
      this.showErrors(errors);
      return;
    }
    this.errors = {};
    this.saving = true;
    this.host.requestUpdate();
    const editing = this.editing;
    try {
      const body = this.body();
      const link = editing
        ? await this.host.api.links.update({ ...(body as UpdatePaymentLinkInput), id: editing.id })
        : await this.host.api.links.create(body);
      this.saving = false;
      this.actions.saved(link, !editing);
    } catch (error) {
      this.saving = false;
      if (this.host.handleAuthError(error)) return;
      if (error instanceof PaylinkValidationError && error.errors.length) {
        const { fields, unclaimed } = fieldErrorsFrom(error.errors, (path) => this.controlOf(path));
        this.formError = unclaimed.join(' ');
        this.showErrors(fields);
      } else {
        this.formError = errorMessage(this.host.text, error);
        this.host.announce(this.formError);
        this.host.requestUpdate();
      }
    }
  }

  private showErrors(errors: Record<string, string>): void {
    const { t } = this.bound();
    this.errors = errors;
    const count = Object.keys(errors).length;
    if (count) {
      this.host.announce(count === 1 ? t('fixFields', { count }) : t('fixFieldsMany', { count }));
      this.host.focusAfterRender('[part~="link-form"] [aria-invalid="true"]');
    } else if (this.formError) {
      this.host.announce(this.formError);
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
    const total = this.cartTotal;
    const inputmode = fiatDigits(v.currency) === 0 ? 'numeric' : 'decimal';
    return html`${v.items.length === 0
        ? this.input('lf-amount', `${t('amount')} (${v.currency})`, v.amount, (value) => this.set('amount', value, 'lf-amount'), {
            inputmode,
            part: 'input amount',
            required: true,
          })
        : html`<p class="hint">${t('amountFromCart')}</p>`}
      <fieldset part="cart" class="cart">
        <legend>${t('cart')}</legend>
        ${v.items.length === 0
          ? html`<p class="hint">${t('cartEmpty')}</p>`
          : html`<div class="cart-head" aria-hidden="true">
                <span>${t('itemName')}</span><span>${t('itemQuantity')}</span><span>${t('itemUnitAmount')} (${v.currency})</span><span></span>
              </div>
              ${v.items.map((item, index) => this.renderItem(item, index))}`}
        <div class="cart-foot">
          <button type="button" id="lf-add-item" part="button add-item" aria-invalid=${ifDefined(invalid(this.errors['lf-add-item']))}
            aria-describedby=${ifDefined(describedBy('lf-add-item', this.errors['lf-add-item']))} @click=${() => this.addItem()}>
            + ${t('addItem')}
          </button>
          ${v.items.length
            ? html`<p part="cart-total" class="total" aria-live="polite">
                ${t('cartTotal')}: <strong>${total === undefined ? '—' : text.money(total, v.currency)}</strong>
              </p>`
            : nothing}
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
      ${v.after === 'redirect'
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
          </div>`}
    </fieldset>`;
  }

  render(): TemplateResult {
    const { t } = this.bound();
    const v = this.values;
    const descriptionError = this.errors['lf-description'];
    return html`<form part="link-form" class="link-form" novalidate aria-labelledby="link-form-heading" @submit=${(event: Event) => this.handleSubmit(event)}>
      <h2 id="link-form-heading" tabindex="-1">${this.editing ? t('editTitle', { title: this.editing.title }) : t('createTitle')}</h2>
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
      ${errorBox(this.host.text, this.formError, { part: 'form-error' })}
      <div class="form-actions">
        <button type="button" part="button cancel" @click=${() => this.actions.cancelled(this.editing)}>${t('cancel')}</button>
        <button type="submit" part="button primary submit" class="primary" ?disabled=${this.saving}>
          ${this.saving ? t('saving') : this.editing ? t('saveChanges') : t('createLink')}
        </button>
      </div>
    </form>`;
  }
}
