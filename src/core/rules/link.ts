/**
 * The rules of a payment link (with its tolerances): what a create or update body may say, and
 * what the link it leaves must be. `resolveLinkDraft` is the one authority: the service runs it on
 * every create and update (after zod has checked the types), and the admin's link form runs it on
 * the body it is about to send, so both accept exactly the same links.
 * Isomorphic: no DOM, no Node, no zod.
 */
import { DEFAULT_CURRENCY, FIAT_DIGITS, compareDecimal, fiatDigits, fractionDigits, fromUnits, priceCurrencyOf, toDecimalString, toUnits } from '../money.js';
import { checkAmount, type AmountRule } from './amount.js';
import { parseDateTime } from './dates.js';
import { MAX_AMOUNT, MAX_COUNT, MAX_LENGTH } from './limits.js';
import { checkText } from './text.js';
import { RuleErrors, type RuleError } from './types.js';

/** The two kinds of link. */
export const LINK_TYPES = ['Standard', 'Donation'] as const;
export type LinkKind = (typeof LINK_TYPES)[number];

/** One cart line as stored. */
export interface LinkCartItem {
  name: string;
  quantity: number;
  unitAmount: string;
  description?: string;
  imageUrl?: string;
}

/** The canonical content of a link: what a create starts from, an update from the stored link, and both end in. */
export interface LinkDraft {
  title: string;
  description: string;
  linkType: LinkKind;
  fiatAmount: string;
  fiatCurrency: string[];
  collectAddress: boolean;
  collectPhone: boolean;
  redirect: boolean;
  showConfirmationPage: boolean;
  successMessage: string;
  redirectUrl: string;
  cartItems: LinkCartItem[];
  isActive: boolean;
  closesAt: Date | null;
  minAmount: string | null;
  maxAmount: string | null;
  suggestedAmounts: string[];
  /** A donation's goal in its price currency (null: none). */
  goalAmount: string | null;
}

/** What a new link is before its create body applies. */
export const EMPTY_LINK_DRAFT: Readonly<LinkDraft> = {
  title: '',
  description: '',
  linkType: 'Standard',
  fiatAmount: '0',
  fiatCurrency: [DEFAULT_CURRENCY],
  collectAddress: false,
  collectPhone: false,
  redirect: false,
  showConfirmationPage: false,
  successMessage: '',
  redirectUrl: '',
  cartItems: [],
  isActive: true,
  closesAt: null,
  minAmount: null,
  maxAmount: null,
  suggestedAmounts: [],
  goalAmount: null,
};

type Amount = number | string;

/** A create or update body, with its types already checked (what zod's schemas let through). */
export interface LinkInput {
  title?: string | undefined;
  description?: string | undefined;
  linkType?: string | undefined;
  fiatCurrency?: string | string[] | undefined;
  fiatAmount?: Amount | undefined;
  action?:
    | {
        successMessage?: string | undefined;
        redirect?: boolean | undefined;
        showConfirmationPage?: boolean | undefined;
        redirectURL?: string | undefined;
        redirectUrl?: string | undefined;
        isActive?: boolean | undefined;
      }
    | undefined;
  options?: { collectAddress?: boolean | undefined; collectPhone?: boolean | undefined } | undefined;
  cart?:
    | {
        items?: CartItemInput[] | undefined;
        fiatCurrency?: string | string[] | undefined;
        fiatAmount?: Amount | undefined;
      }
    | undefined;
  isActive?: boolean | undefined;
  closesAt?: string | null | undefined;
  minAmount?: Amount | null | undefined;
  maxAmount?: Amount | null | undefined;
  suggestedAmounts?: Amount[] | undefined;
  goalAmount?: Amount | null | undefined;
}

/** A link as the API returns it, as far as the rules need it (to rebuild the draft an update applies to). */
export interface LinkView {
  title: string;
  description: string;
  linkType: LinkKind;
  fiatAmount: string;
  fiatCurrency: string[];
  prepayOptions: { collectAddress: boolean; collectPhone: boolean };
  postpayAction: { redirect: boolean; showConfirmationPage: boolean; successMessage: string; redirectUrl: string };
  cart: { items: LinkCartItem[] };
  isActive: boolean;
  closesAt?: string | null | undefined;
  minAmount?: string | null | undefined;
  maxAmount?: string | null | undefined;
  suggestedAmounts?: string[] | undefined;
  goalAmount?: string | null | undefined;
}

