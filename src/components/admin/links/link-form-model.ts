/**
 * What the link form holds and means, without a DOM or Lit: the values as the merchant typed them,
 * the request bodies they map to, and the service's own rules run on those bodies (`resolveLinkDraft`
 * of `core/rules/link.ts`), so the form refuses exactly what the service would. The render
 * (`link-form.ts`) reads and changes it and asks its host to draw again; this file runs in Node as well,
 * where the form's tests and the form/service parity test use it.
 */
import { fiatDigits, fractionDigits, fromUnits, isDecimalString, toUnits } from '../../../core/money.js';
import { EMPTY_LINK_DRAFT, draftOfLink, resolveLinkDraft } from '../../../core/rules/link.js';
import type { CreatePaymentLinkInput, PaymentLink } from '../../../core/schemas.js';
import { normalizeAmount, type AdminText } from '../admin-context.js';

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
  /** The fundraiser's goal, as typed ('' for none). */
  goalAmount: string;
}

/** What the model needs of the admin's texts: its messages and how its locale writes amounts. */
export type LinkFormText = Pick<AdminText, 't' | 'decimalSeparator'>;

/** `2030-01-31T18:00` in the merchant's time zone for an ISO time. */
export function toLocalDateTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** The values of a new link: a Standard link in naira, active, with a thank-you message. */
export function emptyLinkFormValues(): LinkFormValues {
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
    goalAmount: '',
  };
}

/**
 * The state of one link form: open it empty or on a link, change its values, map them to the body
 * a save sends, check that body with the service's rules. Errors are kept by the id of the control
 * they belong to (`lf-title`, `lf-item-3-name`, …), so the render puts each beside its field.
 */
export class LinkFormModel {
  /** What is typed. */
  values: LinkFormValues = emptyLinkFormValues();
  /** Errors by control id. */
  errors: Record<string, string> = {};
  /** An error no field claims (network, conflict…). */
  formError = '';
  /** The link being edited; undefined when creating. */
  editing: PaymentLink | undefined;
  private nextKey = 1;
  /** The closing time the edited link had, as shown in the form. */
  private originalClosesAt = '';

  /** `text` is read at each use: the admin's locale may change while the form is open. */
  constructor(private readonly text: () => LinkFormText) {}

  /** Starts over, empty (create) or filled from `link` (edit). */
  open(link?: PaymentLink): void {
    this.editing = link;
    this.errors = {};
    this.formError = '';
    this.values = link ? this.valuesOf(link) : emptyLinkFormValues();
    this.originalClosesAt = this.values.closesAt;
  }

  /** Sets one value; the error of `errorId` goes with it (the others stay until the next save). */
  set<K extends keyof LinkFormValues>(name: K, value: LinkFormValues[K], errorId?: string): void {
    this.values = { ...this.values, [name]: value };
    if (errorId && this.errors[errorId]) {
      const { [errorId]: _, ...rest } = this.errors;
      this.errors = rest;
    }
  }

  /** Changes the cart line `key`; the error of `errorId` goes with it. */
  setItem(key: number, patch: Partial<CartItemDraft>, errorId: string): void {
    this.set(
      'items',
      this.values.items.map((item) => (item.key === key ? { ...item, ...patch } : item)),
      errorId,
    );
  }

  /** Adds an empty cart line (quantity 1) and returns its key. */
  addItem(): number {
    const key = this.nextKey++;
    this.set('items', [...this.values.items, { key, name: '', quantity: '1', unitAmount: '' }]);
    return key;
  }

  /** Removes the cart line `key`. */
  removeItem(key: number): void {
    this.set(
      'items',
      this.values.items.filter((item) => item.key !== key),
    );
  }

  /** The cart total as a decimal string in the price currency, or undefined while an item is unreadable. */
  get cartTotal(): string | undefined {
    const digits = fiatDigits(this.values.currency);
    let total = 0n;
    for (const item of this.values.items) {
      const amount = normalizeAmount(item.unitAmount, this.text().decimalSeparator);
      const quantity = Number(item.quantity);
      if (!isDecimalString(amount) || fractionDigits(amount) > digits || !Number.isInteger(quantity) || quantity < 1) return undefined;
      total += toUnits(amount, digits) * BigInt(quantity);
    }
    return fromUnits(total, digits);
  }

  /**
   * Checks what is typed with the service's rules, on the very body a save would send: the errors
   * by control id (what no control claims goes to `formError`). Empty when the service would accept it.
   */
  check(): Record<string, string> {
    const text = this.text();
    const digits = fiatDigits(this.values.currency);
    const example = digits === 0 ? '2500' : '25.50';
    const base = this.editing ? draftOfLink(this.editing) : EMPTY_LINK_DRAFT;
    const { errors } = resolveLinkDraft(base, this.body(), new Date(), !this.editing);
    const fields: Record<string, string> = {};
    const unclaimed: string[] = [];
    for (const error of errors) {
      const message = text.t(error.key, { example, digits, ...error.params });
      const control = this.controlOf(error.path);
      if (control === undefined) unclaimed.push(message);
      else fields[control] ??= message;
    }
    this.formError = unclaimed.join(' ');
    return fields;
  }

  /** The request body for what is typed (`check()` says whether the service would accept it). */
  body(): CreatePaymentLinkInput {
    const v = this.values;
    const sep = this.text().decimalSeparator;
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
      body.goalAmount = v.goalAmount.trim() ? normalizeAmount(v.goalAmount, sep) : null;
    }
    return body;
  }

  /** The control a rule's or the server's error path belongs to (undefined: none, the form's message). */
  controlOf(path: string): string | undefined {
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
      goalAmount: 'lf-goal',
    };
    return direct[path];
  }

  /** The suggested amounts as typed, one decimal string (or unreadable text, which the rules refuse) each. */
  private suggestedList(): string[] {
    const sep = this.text().decimalSeparator;
    // In a comma-decimal locale amounts are separated by semicolons or spaces as well as ", ".
    return this.values.suggestedAmounts
      .split(sep === ',' ? /;|\s+|,\s+/ : /[;,]/)
      .map((part) => normalizeAmount(part, sep))
      .filter((part) => part !== '');
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
      goalAmount: link.goalAmount ?? '',
    };
  }
}
