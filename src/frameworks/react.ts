/**
 * `paylink/react`: Paylink's elements in React 19.
 *
 * Two ways, both typed:
 * - the elements themselves, `<paylink-checkout slug="…" onpaylink-success={…} />` (React 19 sets
 *   attributes and adds listeners on custom elements itself): importing this module adds them to
 *   `JSX.IntrinsicElements`, so attributes and each event's `detail` are checked. TypeScript never
 *   checks a JSX attribute whose name has a dash unless it is declared, though, so a misspelt
 *   `onpaylink-sucess` compiles (and never fires);
 * - the components `<PaylinkCheckout slug="…" onPaylinkSuccess={…} />` and `<PaylinkAdmin />`, which
 *   render those elements: their props have no dash, so a misspelt event is an error too.
 *
 * Neither defines the elements: import `paylink/checkout` (or `paylink/admin`, or `paylink`) once in
 * the browser, so a storefront bundles the checkout alone. Needs React 19 (custom element support).
 */
import React, { type DetailedHTMLProps, type HTMLAttributes, type ReactElement, type Ref } from 'react';
import type { PaylinkAdmin as PaylinkAdminElement } from '../components/admin/paylink-admin.js';
import type { PaylinkCheckout as PaylinkCheckoutElement } from '../components/checkout/paylink-checkout.js';
import type {
  CamelAttributes,
  ExactListeners,
  PascalListeners,
  PaylinkAdminAttributes,
  PaylinkAdminEventMap,
  PaylinkCheckoutAttributes,
  PaylinkCheckoutEventMap,
  PaylinkCheckoutProperties,
  PaylinkCheckoutTarget,
} from './elements.js';

export type * from './elements.js';

type IntrinsicProps<Element> = DetailedHTMLProps<HTMLAttributes<Element>, Element>;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'paylink-checkout': IntrinsicProps<PaylinkCheckoutElement> &
        PaylinkCheckoutAttributes &
        PaylinkCheckoutTarget &
        PaylinkCheckoutProperties &
        ExactListeners<PaylinkCheckoutEventMap>;
      'paylink-admin': IntrinsicProps<PaylinkAdminElement> & PaylinkAdminAttributes & ExactListeners<PaylinkAdminEventMap>;
    }
  }
}

/** Props of `<PaylinkCheckout>`: the element's attributes in camelCase, `metadata`, `onPaylink…` listeners, `ref` to the element. */
export type PaylinkCheckoutProps = HTMLAttributes<PaylinkCheckoutElement> &
  CamelAttributes<PaylinkCheckoutAttributes> &
  PaylinkCheckoutTarget &
  PaylinkCheckoutProperties &
  PascalListeners<PaylinkCheckoutEventMap> & { ref?: Ref<PaylinkCheckoutElement> | undefined };

/**
 * Props of `<PaylinkAdmin>`. The bearer token is a property of the element, never an attribute: set it
 * through `ref` (`ref={(admin) => { if (admin) admin.token = token; }}`), or let the merchant's cookies sign in.
 */
export type PaylinkAdminProps = HTMLAttributes<PaylinkAdminElement> &
  CamelAttributes<PaylinkAdminAttributes> &
  PascalListeners<PaylinkAdminEventMap> & { ref?: Ref<PaylinkAdminElement> | undefined };

/** `apiBase` → `api-base`, `onPaylinkLinkSaved` → `onpaylink-link-saved` (what React 19 passes to the element). */
function elementProps(props: object, renamed: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(props)) {
    const kebab = /^onPaylink[A-Z]/.test(name) ? `on${name.slice(2).replace(/[A-Z]/g, (c, i: number) => `${i ? '-' : ''}${c.toLowerCase()}`)}` : renamed[name] ?? name;
    out[kebab] = value;
  }
  return out;
}

/** `<paylink-checkout>` with camelCase props and `onPaylinkReady`, `onPaylinkSession`, `onPaylinkSuccess`, `onPaylinkError`. */
export function PaylinkCheckout(props: PaylinkCheckoutProps): ReactElement {
  return React.createElement('paylink-checkout', elementProps(props, { apiBase: 'api-base', clientReference: 'client-reference' }));
}

/** `<paylink-admin>` with camelCase props and `onPaylinkAuthRequired`, `onPaylinkLinkSaved`, `onPaylinkWithdrawalCreated`. */
export function PaylinkAdmin(props: PaylinkAdminProps): ReactElement {
  return React.createElement('paylink-admin', elementProps(props, { apiBase: 'api-base', pollInterval: 'poll-interval', checkoutSrc: 'checkout-src' }));
}