/** The draft of a link the API returned: what an update of it starts from (the admin's edit form). */
export function draftOfLink(link: LinkView): LinkDraft {
  return {
    title: link.title,
    description: link.description,
    linkType: link.linkType,
    fiatAmount: toDecimalString(link.fiatAmount) ?? '0',
    fiatCurrency: [...link.fiatCurrency],
    collectAddress: link.prepayOptions.collectAddress,
    collectPhone: link.prepayOptions.collectPhone,
    redirect: link.postpayAction.redirect,
    showConfirmationPage: link.postpayAction.showConfirmationPage,
    successMessage: link.postpayAction.successMessage,
    redirectUrl: link.postpayAction.redirectUrl,
    cartItems: link.cart.items.map((item) => ({ ...item, unitAmount: toDecimalString(item.unitAmount) ?? item.unitAmount })),
    isActive: link.isActive,
    closesAt: link.closesAt ? new Date(link.closesAt) : null,
    minAmount: link.minAmount == null ? null : toDecimalString(link.minAmount),
    maxAmount: link.maxAmount == null ? null : toDecimalString(link.maxAmount),
    suggestedAmounts: (link.suggestedAmounts ?? []).map((amount) => toDecimalString(amount) ?? amount),
    goalAmount: link.goalAmount == null ? null : toDecimalString(link.goalAmount),
  };
}

/**
 * True for an absolute URL with a host whose scheme is one of `protocols` (default http and https):
 * the only kind of redirect the checkout follows, and the only kind of link the admin shows as one.
 */
