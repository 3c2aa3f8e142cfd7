/**
 * Every screen of `<paylink-checkout>` at 375 px (a phone) and 1280 px (a laptop), in light, dark
 * and French: each passes axe, nothing in it overflows horizontally (the host, the page, and every
 * part: no scrolling box, nothing past the card's edges), and a screenshot of each is written to
 * test-results/checkout/<screen>-<variant>-<width>.png (gitignored) for a person to look at.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { emulateMedia, executeServerCommand, setViewport } from '@web/test-runner-commands';
import '../../src/checkout.js';
import type { PaylinkCheckout } from '../../src/components/checkout/paylink-checkout.js';
import type { CheckoutSession, PublicLink } from '../../src/core/schemas.js';
import { BSC_ADD_NETWORK, FakeCheckoutApi, PAID_ACTION, errorResponse, makeDonation, makeLink } from './checkout-fake-api.js';
import { FakeWallet, HASH, TOKEN, forgetWallets } from './checkout-fake-wallet.js';
import { part, until } from './checkout-helpers.js';

const CHAIN = { chainId: 56, tokenAddress: TOKEN, explorerUrl: 'https://bscscan.com', addNetwork: BSC_ADD_NETWORK };
const CHAIN_ASSETS: PublicLink['assets'] = [
  { assetId: 'USDT', blockchainId: 'bsc', networkName: 'BNB Smart Chain', decimals: 18, ...CHAIN },
  { assetId: 'CNGN', blockchainId: 'bsc', networkName: 'BNB Smart Chain', decimals: 6, ...CHAIN },
];
const IN_A_WEEK = new Date(Date.now() + 7 * 86_400_000).toISOString();

interface Variant {
  name: 'light' | 'dark' | 'fr';
  locale: string;
  theme: 'light' | 'dark';
}
const VARIANTS: Variant[] = [
  { name: 'light', locale: 'en', theme: 'light' },
  { name: 'dark', locale: 'en', theme: 'dark' },
  { name: 'fr', locale: 'fr', theme: 'light' },
];

/** Mounts `link` on a page-like stage (the merchant's background around the card). */
async function mount(api: FakeCheckoutApi, variant: Variant, slug = [...api.links.keys()][0]!) {
  const stage = await fixture<HTMLElement>(html`<div
    style="box-sizing:border-box;min-height:100vh;padding:16px;background:${variant.theme == 'dark' ? '#0b0d12' : '#f6f7fb'}"
  >
    <paylink-checkout
      style="max-width:28rem;margin:0 auto"
      slug=${slug}
      locale=${variant.locale}
      theme=${variant.theme}
      .fetch=${api.fetch}
    ></paylink-checkout>
  </div>`);
  const el = stage.querySelector('paylink-checkout')!;
  await until(el, () => el.machine.view !== 'loading', 'the link');
  return el;
}

/** Goes on from the amount step to the pay step. */
async function toPay(el: PaylinkCheckout) {
  part(el, 'pay-button').click();
  await until(el, () => el.machine.view === 'pay', 'the pay step');
}

/** A real-chain link whose sessions carry the chain facts (BNB Smart Chain, USDT 18 decimals). */
function chainApi(session: Partial<CheckoutSession> = {}) {
  const api = new FakeCheckoutApi(makeLink({ sandbox: false, assets: CHAIN_ASSETS, merchantName: 'Ada Stores' }));
  api.nextSession = { ...CHAIN, tokenDecimals: 18, sandbox: false, ...session };
  return api;
}

