/**
 * `<paylink-refund>`, the customer's claim page: what is given back, by whom and on which network;
 * the address from a browser wallet (one button per EIP-6963 wallet, else `window.ethereum`) or pasted
 * (EIP-55 checked before anything is sent), sent once with the token in `Paylink-Claim`; the refund
 * followed until paid; a link that does not work said so. Accessible, in French, at 375 px (a
 * screenshot in test-results/refund-claim-375.png for a person to look at).
 */
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { emulateMedia, executeServerCommand, sendKeys, setViewport } from '@web/test-runner-commands';
import '../../src/refund.js';
import type { PaylinkRefund } from '../../src/components/refund/paylink-refund.js';
import type { PublicRefund } from '../../src/core/schemas.js';
import { FakeWallet, FROM, forgetWallets } from './checkout-fake-wallet.js';

const ID = '4b1f1c9e-6a9e-4a3e-9a53-1f4c1d2e3f40';
const TOKEN = 'Zm9yLXRoZS10ZXN0LW9ubHktbm90LWEtcmVhbC10b2tlbg';
const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** The service's claim routes, in memory: the refund, what each request sent, and how the next one answers. */
class FakeClaimApi {
  refund: PublicRefund = {
    id: ID,
    status: 'awaiting_address',
    amount: '12.500000',
    assetId: 'USDT',
    blockchainId: 'bsc',
    networkName: 'BNB Smart Chain',
    chainId: 56,
    title: 'Two desk lamps',
    merchantName: 'Lamp Shop',
    address: null,
    txHash: null,
    explorerUrl: 'https://bscscan.com',
    sandbox: false,
    createdAt: '2025-03-01T12:00:00.000Z',
  };
  requests: { method: string; path: string; claim: string | null; body: any }[] = [];

  readonly fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input), location.href);
    const claim = new Headers(init.headers).get('paylink-claim');
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    this.requests.push({ method: init.method ?? 'GET', path: url.pathname, claim, body });
    const answer = (status: number, json: unknown) => new Response(JSON.stringify(json), { status, headers: { 'content-type': 'application/json' } });
    if (claim !== TOKEN) return answer(404, { status: 'error', statusCode: 404, code: 'not_found', message: 'No refund has this id and claim token' });
    if (init.method === 'POST') {
      if (this.refund.status !== 'awaiting_address') return answer(409, { status: 'error', statusCode: 409, code: 'address_already_set', message: 'set once' });
      this.refund = { ...this.refund, status: 'pending', address: body.address };
    }
    return answer(200, this.refund);
  };

  posts() {
    return this.requests.filter((request) => request.method === 'POST');
  }
}

async function mount(api: FakeClaimApi, { token = TOKEN, locale = 'en' } = {}) {
  const el = await fixture<PaylinkRefund>(
    html`<paylink-refund refund=${ID} api-base="/v1" locale=${locale} .fetch=${api.fetch} .token=${token}></paylink-refund>`,
  );
  await waitUntil(() => !el.shadowRoot!.querySelector('[aria-busy=true]'), 'loaded');
  await el.updateComplete;
  return el;
}

const $ = (el: PaylinkRefund, selector: string) => el.shadowRoot!.querySelector<HTMLElement>(selector);
const $$ = (el: PaylinkRefund, selector: string) => [...el.shadowRoot!.querySelectorAll<HTMLElement>(selector)];
const text = (node: Element | null) => (node?.textContent ?? '').replace(/\s+/g, ' ').trim();
const input = (el: PaylinkRefund) => $(el, '#address') as HTMLInputElement;

async function typeAddress(el: PaylinkRefund, value: string) {
  const field = input(el);
  field.focus();
  field.value = value;
  field.dispatchEvent(new Event('input', { bubbles: true }));
  await el.updateComplete;
}

