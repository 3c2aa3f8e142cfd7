/**
 * The attributes and events of Paylink's elements as framework typings see them. One source for the
 * React, Preact and Vue declarations beside this file.
 */
import type {
  PaylinkErrorDetail,
  PaylinkReadyDetail,
  PaylinkSessionDetail,
  PaylinkSuccessDetail,
} from '../components/checkout/paylink-checkout.js';

export type { PaylinkErrorDetail, PaylinkReadyDetail, PaylinkSessionDetail, PaylinkSuccessDetail };

/** Attributes of `<paylink-checkout>`. */
export interface PaylinkCheckoutAttributes {
  /** The payment link's slug. */
  slug: string;
  /** Where the merchant's proxy is mounted (default `/paylink`). */
  'api-base'?: string;
  /** BCP 47 locale, e.g. `fr`. */
  locale?: string;
  /** Force the light or dark scheme. */
  theme?: 'light' | 'dark';
}

/** Attributes of `<paylink-admin>`. The bearer token is a property (`token`), never an attribute. */
export interface PaylinkAdminAttributes {
  'api-base'?: string;
  locale?: string;
  theme?: 'light' | 'dark';
}

/** Listeners as React 19 and Preact attach them to custom elements: `on` + the exact event name. */
export interface PaylinkCheckoutListeners {
  'onpaylink-ready'?: (event: CustomEvent<PaylinkReadyDetail>) => void;
  'onpaylink-session'?: (event: CustomEvent<PaylinkSessionDetail>) => void;
  'onpaylink-success'?: (event: CustomEvent<PaylinkSuccessDetail>) => void;
  'onpaylink-error'?: (event: CustomEvent<PaylinkErrorDetail>) => void;
}
