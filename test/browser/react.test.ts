/**
 * `paylink/react` in the browser: a page rendered by react-dom/server, then hydrated, must deliver the
 * checkout's events to the component's `onPaylink…` handlers (React itself attaches no listener to a
 * custom element while hydrating), and so must a page React renders on the client.
 */
import { expect, waitUntil } from '@open-wc/testing';
import React from 'react';
import { createRoot, hydrateRoot, type Root } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import '../../src/checkout.js';
import type { PaylinkCheckout as PaylinkCheckoutElement } from '../../src/components/checkout/paylink-checkout.js';
import { PaylinkCheckout, type PaylinkCheckoutProps } from '../../src/frameworks/react.js';

type Seen = { ready: string[]; session: string[] };

/** The handlers of a page: what each event told it. */
function handlers(seen: Seen): Partial<PaylinkCheckoutProps> {
  return {
    onPaylinkReady: (event) => seen.ready.push(event.detail.link.title),
    onPaylinkSession: (event) => seen.session.push(event.detail.session.status),
  };
}

const app = (slug: string, seen: Seen, extra: Partial<PaylinkCheckoutProps> = {}) =>
  React.createElement('main', null, React.createElement(PaylinkCheckout, { slug, locale: 'en', ...handlers(seen), ...extra }));

/** Starts a payment the way a customer does: the pay button of the amount step. */
async function startPaying(el: PaylinkCheckoutElement) {
  await waitUntil(() => el.machine.view === 'amount', 'the link to load', { timeout: 5_000 });
  const pay = [...el.shadowRoot!.querySelectorAll('button')].find((button) => /USDT/.test(button.textContent ?? ''))!;
  pay.click();
}

describe('paylink/react', () => {
  let container: HTMLElement;
  let root: Root | undefined;
  let slug: string;

  // The config starts the real service on first use: on a loaded machine that outlasts a test's 10 s.
  before(async function (this: { timeout(ms: number): void }) {
    this.timeout(120_000);
    slug = (await (await fetch('/__test/seed')).json()).slugs.simple;
  });
  beforeEach(() => {
    localStorage.clear(); // each test's customer starts afresh (a pending session would resume)
    container = document.createElement('div');
    document.body.append(container);
  });
  afterEach(() => {
    root?.unmount();
    root = undefined;
    container.remove();
  });

  it('renders the element on the server with its attributes, and no handler or object in the HTML', () => {
    const html = renderToString(app(slug, { ready: [], session: [] }, { apiBase: '/paylink', metadata: { cart: 'c_9' } }));
    expect(html).to.contain(`<paylink-checkout slug="${slug}" locale="en" api-base="/paylink">`);
    expect(html).not.to.match(/onpaylink|metadata|\[object/i);
  });

  describe('when the server-rendered page is hydrated', () => {
    it('fires onPaylinkReady and onPaylinkSession on the React handlers', async () => {
      const seen: Seen = { ready: [], session: [] };
      container.innerHTML = renderToString(app(slug, seen));
      const el = container.querySelector('paylink-checkout')!;
      root = hydrateRoot(container, app(slug, seen));
      await waitUntil(() => seen.ready.length > 0, 'onPaylinkReady', { timeout: 5_000 });
      await startPaying(el);
      await waitUntil(() => seen.session.length > 0, 'onPaylinkSession after hydration', { timeout: 5_000 });
      expect(seen).to.deep.equal({ ready: ['Browser test consultation'], session: ['awaiting_payment'] });
      expect(container.querySelectorAll('paylink-checkout')).to.have.length(1, 'hydration kept the server’s element');
      expect(container.querySelector('paylink-checkout')).to.equal(el);
    });

    it('still tells onPaylinkReady about a link that loaded before hydration ended', async () => {
      const seen: Seen = { ready: [], session: [] };
      container.innerHTML = renderToString(app(slug, seen));
      const el = container.querySelector('paylink-checkout')!;
      await new Promise((resolve) => el.addEventListener('paylink-ready', resolve, { once: true }));
      root = hydrateRoot(container, app(slug, seen));
      await waitUntil(() => seen.ready.length > 0, 'onPaylinkReady on attach', { timeout: 5_000 });
      await startPaying(el);
      await waitUntil(() => seen.session.length > 0, 'onPaylinkSession', { timeout: 5_000 });
      expect(seen).to.deep.equal({ ready: ['Browser test consultation'], session: ['awaiting_payment'] });
    });

    it('sets metadata as a property and forwards the ref to the element', async () => {
      const seen: Seen = { ready: [], session: [] };
      const refs: (PaylinkCheckoutElement | null)[] = [];
      const page = () => app(slug, seen, { metadata: { cart: 'c_9' }, ref: (el: PaylinkCheckoutElement | null) => void refs.push(el) });
      container.innerHTML = renderToString(page());
      root = hydrateRoot(container, page());
      await waitUntil(() => refs.length > 0, 'the ref', { timeout: 5_000 });
      const el = container.querySelector('paylink-checkout')!;
      expect(refs[0]).to.equal(el);
      expect(el.metadata).to.deep.equal({ cart: 'c_9' });
      expect(el.hasAttribute('metadata')).to.equal(false);
    });
  });

  describe('when React renders on the client', () => {
    it('fires the handlers once each, and no more after unmount', async () => {
      const seen: Seen = { ready: [], session: [] };
      root = createRoot(container);
      root.render(app(slug, seen));
      await waitUntil(() => seen.ready.length > 0, 'onPaylinkReady', { timeout: 5_000 });
      const el = container.querySelector('paylink-checkout')!;
      await startPaying(el);
      await waitUntil(() => seen.session.length > 0, 'onPaylinkSession', { timeout: 5_000 });
      expect(seen).to.deep.equal({ ready: ['Browser test consultation'], session: ['awaiting_payment'] });
      root.unmount();
      root = undefined;
      el.dispatchEvent(new CustomEvent('paylink-session', { detail: { session: { status: 'paid' } } }));
      expect(seen.session).to.deep.equal(['awaiting_payment'], 'the listener left with the component');
    });
  });
});
