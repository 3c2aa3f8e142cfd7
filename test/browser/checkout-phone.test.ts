/**
 * `<paylink-checkout>` for a customer on a phone and on several networks: in Chromium emulating a
 * touch screen 390 px wide without a browser wallet, the pay step links to the session's EIP-681
 * transfer ("Open in wallet", which the phone hands to its wallet app); where a wallet is injected
 * (announced by EIP-6963, or a bare `window.ethereum` as in-app wallet browsers have) it pays from it
 * instead. Networks are named as exchanges name them, and a payment that came on another of the
 * offered networks says which.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import '../../src/checkout.js';
import type { PaylinkCheckout } from '../../src/components/checkout/paylink-checkout.js';
import { audit, has, part, parts, text, until } from './checkout-helpers.js';
import type { CheckoutAsset, CheckoutSession } from '../../src/core/schemas.js';
import { ADDRESS, BSC_ADD_NETWORK, FakeCheckoutApi, PAID_ACTION, makeLink } from './checkout-fake-api.js';
import { FakeWallet, TOKEN, forgetWallets } from './checkout-fake-wallet.js';

const POLYGON_USDT = '0xc2132D05D31c914a87C6611C10748AEb04B58e8F';
const BSC: CheckoutAsset = {
  assetId: 'USDT',
  blockchainId: 'bsc',
  networkName: 'BNB Smart Chain',
  chainId: 56,
  tokenAddress: TOKEN,
  decimals: 18,
  explorerUrl: 'https://bscscan.com',
  addNetwork: BSC_ADD_NETWORK,
};
const POLYGON: CheckoutAsset = {
  ...BSC,
  blockchainId: 'polygon',
  networkName: 'Polygon',
  chainId: 137,
  tokenAddress: POLYGON_USDT,
  decimals: 6,
  addNetwork: null,
};
const SESSION_FACTS = { chainId: 56, tokenAddress: TOKEN, tokenDecimals: 18, explorerUrl: 'https://bscscan.com', sandbox: false };

/** A checkout on the pay step of a real-chain session of USDT on BNB Smart Chain (`session` changes it). */
async function payStep(session: Partial<CheckoutSession> = {}, locale = 'en') {
  const api = new FakeCheckoutApi(makeLink({ sandbox: false, assets: [BSC, POLYGON] }));
  api.nextSession = { ...SESSION_FACTS, ...session };
  const el = await fixture<PaylinkCheckout>(html`<paylink-checkout slug="shop1" locale=${locale} .fetch=${api.fetch}></paylink-checkout>`);
  await until(el, () => el.machine.view === 'amount', 'the link');
  part(el, 'pay-button').click();
  await until(el, () => el.machine.view === 'pay', 'the pay step');
  return { el, api };
}

/** 12.187813 USDT (the fake session's amount) in base units of an 18-decimal token. */
const UNITS = 12_187_813n * 10n ** 12n;

afterEach(async () => {
  forgetWallets();
  localStorage.clear();
  sessionStorage.clear();
  await executeServerCommand('paylink-emulate', {});
});

describe('<paylink-checkout> on a phone', () => {
  beforeEach(() => executeServerCommand('paylink-emulate', { touch: true, width: 390 }));

  it('passes an accessibility audit with the wallet link', async () => {
    const { el } = await payStep();
    expect(matchMedia('(pointer: coarse)').matches, 'a touch screen').to.equal(true);
    expect(innerWidth).to.equal(390);
    await audit(el, 'wallet link');
  });

  it('offers "Open in wallet": a link to the exact EIP-681 transfer, beside the QR code for another device', async () => {
    const { el } = await payStep();
    const link = part(el, 'wallet-link') as HTMLAnchorElement;
    expect(link.tagName).to.equal('A');
    expect(link.getAttribute('part')).to.equal('button primary wallet-link');
    expect(text(link)).to.equal('Open in wallet');
    // Token, chain id, the session's address and the amount in the token's base units, nothing else.
    expect(link.getAttribute('href')).to.equal(`ethereum:${TOKEN}@56/transfer?address=${ADDRESS}&uint256=${UNITS}`);
    expect(has(el, 'qr'), 'the code stays').to.equal(true);
    expect(has(el, 'no-wallet'), 'no "scan the code" dead end').to.equal(false);
    // Thumb-sized, within the phone's width.
    const box = link.getBoundingClientRect();
    expect(box.height).to.be.at.least(44);
    expect(box.right).to.be.at.most(390);
  });

  it('links to what is left to send once the session is underpaid', async () => {
    const { el, api } = await payStep();
    const id = el.machine.session!.id;
    api.sessions.set(id, { ...api.sessions.get(id)!, status: 'underpaid', paidAmount: '5', remainingAmount: '7.187813' });
    await until(el, () => el.machine.session!.status === 'underpaid', 'underpaid');
    expect(part(el, 'wallet-link').getAttribute('href')).to.equal(`ethereum:${TOKEN}@56/transfer?address=${ADDRESS}&uint256=${7_187_813n * 10n ** 12n}`);
  });

  it('pays from a wallet the phone’s browser announces (EIP-6963), with no wallet link', async () => {
    new FakeWallet().announce('Trust Wallet');
    const { el } = await payStep();
    expect(parts(el, 'wallet').map(text)).to.deep.equal(['Pay with Trust Wallet']);
    expect(has(el, 'wallet-link')).to.equal(false);
  });

  it('pays from a bare window.ethereum, as in-app wallet browsers inject it, with no wallet link', async () => {
    (window as { ethereum?: unknown }).ethereum = new FakeWallet();
    const { el } = await payStep();
    expect(parts(el, 'wallet').map(text)).to.deep.equal(['Pay with wallet']);
    expect(has(el, 'wallet-link')).to.equal(false);
  });

  it('has no link where the chain has no token to transfer (the sandbox): the address is the code', async () => {
    const { el } = await payStep({ chainId: null, tokenAddress: null, tokenDecimals: null, sandbox: true });
    expect(has(el, 'wallet-link')).to.equal(false);
    expect(part(el, 'qr').getAttribute('aria-label')).to.equal('QR code of the address');
  });
});

