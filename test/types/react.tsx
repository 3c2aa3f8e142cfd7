// Compiled by `tsc -p test/types` (part of `npm run typecheck`): the React typings accept correct
// usage and refuse wrong usage (each @ts-expect-error must be an error, or tsc fails).
import { PaylinkAdmin, PaylinkCheckout, type PaylinkSuccessDetail } from '../../src/frameworks/react.js';
import type { PaylinkCheckout as CheckoutElement } from '../../src/components/checkout/paylink-checkout.js';

// The elements themselves (React 19 sets attributes and adds `on<event>` listeners on custom elements).
export function Checkout() {
  return (
    <paylink-checkout
      slug="AbCdEf1234"
      api-base="/paylink"
      locale="fr"
      theme="dark"
      client-reference="cart-42"
      metadata={{ cart: 'c_9', channel: 'web' }}
      onpaylink-ready={(event) => console.log(event.detail.link.title)}
      onpaylink-success={(event) => console.log(event.detail.session.txHash)}
      onpaylink-error={(event) => console.log(event.detail.code, event.detail.error.message)}
    />
  );
}

export function Admin() {
  return (
    <paylink-admin api-base="/paylink" theme="light" view="money" onpaylink-link-saved={(event) => console.log(event.detail.link.slug, event.detail.created)} />
  );
}

// @ts-expect-error a slug or an order is required
export const missingSlug = <paylink-checkout />;
export const anOrder = <paylink-checkout order="0f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b" client-reference="cart-9" />;
// @ts-expect-error theme is light or dark
export const badTheme = <paylink-checkout slug="x" theme="blue" />;
// @ts-expect-error the detail of paylink-success has no `link`
export const wrongDetail = <paylink-checkout slug="x" onpaylink-success={(event) => console.log(event.detail.link)} />;
export const wrongHandler = (
  // @ts-expect-error a handler of another event's detail type
  <paylink-checkout slug="x" onpaylink-ready={(event: CustomEvent<PaylinkSuccessDetail>) => console.log(event.detail.session)} />
);
// @ts-expect-error metadata holds strings only
export const numberMetadata = <paylink-checkout slug="x" metadata={{ items: 3 }} />;
// @ts-expect-error the token is a property, never an attribute
export const tokenAttribute = <paylink-admin token="secret" />;

// The components: camelCase props, so a misspelt event is an error as well.
export function Components() {
  return (
    <>
      <PaylinkCheckout
        slug="AbCdEf1234"
        apiBase="/paylink"
        theme="dark"
        clientReference="cart-42"
        metadata={{ cart: 'c_9' }}
        className="checkout"
        ref={(element: CheckoutElement | null) => element?.focus()}
        onPaylinkSuccess={(event) => console.log(event.detail.session.status)}
        onPaylinkError={(event) => console.log(event.detail.code)}
      />
      <PaylinkAdmin apiBase="/paylink" pollInterval={2000} onPaylinkWithdrawalCreated={(event) => console.log(event.detail.id)} />
    </>
  );
}

// @ts-expect-error a misspelt event
export const misspelt = <PaylinkCheckout slug="x" onPaylinkSucess={() => {}} />;
// @ts-expect-error the detail of paylink-success has no `link`
export const componentWrongDetail = <PaylinkCheckout slug="x" onPaylinkSuccess={(event) => console.log(event.detail.link)} />;
// @ts-expect-error a slug or an order is required
export const componentMissingSlug = <PaylinkCheckout apiBase="/paylink" />;
export const componentOrder = <PaylinkCheckout order="0f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b" />;
// @ts-expect-error an unknown prop
export const componentUnknown = <PaylinkCheckout slug="x" unknownProp />;
