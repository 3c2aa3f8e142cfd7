// Compiled by `tsc -p test/types` (part of `npm run typecheck`): the React typings accept correct
// usage and refuse wrong usage (each @ts-expect-error must be an error, or tsc fails).
import '../../src/frameworks/react.js';

export function Checkout() {
  return (
    <paylink-checkout
      slug="AbCdEf1234"
      api-base="/paylink"
      locale="fr"
      theme="dark"
      onpaylink-success={(event) => console.log(event.detail.session.txHash)}
    />
  );
}

export function Admin() {
  return <paylink-admin api-base="/paylink" theme="light" />;
}

// @ts-expect-error slug is required
export const missingSlug = <paylink-checkout />;
// @ts-expect-error theme is light or dark
export const badTheme = <paylink-checkout slug="x" theme="blue" />;