/** The screens: each builds its state for a variant and returns the element showing it. */
const SCREENS: Record<string, (variant: Variant) => Promise<PaylinkCheckout>> = {
  async loading(variant) {
    const api = new FakeCheckoutApi(makeLink());
    api.override = () => new Promise(() => {});
    const stage = await fixture<HTMLElement>(html`<div style="padding:16px">
      <paylink-checkout slug="shop1" locale=${variant.locale} theme=${variant.theme} .fetch=${api.fetch}></paylink-checkout>
    </div>`);
    const el = stage.querySelector('paylink-checkout')!;
    await el.updateComplete;
    return el;
  },
  'amount-cart': (variant) => mount(new FakeCheckoutApi(makeLink()), variant),
  async 'amount-donation'(variant) {
    const el = await mount(new FakeCheckoutApi(makeDonation({ closesAt: IN_A_WEEK })), variant);
    part(el, 'chip').nextElementSibling!.dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true }));
    await el.updateComplete;
    return el;
  },
  async 'amount-error'(variant) {
    const el = await mount(new FakeCheckoutApi(makeDonation({ closesAt: IN_A_WEEK })), variant);
    el.machine.edit('fiatAmount', '100');
    el.machine.submitAmount();
    await el.updateComplete;
    return el;
  },
  async details(variant) {
    const el = await mount(new FakeCheckoutApi(makeLink({ prepayOptions: { collectAddress: true, collectPhone: true } })), variant);
    part(el, 'primary').click();
    await until(el, () => el.machine.view === 'details', 'the details');
    el.machine.edit('customer.address', '12 Marina Road, Lagos Island, Lagos');
    el.machine.edit('customer.phone', '08012345678');
    el.machine.submitDetails();
    await el.updateComplete;
    return el;
  },
  async 'pay-sandbox'(variant) {
    const el = await mount(new FakeCheckoutApi(makeLink()), variant);
    await toPay(el);
    return el;
  },
  async 'pay-wallets'(variant) {
    new FakeWallet().announce('MetaMask');
    new FakeWallet().announce('Trust Wallet');
    const el = await mount(chainApi(), variant);
    await toPay(el);
    return el;
  },
  async 'pay-declined'(variant) {
    const wallet = new FakeWallet({ chainId: 1 }).announce('MetaMask');
    wallet.refuse.wallet_switchEthereumChain = 4001;
    const el = await mount(chainApi(), variant);
    await toPay(el);
    part(el, 'wallet').click();
    await until(el, () => !!el.machine.walletError, 'the refusal');
    return el;
  },
  async 'pay-no-wallet'(variant) {
    const el = await mount(chainApi(), variant);
    await toPay(el);
    return el;
  },
  async 'pay-confirming'(variant) {
    const api = chainApi();
    const el = await mount(api, variant);
    await toPay(el);
    const id = el.machine.session!.id;
    api.sessions.set(id, { ...api.sessions.get(id)!, status: 'confirming', confirmations: 1, requiredConfirmations: 3, txHash: HASH });
    await until(el, () => el.machine.session!.status === 'confirming', 'confirming');
    return el;
  },
  async underpaid(variant) {
    const api = new FakeCheckoutApi(makeLink());
    api.onSimulate = () => ({ status: 'underpaid', paidAmount: '5', remainingAmount: '7.187813' });
    const el = await mount(api, variant);
    await toPay(el);
    part(el, 'simulate').click();
    await until(el, () => el.machine.session?.status === 'underpaid', 'underpaid');
    return el;
  },
  async done(variant) {
    const api = chainApi();
    const el = await mount(api, variant);
    await toPay(el);
    const id = el.machine.session!.id;
    api.sessions.set(id, { ...api.sessions.get(id)!, status: 'paid', paidAmount: '12.187813', remainingAmount: '0', txHash: HASH, postpayAction: PAID_ACTION });
    await until(el, () => el.machine.view === 'done', 'paid');
    return el;
  },
  async expired(variant) {
    const api = new FakeCheckoutApi(makeLink());
    api.nextSession = { status: 'expired', paidAmount: '5' };
    const el = await mount(api, variant);
    part(el, 'pay-button').click();
    await until(el, () => el.machine.view === 'expired', 'expired');
    return el;
  },
  closed: (variant) => mount(new FakeCheckoutApi(makeDonation({ state: 'closed', closesAt: '2024-05-01T12:00:00.000Z' })), variant),
  async error(variant) {
    const api = new FakeCheckoutApi(makeLink());
    api.override = () => Promise.reject(new TypeError('Failed to fetch'));
    return mount(api, variant);
  },
  notFound: (variant) => mount(new FakeCheckoutApi(), variant, 'nope'),
  async rates(variant) {
    const api = new FakeCheckoutApi(makeLink());
    api.override = (call) => (call.path.endsWith('/sessions') ? errorResponse(503, 'rate_unavailable', 'No current exchange rate') : undefined);
    const el = await mount(api, variant);
    part(el, 'pay-button').click();
    await until(el, () => el.machine.view === 'rates', 'no current exchange rate');
    return el;
  },
};

/** What overflows horizontally: the page, the host, a part that scrolls, a part past the card. */
function overflows(el: PaylinkCheckout): string[] {
  const problems: string[] = [];
  const { documentElement: page } = document;
  if (page.scrollWidth > page.clientWidth) problems.push(`the page (${page.scrollWidth} > ${page.clientWidth})`);
  if (el.scrollWidth > el.clientWidth) problems.push(`the host (${el.scrollWidth} > ${el.clientWidth})`);
  const card = part(el, 'card').getBoundingClientRect();
  for (const node of el.shadowRoot!.querySelectorAll<HTMLElement>('[part]')) {
    const name = node.getAttribute('part')!;
    if (name == 'status') continue; // visually hidden (clipped), for screen readers only
    if (node.clientWidth && node.scrollWidth > node.clientWidth) problems.push(`${name} scrolls (${node.scrollWidth} > ${node.clientWidth})`);
    const box = node.getBoundingClientRect();
    if (box.width && (box.left < card.left - 0.5 || box.right > card.right + 0.5)) problems.push(`${name} leaves the card`);
  }
  return problems;
}

afterEach(async () => {
  forgetWallets();
  localStorage.clear();
  sessionStorage.clear();
  await setViewport({ width: 800, height: 600 });
  await emulateMedia({ colorScheme: 'light' });
});

describe('<paylink-checkout> screens', () => {
  for (const [screen, build] of Object.entries(SCREENS)) {
    for (const variant of VARIANTS) {
      it(`${screen} (${variant.name}) is accessible, overflows nothing at 375 and 1280 px, and is photographed`, async () => {
        await emulateMedia({ colorScheme: variant.theme });
        await setViewport({ width: 375, height: 812 });
        const el = await build(variant);
        await expect(el).to.be.accessible();
        for (const width of [375, 1280]) {
          await setViewport({ width, height: width == 375 ? 812 : 900 });
          // Two frames: the new width laid out, fonts settled.
          await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
          expect(overflows(el), `${screen} ${variant.name} ${width}px`).to.deep.equal([]);
          await executeServerCommand('paylink-screenshot', { name: `checkout/${screen}-${variant.name}-${width}` });
        }
      });
    }
  }
});
