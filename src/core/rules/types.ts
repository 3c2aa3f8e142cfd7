/**
 * What every rule returns: field errors that name a message by key, never by text. The service
 * turns keys into the API's English (`server/service/messages.ts`), each element into its own
 * translations (`components/admin/translations/*.ts`), so one rule speaks every language.
 * Isomorphic: no DOM, no Node, no zod.
 */

/** Every message a rule can return. A test checks that the service and the admin translate each one. */
export const RULE_KEYS = [
  // Text and dates (core/rules/text.ts, core/rules/dates.ts)
  'text.required',
  'text.tooLong',
  'date.invalid',
  'date.notFuture',
  'date.range',
  // Amounts and donation bounds (core/rules/amount.ts)
  'amount.required',
  'amount.invalid',
  'amount.decimals',
  'amount.positive',
  'amount.tooLarge',
  'donation.min',
  'donation.max',
  // Payment links (core/rules/link.ts)
  'link.titleRequired',
  'link.typeInvalid',
  'link.currencyRequired',
  'link.currencyUnsupported',
  'link.amountRequired',
  'link.cartTotal',
  'link.itemNameRequired',
  'link.quantityInvalid',
  'link.tooManyItems',
  'link.imageUrlInvalid',
  'link.redirectUrlInvalid',
  'link.redirectUrlRequired',
  'link.donationOnly',
  'link.maxAmountPositive',
  'link.minOverMax',
  'link.tooManySuggested',
  'link.suggestedPositive',
  'link.suggestedBelowMin',
  'link.suggestedAboveMax',
  // Withdrawals and networks (core/rules/withdrawal.ts, core/rules/networks.ts)
  'withdrawal.assetUnsupported',
  'withdrawal.networkUnsupported',
  'withdrawal.networkAsset',
  'address.format',
  'address.checksum',
  // Customer details (core/rules/customer.ts)
  'customer.addressRequired',
  'customer.phoneRequired',
  'customer.phoneInvalid',
  'customer.emailInvalid',
  // Orders (core/rules/order.ts)
  'order.referenceRequired',
  'order.currencyRequired',
  'order.amountRequired',
  'order.expiresTooLate',
  // A session's or an order's reference and metadata (core/rules/session-tags.ts)
  'metadata.tooMany',
  'metadata.keyInvalid',
  'metadata.valueInvalid',
  // Webhook endpoints (core/rules/webhooks.ts)
  'webhook.urlRequired',
  'webhook.urlInvalid',
  'webhook.urlHttps',
  'webhook.urlPrivate',
  'webhook.eventsRequired',
  'webhook.eventUnknown',
] as const;

/** The key of one message. */
export type RuleKey = (typeof RULE_KEYS)[number];

/** Values a message is filled with (`{max}`, `{currency}`, …). */
export type RuleParams = Readonly<Record<string, string | number>>;

/**
 * One refused field: `path` is dotted as in the API's `errors[].path` (`cart.items.0.quantity`),
 * `key` names the message, `params` fill it.
 */
export interface RuleError {
  path: string;
  key: RuleKey;
  params?: RuleParams;
}

/** Collects the errors of one check; `fail` returns null so a reader can `return fail(…)`. */
export class RuleErrors {
  readonly list: RuleError[] = [];

  fail(path: string, key: RuleKey, params?: RuleParams): null {
    this.list.push(params ? { path, key, params } : { path, key });
    return null;
  }

  /** True when some error is on `path` (or, with `prefix`, on a path ending in it). */
  has(path: string, prefix = false): boolean {
    return this.list.some((error) => (prefix ? error.path.endsWith(path) : error.path === path));
  }

  get empty(): boolean {
    return this.list.length === 0;
  }
}

/**
 * Fills a message's `{name}` placeholders from `params`: the service's API messages, the checkout's
 * and the admin's texts all go through here. A name is letters, digits and `_`; each of its
 * placeholders is filled (a name may repeat). A name `params` has no value for stays as it is
 * (`{name}`, a visible slip rather than a silent gap or "undefined"), and so do braces around anything
 * else (`{}`, `{ name }`). Values are put in as text, once: a value holding `{x}` or `$&` is not read again.
 */
export function fillMessage(template: string, params: Readonly<Record<string, string | number | undefined>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => String(params[name] ?? whole));
}
