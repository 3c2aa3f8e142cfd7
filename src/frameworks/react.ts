'use client';
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
import React, { useCallback, useLayoutEffect, useRef, type DetailedHTMLProps, type HTMLAttributes, type ReactElement, type Ref } from 'react';
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

/** `paylink-link-saved` → `onPaylinkLinkSaved`: the prop that handles an event. */
const handlerName = (event: string) => `on${event.replace(/(?:^|-)(\w)/g, (_, letter: string) => letter.toUpperCase())}`;

/** What the checkout already told the page, in case it did before React listened: its link and session. */
interface Reported {
  machine?: { link?: unknown; session?: unknown };
}

/**
 * Renders `tag` with `props`: attributes in kebab-case, `metadata` and the `onPaylink…` handlers set on
 * the element itself once React has it. React attaches no listener to a custom element while it hydrates
 * server HTML, so the handlers are this component's own listeners, the same after hydration and after a
 * client render. The checkout may have loaded before hydration ends (its module upgrades it at once):
 * `onPaylinkReady` and `onPaylinkSession` are then called on attach with what it already reported, in new
 * events of those names carrying the same detail, so a handler never misses the link or the session.
 */
function usePaylinkElement(tag: string, props: object, events: readonly string[], renamed: Record<string, string>): ReactElement {
  const element = useRef<(HTMLElement & Reported) | null>(null);
  const latest = useRef(props as Record<string, unknown>);
  useLayoutEffect(() => {
    latest.current = props as Record<string, unknown>;
    if (element.current && 'metadata' in props) (element.current as { metadata?: unknown }).metadata = props.metadata;
  });
  useLayoutEffect(() => {
    const target = element.current!;
    const call = (name: string, event: Event) => (latest.current[handlerName(name)] as ((event: Event) => void) | undefined)?.(event);
    const listeners = events.map((name) => [name, (event: Event) => call(name, event)] as const);
    for (const [name, listener] of listeners) target.addEventListener(name, listener);
    const { link, session } = target.machine ?? {};
    if (link) call('paylink-ready', new CustomEvent('paylink-ready', { detail: { link } }));
    if (session) call('paylink-session', new CustomEvent('paylink-session', { detail: { session } }));
    return () => {
      for (const [name, listener] of listeners) target.removeEventListener(name, listener);
    };
  }, [events]);
  const { ref: forwarded } = props as { ref?: Ref<HTMLElement> };
  const ref = useCallback(
    (node: HTMLElement | null) => {
      element.current = node;
      if (typeof forwarded == 'function') return forwarded(node);
      if (forwarded) (forwarded as { current: HTMLElement | null }).current = node;
    },
    [forwarded],
  );
  const attributes: Record<string, unknown> = { ref };
  for (const [name, value] of Object.entries(props)) {
    if (name == 'ref' || name == 'metadata' || /^onPaylink[A-Z]/.test(name)) continue;
    attributes[renamed[name] ?? name] = value;
  }
  return React.createElement(tag, attributes);
}

const CHECKOUT_EVENTS = ['paylink-ready', 'paylink-session', 'paylink-success', 'paylink-error'] as const satisfies readonly (keyof PaylinkCheckoutEventMap)[];
const ADMIN_EVENTS = [
  'paylink-auth-required',
  'paylink-link-saved',
  'paylink-withdrawal-created',
  'paylink-payments-export',
] as const satisfies readonly (keyof PaylinkAdminEventMap)[];

/**
 * `<paylink-checkout>` with camelCase props and `onPaylinkReady`, `onPaylinkSession`, `onPaylinkSuccess`,
 * `onPaylinkError`. A client component (`'use client'`): a server component page renders it as it is, and
 * passes handlers from a client component of its own.
 */
export function PaylinkCheckout(props: PaylinkCheckoutProps): ReactElement {
  return usePaylinkElement('paylink-checkout', props, CHECKOUT_EVENTS, { apiBase: 'api-base', clientReference: 'client-reference' });
}

/** `<paylink-admin>` with camelCase props and `onPaylinkAuthRequired`, `onPaylinkLinkSaved`, `onPaylinkWithdrawalCreated`, `onPaylinkPaymentsExport`. */
export function PaylinkAdmin(props: PaylinkAdminProps): ReactElement {
  return usePaylinkElement('paylink-admin', props, ADMIN_EVENTS, { apiBase: 'api-base', pollInterval: 'poll-interval', checkoutSrc: 'checkout-src' });
}
