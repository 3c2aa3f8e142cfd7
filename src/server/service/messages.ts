/**
 * The API's English for every message key of `core/rules/` (the elements translate the same keys
 * in their own tables). These are the texts of `errors[].message`; `{name}` placeholders are filled
 * from the rule's params, and `{field}` with the last segment of the error's path.
 */
import { fillMessage, type RuleError, type RuleKey } from '../../core/rules/types.js';

/** One text per key: the type makes a missing key a compile error. */
export const API_MESSAGES: Readonly<Record<RuleKey, string>> = {
  'text.required': '{field} is required',
  'text.tooLong': '{field} is longer than {max} characters',
  'date.invalid': '{field} must be an ISO 8601 date-time between 1970 and 9999 (offsets from -12:00 to +14:00), such as 2030-01-31T18:00:00Z',
  'date.notFuture': '{field} must be in the future',
  'date.range': 'endDate must not be before startDate',
  'amount.required': '{field} is required: an amount such as 12.50',
  'amount.invalid': 'Must be a non-negative decimal amount, such as 12.50',
  'amount.decimals': '{unit} amounts have at most {digits} decimal places',
  'amount.positive': '{field} must be greater than 0',
  'amount.tooLarge': '{field} must be at most {max}',
  'donation.min': 'The smallest amount accepted is {amount}',
  'donation.max': 'The largest amount accepted is {amount}',
  'link.titleRequired': 'Title is required',
  'link.typeInvalid': 'linkType must be "Standard" or "Donation"',
  'link.currencyRequired': 'fiatCurrency needs at least one currency code',
  'link.currencyUnsupported': 'Unsupported currency: {codes}',
  'link.amountRequired': 'A Standard link needs a fiatAmount greater than 0 (or cart items)',
  'link.cartTotal': 'fiatAmount must equal the cart total ({total})',
  'link.itemNameRequired': 'Item name is required',
  'link.quantityInvalid': 'Quantity must be a whole number from 1 to {max}',
  'link.tooManyItems': 'A cart holds at most {max} items',
  'link.imageUrlInvalid': 'imageUrl must be an https:// URL',
  'link.redirectUrlInvalid': 'redirectUrl must be an absolute http:// or https:// URL',
  'link.redirectUrlRequired': 'A redirect needs an http:// or https:// redirectUrl',
  'link.donationOnly': '{field} applies to Donation links only',
  'link.maxAmountPositive': 'maxAmount must be greater than 0',
  'link.minOverMax': 'minAmount must not be greater than maxAmount',
  'link.tooManySuggested': 'At most {max} suggested amounts',
  'link.suggestedPositive': 'Suggested amounts must be greater than 0',
  'link.suggestedBelowMin': 'Suggested amounts must be at least minAmount',
  'link.suggestedAboveMax': 'Suggested amounts must be at most maxAmount',
  'withdrawal.assetUnsupported': 'assetId must be one of {assets}',
  'withdrawal.networkUnsupported': 'blockchainId must name a supported network: {networks}',
  'withdrawal.networkAsset': '{network} does not carry {asset}',
  'address.format': 'address must be an EVM address a payout can reach: 0x followed by 40 hexadecimal characters, not the zero address',
  'address.checksum': 'address fails its EIP-55 checksum (a character is mistyped or its case is wrong)',
  'customer.addressRequired': 'This link asks for your address',
  'customer.phoneRequired': 'This link asks for your phone number',
  'customer.phoneInvalid': 'Enter a phone number in international form, such as +2348012345678',
  'customer.emailInvalid': 'Enter a valid email address',
  'order.referenceRequired': 'reference is required: your own id of the order (1 to 200 characters)',
  'order.currencyRequired': 'fiatCurrency is required: the ISO 4217 code of the price, such as USD',
  'order.amountRequired': 'fiatAmount is required: the order’s price, greater than 0 (or cart items to total)',
  'order.expiresTooLate': 'expiresAt must be at most {days} days from now',
  'metadata.tooMany': 'metadata holds at most {max} keys',
  'metadata.keyInvalid': 'metadata keys are 1 to {max} characters',
  'metadata.valueInvalid': 'metadata values are strings',
  'webhook.urlRequired': 'url is required: the https:// address Paylink posts events to',
  'webhook.urlInvalid': 'url must be an absolute https:// URL, without user:password@ or #fragment',
  'webhook.urlHttps':
    'url must use https://. To post to a local http:// receiver while developing, start the service with PAYLINK_WEBHOOK_ALLOW_PRIVATE=1 in its environment',
  'webhook.urlPrivate':
    'url must name a host with public addresses only: this one does not resolve, or is, or resolves to, a private, loopback, link-local or otherwise non-public address, which this service does not post to. To post to a receiver on this machine or network while developing, start the service with PAYLINK_WEBHOOK_ALLOW_PRIVATE=1 in its environment',
  'webhook.eventsRequired': 'events needs at least one event type (leave it out for all of them)',
  'webhook.eventUnknown': 'Unknown event type; one of {events}',
};

/** The API's text of one rule error. */
export function ruleMessage(error: RuleError): string {
  const field =
    error.path
      .split('.')
      .filter((part) => !/^\d+$/.test(part))
      .at(-1) ?? 'value';
  return fillMessage(API_MESSAGES[error.key], { field, ...error.params });
}