describe('<paylink-checkout> on a desktop without a wallet', () => {
  it('says to scan the code, with no wallet link (nothing on the computer would open it)', async () => {
    const { el } = await payStep();
    expect(matchMedia('(pointer: coarse)').matches).to.equal(false);
    expect(has(el, 'wallet-link')).to.equal(false);
    expect(text(part(el, 'no-wallet'))).to.equal('No wallet here: scan the code.');
  });
});

describe('<paylink-checkout> naming networks', () => {
  it('names each network as exchanges do, and says a network the page does not offer is not seen', async () => {
    const { el } = await payStep();
    expect(el.machine.link!.assets.length).to.equal(2);
    expect(text(part(el, 'warning'))).to.equal('Only USDT on BNB Smart Chain (BEP20): a network not offered here is not seen.');
    el.machine.changeAsset();
    await el.updateComplete;
    expect(parts(el, 'asset').map(text)).to.deep.equal(['USDT · BNB Smart Chain (BEP20)', 'USDT · Polygon']);
    expect(text(part(el, 'hint'))).to.equal('Network: BNB Smart Chain (BEP20)');
  });

  it('in French too', async () => {
    const { el } = await payStep({}, 'fr');
    // (Its narrow no-break space before the colon reads as a space here.)
    expect(text(part(el, 'warning'))).to.equal('Seulement des USDT sur BNB Smart Chain (BEP20) : un réseau non proposé n’est pas vu.');
  });

  it('says which network a payment came on when it is another of the offered ones, confirming and paid', async () => {
    const { el, api } = await payStep();
    const id = el.machine.session!.id;
    const say = (change: Partial<CheckoutSession>) => api.sessions.set(id, { ...api.sessions.get(id)!, ...change });
    say({ status: 'confirming', confirmations: 1, requiredConfirmations: 3, txHash: '0x' + 'ab'.repeat(32), paidBlockchainId: 'polygon' });
    await until(el, () => el.machine.session!.status === 'confirming', 'confirming');
    expect(text(part(el, 'paid-on'))).to.equal('Paid on Polygon');
    await audit(el, 'confirming on another network');
    say({ status: 'paid', paidAmount: '12.187813', remainingAmount: '0', postpayAction: PAID_ACTION });
    await until(el, () => el.machine.view === 'done', 'paid');
    expect(text(part(el, 'paid-on'))).to.equal('Paid on Polygon');
    // The receipt names the network the money came on, not the one quoted.
    expect(text(part(el, 'receipt')))
      .to.contain('Network Polygon')
      .and.not.contain('BNB');
    await audit(el, 'paid on another network');
  });

  it('says nothing more when it came on the quoted network, or the service does not say', async () => {
    const { el, api } = await payStep();
    const id = el.machine.session!.id;
    api.sessions.set(id, {
      ...api.sessions.get(id)!,
      status: 'paid',
      paidAmount: '12.187813',
      remainingAmount: '0',
      postpayAction: PAID_ACTION,
      paidBlockchainId: 'bsc',
    });
    await until(el, () => el.machine.view === 'done', 'paid');
    expect(has(el, 'paid-on')).to.equal(false);
    expect(text(part(el, 'receipt'))).to.contain('Network BNB Smart Chain');
  });
});
