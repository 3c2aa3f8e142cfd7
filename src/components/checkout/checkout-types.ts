/**
 * What the checkout shares with the page it runs in and with its steps: the views it shows, the fields
 * the customer fills, what it pays (a link or an order), the events it sends and what it asks of its
 * host (`./checkout-machine.ts` runs it).
 */
import type { PaylinkError } from '../../client/errors.js';
import type { CheckoutSession, PublicLink, PublicOrder } from '../../core/schemas.js';
import type en from './translations/en.js';

/** The checkout's texts (`translations/en.ts` and the tables with the same keys). */
export type Messages = typeof en;
/** The key of one text. */
export type MessageKey = keyof Messages;

/** What the checkout shows: a step of the payment, or one of its unhappy states. */
export type CheckoutView = 'loading' | 'notFound' | 'inactive' | 'closed' | 'paid' | 'error' | 'rates' | 'amount' | 'details' | 'pay' | 'expired' | 'done';

/** A field the customer fills, named by its path in the API's field errors. */
export type FieldPath = 'fiatAmount' | 'customer.address' | 'customer.phone' | 'donorName' | 'message';

/**
 * What the steps show and pay: a link's public view, or an order's, which is paid as a Standard
 * link's (its own amount, never edited): it has one currency and no link type, donation bounds or
 * closing time.
 */
export type Payable =
  | PublicLink
  | (PublicOrder &
      Partial<Pick<PublicLink, 'linkType' | 'closesAt' | 'minAmount' | 'maxAmount' | 'suggestedAmounts' | 'goalAmount' | 'raised' | 'donorCount'>>);

/** `paylink-ready`: the link (or the order) loaded, whatever its state. */
export interface PaylinkReadyDetail {
  /** The link's public view; for an order, the order's (`state` is then `open`, `paid` or `closed`). */
  link: Payable;
}
/** `paylink-session`: a payment session started or resumed, or its status changed. */
export interface PaylinkSessionDetail {
  session: CheckoutSession;
}
/** `paylink-success`: the service reported the session `paid` or `overpaid`. */
export interface PaylinkSuccessDetail {
  session: CheckoutSession;
}
/** `paylink-error`: an error screen or a field error appeared. */
export interface PaylinkErrorDetail {
  /** The server's code (`not_found`, `link_closed`, `link_inactive`, `order_paid`, `order_expired`, `validation_failed`…) or `network_error`. */
  code: string;
  message: string;
  error: PaylinkError;
}

/** The events the checkout sends, by name. */
export interface CheckoutEvents {
  'paylink-ready': PaylinkReadyDetail;
  'paylink-session': PaylinkSessionDetail;
  'paylink-success': PaylinkSuccessDetail;
  'paylink-error': PaylinkErrorDetail;
}

/**
 * What the machine asks of the page it runs in, as a Lit controller asks its host: the machine keeps it
 * as its `host` and calls it (`host.requestUpdate()` after every change).
 */
export interface CheckoutHost {
  /** Sends an event; false when a listener cancelled a cancelable one. */
  emit<K extends keyof CheckoutEvents>(name: K, detail: CheckoutEvents[K], cancelable?: boolean): boolean;
  /** Reads, writes (`value`) or removes (`null`) a storage entry; null when storage is off. */
  store(area: 'localStorage' | 'sessionStorage', key: string, value?: string | null): string | null;
  /** Leaves for `url` (the merchant's redirect, already checked to be http(s)). */
  navigate(url: string): void;
  /** Puts `text` on the clipboard; rejects when the browser refuses. */
  clipboard(text: string): Promise<void>;
  /** The state changed (or a second passed on the quote's clock): render it. */
  requestUpdate(): void;
}