export function isHttpUrl(value: string, protocols: readonly string[] = ['http:', 'https:']): boolean {
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Reads `linkType` in any case (`DONATION` → `Donation`); null when it is neither kind. */
export function readLinkType(value: string): LinkKind | null {
  const wanted = value.trim().toLowerCase();
  return LINK_TYPES.find((type) => type.toLowerCase() === wanted) ?? null;
}

/** One cart line of a request, with its types already checked. */
export interface CartItemInput {
  name: string;
  quantity: number;
  unitAmount: Amount;
  description?: string | undefined;
  imageUrl?: string | undefined;
}

/**
 * Reads currency codes (one, or a list) as stored: trimmed, upper case, each known (ISO 4217 with its
 * digits in `FIAT_DIGITS`), without repeats. Null, with an error on `path`, when there is none or one
 * is unknown.
 */
export function readCurrencyCodes(input: string | readonly string[], path: string, errors: RuleErrors): string[] | null {
  const codes = (typeof input === 'string' ? [input] : input).map((c) => c.trim().toUpperCase());
  const unknown = codes.filter((code) => !(code in FIAT_DIGITS));
  if (codes.length === 0) return errors.fail(path, 'link.currencyRequired');
  if (unknown.length) return errors.fail(path, 'link.currencyUnsupported', { codes: unknown.join(', ') });
  return [...new Set(codes)];
}

/**
 * Reads the lines of a cart (`cart.items`): a name, a whole quantity, a unit amount of `amountRule`,
 * an optional description and https image. Returns the lines that passed; every refusal is on its
 * `cart.items.<n>.<field>` path.
 */
export function readCartItems(items: readonly CartItemInput[], amountRule: AmountRule, errors: RuleErrors): LinkCartItem[] {
  if (items.length > MAX_COUNT.cartItems) errors.fail('cart.items', 'link.tooManyItems', { max: MAX_COUNT.cartItems });
  const lines: LinkCartItem[] = [];
  items.forEach((item, index) => {
    const path = `cart.items.${index}`;
    const name = checkText(item.name, `${path}.name`, { max: MAX_LENGTH.itemName }, errors, { trim: true });
    if (name === '') errors.fail(`${path}.name`, 'link.itemNameRequired');
    if (!Number.isInteger(item.quantity) || item.quantity < 1 || item.quantity > MAX_COUNT.quantity)
      errors.fail(`${path}.quantity`, 'link.quantityInvalid', { max: MAX_COUNT.quantity });
    if (item.description !== undefined) checkText(item.description, `${path}.description`, { max: MAX_LENGTH.itemDescription }, errors);
    if (item.imageUrl !== undefined && item.imageUrl !== '') {
      if (item.imageUrl.length > MAX_LENGTH.url) errors.fail(`${path}.imageUrl`, 'text.tooLong', { max: MAX_LENGTH.url });
      else if (!isHttpUrl(item.imageUrl, ['https:'])) errors.fail(`${path}.imageUrl`, 'link.imageUrlInvalid');
    }
    const unitAmount = checkAmount(item.unitAmount, `${path}.unitAmount`, amountRule, errors);
    if (unitAmount === null) return;
    lines.push({
      name: name ?? item.name,
      quantity: item.quantity,
      unitAmount,
      ...(item.description ? { description: item.description } : {}),
      ...(item.imageUrl ? { imageUrl: item.imageUrl } : {}),
    });
  });
  return lines;
}

/** The exact total of cart lines (unit amounts × quantities) with the currency's `digits`. */
export function cartTotal(items: readonly LinkCartItem[], digits: number): string {
  return fromUnits(
    items.reduce((sum, item) => sum + toUnits(item.unitAmount, digits) * BigInt(item.quantity), 0n),
    digits,
  );
}

/**
 * Reads where a paid customer is sent: '' for nowhere, else an absolute `http:`/`https:` URL (the
 * only kind the checkout follows). Null, with an error on `path`, otherwise.
 */
export function checkRedirectUrl(url: string, path: string, errors: RuleErrors): string | null {
  if (url.length > MAX_LENGTH.url) return errors.fail(path, 'text.tooLong', { max: MAX_LENGTH.url });
  if (url.trim() !== '' && !isHttpUrl(url.trim())) return errors.fail(path, 'link.redirectUrlInvalid');
  return url.trim();
}

/** What `resolveLinkDraft` found: the new draft, valid only when `errors` is empty. */
export interface LinkResolution {
  draft: LinkDraft;
  errors: RuleError[];
}

/**
 * Applies a create or update body to `base` and checks the link it leaves as a whole, naming every
 * offending field. `isCreate` makes a title required; `now` is the clock a closing time must be after.
 */
export function resolveLinkDraft(base: Readonly<LinkDraft>, input: LinkInput, now: Date, isCreate: boolean): LinkResolution {
  const errors = new RuleErrors();
  const draft: LinkDraft = { ...base, cartItems: [...base.cartItems], suggestedAmounts: [...base.suggestedAmounts] };

  if (input.title !== undefined) draft.title = checkText(input.title, 'title', { max: MAX_LENGTH.title }, errors, { trim: true }) ?? draft.title;
  if (input.title !== undefined && input.title.trim() === '') errors.fail('title', 'link.titleRequired');
  if (input.description !== undefined)
    draft.description = checkText(input.description, 'description', { max: MAX_LENGTH.description }, errors) ?? draft.description;

  if (input.linkType !== undefined) {
    const linkType = readLinkType(input.linkType);
    if (linkType === null) errors.fail('linkType', 'link.typeInvalid');
    else draft.linkType = linkType;
  }

  // fiatCurrency and fiatAmount may sit at the top level or, as some spec examples show, inside cart.
  const currencyInput = input.fiatCurrency ?? input.cart?.fiatCurrency;
  if (currencyInput !== undefined) {
    const codes = readCurrencyCodes(currencyInput, input.fiatCurrency !== undefined ? 'fiatCurrency' : 'cart.fiatCurrency', errors);
    if (codes) draft.fiatCurrency = codes;
  }
  const currency = priceCurrencyOf(draft.fiatCurrency);
  const digits = fiatDigits(currency);
  const amountRule = { digits, unit: currency };

  const amountValue = input.fiatAmount ?? input.cart?.fiatAmount;
  const amountPath = input.fiatAmount !== undefined ? 'fiatAmount' : 'cart.fiatAmount';
  const amountGiven = amountValue !== undefined;
  if (amountGiven) draft.fiatAmount = checkAmount(amountValue, amountPath, amountRule, errors) ?? draft.fiatAmount;

  const items = input.cart?.items;
  if (items !== undefined) draft.cartItems = readCartItems(items, amountRule, errors);

  const action = input.action;
  if (action) {
    if (action.successMessage !== undefined)
      draft.successMessage = checkText(action.successMessage, 'action.successMessage', { max: MAX_LENGTH.successMessage }, errors) ?? draft.successMessage;
    if (action.redirect !== undefined) draft.redirect = action.redirect;
    if (action.showConfirmationPage !== undefined) draft.showConfirmationPage = action.showConfirmationPage;
    if (action.isActive !== undefined) draft.isActive = action.isActive;
    const url = action.redirectUrl ?? action.redirectURL;
    if (url !== undefined) {
      const redirectUrl = checkRedirectUrl(url, action.redirectUrl !== undefined ? 'action.redirectUrl' : 'action.redirectURL', errors);
      if (redirectUrl !== null) draft.redirectUrl = redirectUrl;
    }
  }
  if (input.isActive !== undefined) draft.isActive = input.isActive;
  if (draft.redirect && draft.redirectUrl === '') errors.fail('action.redirectUrl', 'link.redirectUrlRequired');

  if (input.options) {
    if (input.options.collectAddress !== undefined) draft.collectAddress = input.options.collectAddress;
    if (input.options.collectPhone !== undefined) draft.collectPhone = input.options.collectPhone;
  }

  if (draft.linkType === 'Standard') resolveStandard(draft, input, errors, amountGiven, amountPath, items !== undefined);
  else resolveDonation(draft, input, errors, now, amountRule);

  if (isCreate && draft.title === '' && !errors.has('title')) errors.fail('title', 'link.titleRequired');
  return { draft, errors: errors.list };
}

const DONATION_FIELDS = ['closesAt', 'minAmount', 'maxAmount', 'suggestedAmounts', 'goalAmount'] as const;

/** A Standard link: no donation extras; its price is its fixed amount, which equals its cart's total when it has one. */
function resolveStandard(draft: LinkDraft, input: LinkInput, errors: RuleErrors, amountGiven: boolean, amountPath: string, itemsGiven: boolean) {
  for (const field of DONATION_FIELDS) {
    const value = input[field];
    if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0)) errors.fail(field, 'link.donationOnly', { field });
  }
  Object.assign(draft, { closesAt: null, minAmount: null, maxAmount: null, suggestedAmounts: [], goalAmount: null });
  if (!errors.empty) return;

  // Items kept from the stored link were read against the price currency they had then.
  const currency = priceCurrencyOf(draft.fiatCurrency);
  const digits = fiatDigits(currency);
  draft.cartItems.forEach((item, index) => {
    if (fractionDigits(item.unitAmount) > digits) errors.fail(`cart.items.${index}.unitAmount`, 'amount.decimals', { unit: currency, digits });
  });
  if (draft.cartItems.length > 0 && errors.empty) {
    const total = cartTotal(draft.cartItems, digits);
    // Each line is within the cap, but their total must be too: it becomes the link's price.
    if (compareDecimal(total, MAX_AMOUNT) > 0) errors.fail(amountGiven ? amountPath : 'fiatAmount', 'amount.tooLarge', { max: MAX_AMOUNT });
    else if (amountGiven && compareDecimal(draft.fiatAmount, total) !== 0) errors.fail(amountPath, 'link.cartTotal', { total });
    else if (amountGiven || itemsGiven || compareDecimal(draft.fiatAmount, total) !== 0) draft.fiatAmount = total;
  }
  if (compareDecimal(draft.fiatAmount, '0') <= 0 && errors.empty) errors.fail('fiatAmount', 'link.amountRequired');
  // A stored price may have more digits than a newly chosen price currency allows.
  if (fractionDigits(draft.fiatAmount) > digits && !errors.has('fiatAmount', true)) errors.fail('fiatAmount', 'amount.decimals', { unit: currency, digits });
}

