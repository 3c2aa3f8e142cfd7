/**
 * The rules of an order a shop creates (`POST /v1/order`): the shop's own price for its own cart,
 * named by the shop's `reference`. An order is made with the API key only, so its amount, currency,
 * reference and metadata are the merchant's word; a page can open it and pay it, never change it.
 *
 * Everything an order shares with a payment link is checked by the same rule (`link.ts`: currency
 * codes, cart lines and their total, the redirect; `amount.ts`; `text.ts`; `session-tags.ts` for the
 * reference and metadata; `dates.ts`). Isomorphic: no DOM, no Node, no zod.
 */
import { compareDecimal, fiatDigits, fractionDigits } from '../money.js';
import { checkAmount } from './amount.js';
import { parseDateTime } from './dates.js';
import { cartTotal, checkRedirectUrl, readCartItems, readCurrencyCodes, type CartItemInput, type LinkCartItem } from './link.js';
import { MAX_AMOUNT, MAX_LENGTH } from './limits.js';
import { checkSessionTags } from './session-tags.js';
import { checkText } from './text.js';
import { RuleErrors, type RuleError } from './types.js';

/** The states of an order: `open` until the first payment in full, the merchant's cancel, or `expiresAt`. */
export const ORDER_STATUSES = ['open', 'paid', 'expired', 'cancelled'] as const;

/** One order status. */
export type OrderStatusName = (typeof ORDER_STATUSES)[number];

/** How long an order stays payable when `expiresAt` is not given: a day, time for a customer to come back to an emailed link. */
export const ORDER_TTL_MS = 24 * 60 * 60 * 1000;

/** The latest `expiresAt` an order may have: 30 days after its creation. */
export const MAX_ORDER_TTL_MS = 30 * 24 * 60 * 60 * 1000;

type Amount = number | string;

/** A create body, with its types already checked (what zod's schema lets through). */
export interface OrderInput {
  fiatAmount?: Amount | undefined;
  fiatCurrency?: string | undefined;
  reference?: string | undefined;
  title?: string | undefined;
  description?: string | undefined;
  cart?: { items?: CartItemInput[] | undefined } | undefined;
  metadata?: Readonly<Record<string, unknown>> | undefined;
  prepayOptions?: { collectAddress?: boolean | undefined; collectPhone?: boolean | undefined } | undefined;
  postpayAction?: { successMessage?: string | undefined; redirectUrl?: string | undefined; showConfirmationPage?: boolean | undefined } | undefined;
  expiresAt?: string | null | undefined;
}

/** An order as stored, before its id and timestamps. */
export interface OrderDraft {
  reference: string;
  title: string;
  description: string;
  /** In the currency's digits, as `fiatDigits(fiatCurrency)` allows. */
  fiatAmount: string;
  fiatCurrency: string;
  cartItems: LinkCartItem[];
  metadata: Record<string, string>;
  collectAddress: boolean;
  collectPhone: boolean;
  successMessage: string;
  /** '' for none; the checkout sends the paid customer there (http/https only). */
  redirectUrl: string;
  showConfirmationPage: boolean;
  expiresAt: Date;
}

/** What `resolveOrderDraft` found: the draft, valid only when `errors` is empty. */
export interface OrderResolution {
  draft: OrderDraft;
  errors: RuleError[];
}

/**
 * Checks a create body as a whole, naming every offending field. `fiatAmount` is the price in
 * `fiatCurrency` (its ISO 4217 digits at most); with cart items it defaults to their total and, when
 * given, must equal it. `reference` (the shop's order id) is required. `expiresAt` is in the future and
 * at most 30 days away (default: a day after `now`).
 */