describe('<paylink-refund>', () => {
  afterEach(() => forgetWallets());

  it('is accessible', async () => {
    const el = await mount(new FakeClaimApi());
    await expect(el).to.be.accessible();
  });

  it('shows what is given back, by whom, for what and on which network, asking with its token', async () => {
    const api = new FakeClaimApi();
    const el = await mount(api);
    expect(text($(el, '[part~=heading]'))).to.equal('Lamp Shop is refunding you');
    expect(text($(el, '[part~=amount]'))).to.equal('12.5 USDT');
    expect(text($(el, '[part~=facts]')))
      .to.contain('Two desk lamps')
      .and.to.contain('BNB Smart Chain');
    expect(text($(el, '[part~=notice]'))).to.contain('an address you control on BNB Smart Chain');
    expect(api.requests[0]).to.deep.include({ method: 'GET', path: `/v1/checkout/refunds/${ID}`, claim: TOKEN });
  });

  it('takes the address from the wallet the customer picks among those that announce, then sends it once', async () => {
    const api = new FakeClaimApi();
    new FakeWallet().announce('Rabby');
    const chosen = new FakeWallet();
    chosen.announce('MetaMask');
    const el = await mount(api);
    await waitUntil(() => $$(el, '[part~=wallet]').length === 2, 'one button per wallet');
    expect($$(el, '[part~=wallet]').map(text)).to.deep.equal(['Use Rabby', 'Use MetaMask']);
    $$(el, '[part~=wallet]')[1]!.click();
    await waitUntil(() => input(el).value !== '', 'address filled in');
    expect(chosen.methods()).to.deep.equal(['eth_requestAccounts']);
    expect(input(el).value, 'in its checksummed spelling').to.equal('0x1111111111111111111111111111111111111111');
    expect(el.shadowRoot!.activeElement, 'focus on the button that sends it').to.equal($(el, '[part~=submit]'));
    expect(api.posts(), 'nothing sent before the customer confirms').to.have.length(0);
    const claimed = new Promise<CustomEvent>((resolve) => el.addEventListener('paylink-refund-claimed', resolve as EventListener, { once: true }));
    await sendKeys({ press: 'Enter' });
    expect((await claimed).detail).to.deep.equal({ id: ID, address: FROM });
    expect(api.posts()).to.have.length(1);
    expect(api.posts()[0]).to.deep.include({ path: `/v1/checkout/refunds/${ID}/address`, claim: TOKEN, body: { address: FROM } });
    await waitUntil(() => $(el, '[part~=outcome]'), 'on its way');
    expect(text($(el, '[part~=outcome]'))).to.contain(`On its way to ${FROM}`);
    expect($(el, '#address'), 'the address is set once').to.equal(null);
  });

  it('falls back to window.ethereum; says so when the wallet declines', async () => {
    const wallet = new FakeWallet();
    wallet.refuse.eth_requestAccounts = 4001;
    (window as { ethereum?: unknown }).ethereum = wallet;
    const el = await mount(new FakeClaimApi());
    expect(text($(el, '[part~=wallet]'))).to.equal('Use my browser wallet');
    $(el, '[part~=wallet]')!.click();
    await waitUntil(() => $(el, '[part~=error]'), 'the refusal shown');
    expect(text($(el, '[part~=error]'))).to.contain('declined');
  });

  it('checks a pasted address (EIP-55) before sending it', async () => {
    const api = new FakeClaimApi();
    const el = await mount(api);
    expect($$(el, '[part~=wallet]'), 'no wallet, no wallet button').to.have.length(0);
    await typeAddress(el, ADDRESS.replace('aAeb', 'AAeb'));
    $(el, '[part~=submit]')!.click();
    await el.updateComplete;
    expect(text($(el, '[part~=error]'))).to.contain('checksum');
    expect(input(el).getAttribute('aria-invalid')).to.equal('true');
    expect(input(el).getAttribute('aria-describedby')).to.equal('address-error');
    await typeAddress(el, '0x1234');
    $(el, '[part~=submit]')!.click();
    await el.updateComplete;
    expect(text($(el, '[part~=error]'))).to.contain('0x followed by 40');
    expect(api.posts()).to.have.length(0);
    await typeAddress(el, ADDRESS);
    $(el, '[part~=submit]')!.click();
    await waitUntil(() => api.posts().length === 1, 'sent');
    expect(api.posts()[0]!.body).to.deep.equal({ address: ADDRESS });
  });

  it('follows the refund until it is paid out, with its transaction', async () => {
    const api = new FakeClaimApi();
    api.refund = { ...api.refund, status: 'success', address: ADDRESS, txHash: `0x${'ab'.repeat(32)}` };
    const el = await mount(api);
    expect(text($(el, '[part~=outcome]'))).to.contain(`Sent to ${ADDRESS}`);
    const link = $(el, '[part~=explorer]') as HTMLAnchorElement;
    expect(link.href).to.equal(`https://bscscan.com/tx/0x${'ab'.repeat(32)}`);
    expect(link.rel).to.contain('noreferrer');
  });

  it('says a link with a wrong token does not work, without sending anything', async () => {
    const api = new FakeClaimApi();
    const el = await mount(api, { token: 'not-the-token' });
    expect(text($(el, '[part~=heading]'))).to.equal('This refund link does not work');
    expect($(el, '#address')).to.equal(null);
    await expect(el).to.be.accessible();
  });

  it('speaks French', async () => {
    const el = await mount(new FakeClaimApi(), { locale: 'fr' });
    expect(text($(el, '[part~=heading]'))).to.equal('Lamp Shop vous rembourse');
    expect(text($(el, '[part~=amount]'))).to.equal('12,5 USDT');
    expect(text($(el, 'label'))).to.equal('Votre adresse sur BNB Smart Chain');
    expect($(el, '[part~=card]')!.lang).to.equal('fr');
    await expect(el).to.be.accessible();
  });

  it('fits a phone (375 px), light and dark', async () => {
    await setViewport({ width: 375, height: 800 });
    new FakeWallet().announce('MetaMask');
    try {
      for (const scheme of ['light', 'dark'] as const) {
        await emulateMedia({ colorScheme: scheme });
        const el = await mount(new FakeClaimApi());
        await waitUntil(() => $(el, '[part~=wallet]'));
        expect(el.scrollWidth, 'nothing runs off the side').to.be.at.most(el.clientWidth + 1);
        await expect(el).to.be.accessible();
        const box = el.getBoundingClientRect();
        await executeServerCommand('admin-screenshot', {
          name: `refund-claim-375-${scheme}`,
          clip: { x: box.x + scrollX, y: box.y + scrollY, width: box.width, height: box.height },
        });
        el.remove();
      }
    } finally {
      await emulateMedia({ colorScheme: 'light' });
      await setViewport({ width: 800, height: 600 });
    }
  });
});
