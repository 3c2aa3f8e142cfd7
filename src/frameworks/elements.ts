/**
 * The attributes and events of Paylink's elements as framework typings see them: one source for the
 * React (`paylink/react`) and Vue (`paylink/vue`) declarations beside this file. The events' detail
 * types come from the elements' own `GlobalEventHandlersEventMap` entries, so they cannot drift.
 */
import type { PaylinkErrorDetail, PaylinkReadyDetail, PaylinkSessionDetail, PaylinkSuccessDetail } from '../components/checkout/paylink-checkout.js';
import type { AdminView } from '../components/admin/paylink-admin.js';

export type { PaylinkErrorDetail, PaylinkReadyDetail, PaylinkSessionDetail, PaylinkSuccessDetail };

/** The events of `<paylink-checkout>`, by name. */
export interface PaylinkCheckoutEventMap {
  'paylink-ready': GlobalEventHandlersEventMap['paylink-ready'];
  'paylink-session': GlobalEventHandlersEventMap['paylink-session'];
  'paylink-success': GlobalEventHandlersEventMap['paylink-success'];
  'paylink-error': GlobalEventHandlersEventMap['paylink-error'];
}

/** The events of `<paylink-admin>`, by name. */
export interface PaylinkAdminEventMap {
  'paylink-auth-required': GlobalEventHandlersEventMap['paylink-auth-required'];
  'paylink-link-saved': GlobalEventHandlersEventMap['paylink-link-saved'];
  'paylink-withdrawal-created': GlobalEventHandlersEventMap['paylink-withdrawal-created'];
  'paylink-payments-export': GlobalEventHandlersEventMap['paylink-payments-export'];
}

/** `paylink-link-saved` → `PaylinkLinkSaved`: how Vue (and our React components) name a listener after `on`. */
export type PascalEventName<Name extends string> = Name extends `${infer Head}-${infer Tail}`
  ? `${Capitalize<Head>}${PascalEventName<Tail>}`
  : Capitalize<Name>;

/** Listeners named `on` + the exact event name (`onpaylink-success`): how React 19 attaches them to custom elements. */
export type ExactListeners<Events> = {
  [Name in keyof Events & string as `on${Name}`]?: (event: Events[Name]) => void;
};

/** Listeners named `on` + the event name in PascalCase (`onPaylinkSuccess`): Vue's `@paylink-success`, our React components. */
export type PascalListeners<Events> = {
  [Name in keyof Events & string as `on${PascalEventName<Name>}`]?: (event: Events[Name]) => void;
};

/**
 * Attributes of `<paylink-checkout>` as written in markup (kebab-case). It pays a link (`slug`) or an
 * order (`order`): `PaylinkCheckoutTarget` says one of them must be there.
 */
export interface PaylinkCheckoutAttributes {
  /** The payment link's slug. */
  slug?: string | undefined;
  /** The id of an order the shop's server created (`POST /v1/order`), paid instead of a link. */
  order?: string | undefined;
  /** Where the merchant's proxy is mounted (default `/paylink`). */
  'api-base'?: string | undefined;
  /** BCP 47 locale, e.g. `fr`. */
  locale?: string | undefined;
  /** Force the light or dark scheme. */
  theme?: 'light' | 'dark' | undefined;
  /**
   * What the page says the payment is for (at most 200 characters), stored as the session's
   * `clientReference`: anyone can change a page, so it never names the merchant's order.
   */
  'client-reference'?: string | undefined;
  /** On a fundraiser, show its latest public donors: how many (1–50; empty for 5). */
  donors?: string | number | undefined;
}

/** What `<paylink-checkout>` pays: a link's `slug` or an `order` id (the order wins when both are given). */
export type PaylinkCheckoutTarget = { slug: string; order?: string | undefined } | { order: string; slug?: string | undefined };

/**
 * Properties of `<paylink-checkout>` that have no attribute (an object can't be written in markup).
 * React 19 and Vue set a prop the element has as a property, so `metadata={{ cart: 'c_9' }}` works in both.
 */
export interface PaylinkCheckoutProperties {
  /**
   * Up to 20 string pairs (keys 1–40 characters, values up to 500) sent with the payment session;
   * the merchant reads them back on the keyed session read and in webhooks.
   */
  metadata?: Record<string, string> | undefined;
}

/** Attributes of `<paylink-admin>` as written in markup. The bearer token is a property (`token`), never an attribute. */
export interface PaylinkAdminAttributes {
  /** Where the merchant's proxy is mounted (default `/paylink`). */
  'api-base'?: string | undefined;
  /** BCP 47 locale, e.g. `fr`. */
  locale?: string | undefined;
  /** Force the light or dark scheme. */
  theme?: 'light' | 'dark' | undefined;
  /** The view shown first. */
  view?: AdminView | undefined;
  /** How often pending withdrawals are refreshed, in ms (pending balances: every 3 × that). */
  'poll-interval'?: number | string | undefined;
  /** The checkout script the embed snippet loads (default: `/dist/paylink-checkout.js` on the links' own origin). */
  'checkout-src'?: string | undefined;
}

/** `api-base` → `apiBase`. */
type CamelName<Name extends string> = Name extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelName<Tail>>}` : Name;

/** The same attributes named as properties (camelCase), as Vue props and our React components take them. */
export type CamelAttributes<Attributes> = {
  [Name in keyof Attributes as CamelName<Name & string>]: Attributes[Name];
};