export function resolveOrderDraft(input: OrderInput, now: Date): OrderResolution {
  const errors = new RuleErrors();
  const draft: OrderDraft = {
    reference: '',
    title: '',
    description: '',
    fiatAmount: '0',
    fiatCurrency: '',
    cartItems: [],
    metadata: {},
    collectAddress: input.prepayOptions?.collectAddress ?? false,
    collectPhone: input.prepayOptions?.collectPhone ?? false,
    successMessage: '',
    redirectUrl: '',
    showConfirmationPage: input.postpayAction?.showConfirmationPage ?? true,
    expiresAt: new Date(now.getTime() + ORDER_TTL_MS),
  };

  const { tags, errors: tagErrors } = checkSessionTags(input.reference, input.metadata);
  errors.list.push(...tagErrors);
  if (tags.reference === null && !errors.has('reference')) errors.fail('reference', 'order.referenceRequired');
  draft.reference = tags.reference ?? '';
  draft.metadata = tags.metadata;

  if (input.title !== undefined) draft.title = checkText(input.title, 'title', { max: MAX_LENGTH.title }, errors, { trim: true }) ?? '';
  if (input.description !== undefined) draft.description = checkText(input.description, 'description', { max: MAX_LENGTH.description }, errors) ?? '';

  const currency = input.fiatCurrency?.trim()
    ? readCurrencyCodes(input.fiatCurrency, 'fiatCurrency', errors)?.[0]
    : errors.fail('fiatCurrency', 'order.currencyRequired');
  draft.fiatCurrency = currency ?? '';
  // Without a known currency its digits are unknown: the amounts are checked once it is fixed.
  if (!currency) return { draft, errors: errors.list };
  const digits = fiatDigits(currency);
  const amountRule = { digits, unit: currency };

  if (input.cart?.items !== undefined) draft.cartItems = readCartItems(input.cart.items, amountRule, errors);
  const amountGiven = input.fiatAmount !== undefined;
  const amount = amountGiven ? checkAmount(input.fiatAmount, 'fiatAmount', { ...amountRule, positive: true }, errors) : null;
  if (draft.cartItems.length > 0 && !errors.list.some((error) => error.path.startsWith('cart.'))) {
    const total = cartTotal(draft.cartItems, digits);
    if (compareDecimal(total, MAX_AMOUNT) > 0) errors.fail(amountGiven ? 'fiatAmount' : 'cart.items', 'amount.tooLarge', { max: MAX_AMOUNT });
    else if (amount !== null && compareDecimal(amount, total) !== 0) errors.fail('fiatAmount', 'link.cartTotal', { total });
    else if (!errors.has('fiatAmount')) draft.fiatAmount = total;
  } else if (amount !== null) {
    draft.fiatAmount = amount;
  } else if (!amountGiven) {
    errors.fail('fiatAmount', 'order.amountRequired');
  }
  if (compareDecimal(draft.fiatAmount, '0') <= 0 && errors.empty) errors.fail('fiatAmount', 'order.amountRequired');
  if (fractionDigits(draft.fiatAmount) > digits && !errors.has('fiatAmount')) errors.fail('fiatAmount', 'amount.decimals', { unit: currency, digits });

  const action = input.postpayAction;
  if (action?.successMessage !== undefined)
    draft.successMessage = checkText(action.successMessage, 'postpayAction.successMessage', { max: MAX_LENGTH.successMessage }, errors) ?? '';
  if (action?.redirectUrl !== undefined) draft.redirectUrl = checkRedirectUrl(action.redirectUrl, 'postpayAction.redirectUrl', errors) ?? '';

  if (input.expiresAt !== undefined && input.expiresAt !== null) {
    const expiresAt = input.expiresAt.length > MAX_LENGTH.dateText ? null : parseDateTime(input.expiresAt);
    if (expiresAt === null) errors.fail('expiresAt', 'date.invalid');
    else if (expiresAt.getTime() <= now.getTime()) errors.fail('expiresAt', 'date.notFuture');
    else if (expiresAt.getTime() > now.getTime() + MAX_ORDER_TTL_MS) errors.fail('expiresAt', 'order.expiresTooLate', { days: MAX_ORDER_TTL_MS / 86_400_000 });
    else draft.expiresAt = expiresAt;
  }
  return { draft, errors: errors.list };
}