/** A Donation: the donor chooses, within optional bounds, until an optional closing time, toward an optional goal. */
function resolveDonation(draft: LinkDraft, input: LinkInput, errors: RuleErrors, now: Date, amountRule: { digits: number; unit: string }) {
  if (input.closesAt !== undefined) {
    if (input.closesAt === null || input.closesAt === '') draft.closesAt = null;
    else if (input.closesAt.length > MAX_LENGTH.dateText) errors.fail('closesAt', 'date.invalid');
    else {
      const closesAt = parseDateTime(input.closesAt);
      if (closesAt === null) errors.fail('closesAt', 'date.invalid');
      else if (closesAt.getTime() <= now.getTime()) errors.fail('closesAt', 'date.notFuture');
      else draft.closesAt = closesAt;
    }
  }
  for (const field of ['minAmount', 'maxAmount', 'goalAmount'] as const) {
    const value = input[field];
    if (value === null) draft[field] = null;
    // A goal of 0 (or less: refused as unreadable) would be met before the first gift.
    else if (value !== undefined) draft[field] = checkAmount(value, field, { ...amountRule, positive: field === 'goalAmount' }, errors);
  }
  if (input.suggestedAmounts !== undefined) {
    if (input.suggestedAmounts.length > MAX_COUNT.suggestedAmounts)
      errors.fail('suggestedAmounts', 'link.tooManySuggested', { max: MAX_COUNT.suggestedAmounts });
    draft.suggestedAmounts = input.suggestedAmounts
      .map((value, index) => checkAmount(value, `suggestedAmounts.${index}`, amountRule, errors))
      .filter((amount): amount is string => amount !== null);
  }
  if (draft.maxAmount !== null && compareDecimal(draft.maxAmount, '0') <= 0) errors.fail('maxAmount', 'link.maxAmountPositive');
  if (draft.minAmount !== null && draft.maxAmount !== null && compareDecimal(draft.minAmount, draft.maxAmount) > 0) errors.fail('minAmount', 'link.minOverMax');
  draft.suggestedAmounts.forEach((amount, index) => {
    const path = `suggestedAmounts.${index}`;
    if (compareDecimal(amount, '0') <= 0) errors.fail(path, 'link.suggestedPositive');
    else if (draft.minAmount !== null && compareDecimal(amount, draft.minAmount) < 0) errors.fail(path, 'link.suggestedBelowMin');
    else if (draft.maxAmount !== null && compareDecimal(amount, draft.maxAmount) > 0) errors.fail(path, 'link.suggestedAboveMax');
  });
}
