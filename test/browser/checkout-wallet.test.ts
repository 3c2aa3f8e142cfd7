/**
 * `<paylink-checkout>` paying from a browser wallet, against a fake EIP-1193 provider written here:
 * it records every request, and can announce itself by EIP-6963, sit on the wrong chain, not know
 * the chain, decline (4001), or hold too little of the token. The session is a real-chain one
 * (BNB Smart Chain, USDT with 18 decimals); the sandbox has no wallet path.
 */
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/checkout.js';
import type { PaylinkCheckout } from '../../src/components/checkout/paylink-checkout.js';
import type { CheckoutSession } from '../../src/core/schemas.js';
import { ADDRESS, BSC_ADD_NETWORK, FakeCheckoutApi, PAID_ACTION, makeLink } from './checkout-fake-api.js';
import { FROM, FakeWallet, HASH, TOKEN, forgetWallets } from './checkout-fake-wallet.js';
import { has, part, parts, text, until } from './checkout-helpers.js';

const CHAIN_FACTS = { chainId: 56, tokenAddress: TOKEN, tokenDecimals: 18, explorerUrl: 'https://bscscan.com' };

afterEach(() => {
  forgetWallets();
  localStorage.clear();
  sessionStorage.clear();
});

/** A checkout on the pay step of a real-chain session; `api` can then move the session on. */
async function payStep(locale = 'en') {
  const api = new FakeCheckoutApi(
    makeLink({
      sandbox: false,
      assets: [{ assetId: 'USDT', blockchainId: 'bsc', networkName: 'BNB Smart Chain', decimals: 18, ...CHAIN_FACTS, addNetwork: BSC_ADD_NETWORK }],
    }),
  );
  api.nextSession = { ...CHAIN_FACTS, sandbox: false };
  const el = await fixture<PaylinkCheckout>(html`<paylink-checkout slug="shop1" locale=${locale} .fetch=${api.fetch}></paylink-checkout>`);
  await until(el, () => el.machine.view === 'amount', 'the link');
  part(el, 'pay-button').click();
  await until(el, () => el.machine.view === 'pay', 'the pay step');
  return { el, api };
}

/** Clicks "Pay with …" (the first, or the one named) and waits for the wallet to be done. */
async function payWith(el: PaylinkCheckout, name?: RegExp) {
  const button = parts(el, 'wallet').find((b) => !name || name.test(text(b)))!;
  button.click();
  await el.updateComplete;
  await until(el, () => !el.machine.busy, 'the wallet to answer');
}

/** The server's next word on the session (the fake API's poll picks it up). */
function serverSays(api: FakeCheckoutApi, el: PaylinkCheckout, change: Partial<CheckoutSession>) {
  const id = el.machine.session!.id;
  api.sessions.set(id, { ...api.sessions.get(id)!, ...change });
}

describe('<paylink-checkout> paying from a wallet', () => {
  it('passes an accessibility audit with wallets, while asking, after a refusal, while confirming, and with no wallet', async () => {
    const audit = async (el: PaylinkCheckout, label: string) => {
      try {
        await expect(el).to.be.accessible();
      } catch (error) {
        throw new Error(`${label}: ${(error as Error).message}`);
      }
    };
    const none = await payStep();
    await audit(none.el, 'no wallet');

    new FakeWallet().announce('MetaMask');
    const slow = new FakeWallet().announce('Rabby');
    const { el, api } = await payStep();
    await audit(el, 'two wallets');
    let release!: () => void;
    slow.hold = new Promise((resolve) => (release = resolve));
    parts(el, 'wallet')[1]!.click();
    await until(el, () => slow.methods().includes('eth_sendTransaction'), 'the wallet to be asked to send');
    expect(text(part(el, 'waiting'))).to.equal('Confirm in your wallet…');
    await audit(el, 'asking the wallet');
    release();
    await until(el, () => !el.machine.busy, 'the send');
    serverSays(api, el, { status: 'confirming', confirmations: 1, requiredConfirmations: 3, txHash: HASH });
    await until(el, () => el.machine.session!.status === 'confirming', 'confirming');
    await audit(el, 'confirming');

    slow.refuse.eth_requestAccounts = 4001;
    const declined = await payStep();
    await payWith(declined.el, /Rabby/);
    await audit(declined.el, 'declined');
  });

  it('lists each wallet that announces itself (EIP-6963) and pays from the one the customer picks', async () => {
    const metamask = new FakeWallet().announce('MetaMask');
    const rabby = new FakeWallet().announce('Rabby');
    const { el } = await payStep();
    expect(parts(el, 'wallet').map(text)).to.deep.equal(['Pay with MetaMask', 'Pay with Rabby']);
    await payWith(el, /Rabby/);
    expect(metamask.calls).to.deep.equal([]);
    expect(rabby.methods()).to.deep.equal(['eth_requestAccounts', 'eth_chainId', 'eth_call', 'eth_sendTransaction']);
    const [send] = rabby.calls.at(-1)!.params as { from: string; to: string; data: string }[];
    expect(send!.from).to.equal(FROM);
    expect(send!.to).to.equal(TOKEN);
    // transfer(ADDRESS, 12.187813 × 10^18): the exact amount, in base units.
    expect(send!.data).to.equal('0xa9059cbb' + ADDRESS.slice(2).toLowerCase().padStart(64, '0') + (12_187_813n * 10n ** 12n).toString(16).padStart(64, '0'));
  });

  it('lists a wallet once when it announces again through a new provider object each time', async () => {
    const metamask = new FakeWallet().announce('MetaMask', { freshProvider: true });
    new FakeWallet().announce('Rabby', { freshProvider: true });
    const { el } = await payStep();
    // Each new checkout asks the page's wallets to announce again: they do, through new objects.
    window.dispatchEvent(new Event('eip6963:requestProvider'));
    await el.updateComplete;
    expect(parts(el, 'wallet').map(text)).to.deep.equal(['Pay with MetaMask', 'Pay with Rabby']);
    await payWith(el, /MetaMask/);
    expect(metamask.methods().at(-1)).to.equal('eth_sendTransaction');
  });

  it('falls back to window.ethereum (EIP-1193) when no wallet announces itself', async () => {
    const injected = new FakeWallet();
    (window as { ethereum?: unknown }).ethereum = injected;
    const { el } = await payStep();
    expect(parts(el, 'wallet').map(text)).to.deep.equal(['Pay with wallet']);
    await payWith(el);
    expect(injected.methods().at(-1)).to.equal('eth_sendTransaction');
  });

  it('shows the sent transfer, then the confirmations live, then the payment', async () => {
    new FakeWallet().announce('MetaMask');
    const { el, api } = await payStep();
    await payWith(el);
    expect(has(el, 'wallet'), 'no second payment').to.equal(false);
    expect(has(el, 'change-asset'), 'nothing to change once sent').to.equal(false);
    for (const name of ['qr', 'amount', 'address', 'warning']) expect(has(el, name), `no ${name} inviting a second payment`).to.equal(false);
    expect(text(part(el, 'waiting'))).to.equal('Sent. Waiting for the network…');
    expect(text(part(el, 'hash'))).to.equal('0x5f5f5f…5f5f5f');
    expect(part(el, 'hash').title).to.equal(HASH);
    expect(part(el, 'explorer').getAttribute('href')).to.equal(`https://bscscan.com/tx/${HASH}`);
    serverSays(api, el, { status: 'confirming', confirmations: 1, requiredConfirmations: 3, txHash: HASH });
    await until(el, () => text(part(el, 'waiting')) === 'Confirming 1/3…', 'confirming 1/3');
    expect(el.machine.announcement).to.equal('Confirming 1/3…');
    expect(has(el, 'countdown'), 'the price no longer runs out').to.equal(false);
    expect(has(el, 'qr') || has(el, 'address'), 'still nothing to pay again while confirming').to.equal(false);
    serverSays(api, el, { confirmations: 2 });
    await until(el, () => text(part(el, 'waiting')) === 'Confirming 2/3…', 'confirming 2/3');
    serverSays(api, el, { status: 'paid', paidAmount: '12.187813', remainingAmount: '0', postpayAction: PAID_ACTION });
    await until(el, () => el.machine.view === 'done', 'paid');
    expect(text(part(el, 'receipt'))).to.contain('0x5f5f5f…5f5f5f');
  });

  it('switches a wallet on another network to BNB Smart Chain first', async () => {
    const wallet = new FakeWallet({ chainId: 1 }).announce('MetaMask');
    const { el } = await payStep();
    await payWith(el);
    expect(wallet.calls.find((call) => call.method === 'wallet_switchEthereumChain')!.params).to.deep.equal([{ chainId: '0x38' }]);
    expect(wallet.methods().at(-1)).to.equal('eth_sendTransaction');
  });

  it('adds BNB Smart Chain to a wallet that does not know it (4902)', async () => {
    const wallet = new FakeWallet({ chainId: 1, knowsChain: false }).announce('MetaMask');
    const { el } = await payStep();
    await payWith(el);
    const add = wallet.calls.find((call) => call.method === 'wallet_addEthereumChain')!;
    expect((add.params![0] as { chainId: string; chainName: string }).chainName).to.equal('BNB Smart Chain');
    expect(wallet.methods().at(-1)).to.equal('eth_sendTransaction');
  });

  it('says so when the wallet stays on another network, and tries again on the next click', async () => {
    const wallet = new FakeWallet({ chainId: 1 }).announce('MetaMask');
    wallet.refuse.wallet_switchEthereumChain = 4001;
    const { el } = await payStep();
    await payWith(el);
    expect(text(part(el, 'wallet-error'))).to.equal('Switch your wallet to BNB Smart Chain.');
    expect(el.machine.announcement).to.equal('Switch your wallet to BNB Smart Chain.');
    expect(wallet.methods()).not.to.include('eth_sendTransaction');
    delete wallet.refuse.wallet_switchEthereumChain;
    await payWith(el);
    expect(has(el, 'wallet-error')).to.equal(false);
    expect(wallet.methods().at(-1)).to.equal('eth_sendTransaction');
  });

  it('says the request was declined (4001), keeps the button, and pays on the retry', async () => {
    const wallet = new FakeWallet().announce('MetaMask');
    wallet.refuse.eth_sendTransaction = 4001;
    const { el } = await payStep();
    await payWith(el);
    expect(text(part(el, 'wallet-error'))).to.equal('Declined. Try again when ready.');
    const button = part(el, 'wallet') as HTMLButtonElement;
    expect(button.disabled).to.equal(false);
    delete wallet.refuse.eth_sendTransaction;
    await payWith(el);
    expect(el.machine.sentHash).to.equal(HASH);
  });

  describe('when the wallet’s bridge drops the error codes', () => {
    it('still says the request was declined, from the wallet’s words', async () => {
      const wallet = new FakeWallet().announce('MetaMask');
      wallet.dropCodes = true;
      wallet.refuse.eth_sendTransaction = 4001;
      const { el } = await payStep();
      await payWith(el);
      expect(text(part(el, 'wallet-error'))).to.equal('Declined. Try again when ready.');
    });

    it('still adds BNB Smart Chain to a wallet that says it does not know it', async () => {
      const wallet = new FakeWallet({ chainId: 1, knowsChain: false }).announce('MetaMask');
      wallet.dropCodes = true;
      const { el } = await payStep();
      await payWith(el);
      expect(wallet.methods()).to.include('wallet_addEthereumChain');
      expect(wallet.methods().at(-1)).to.equal('eth_sendTransaction');
      expect(has(el, 'wallet-error')).to.equal(false);
    });

    it('still says to switch networks when the customer declines the switch', async () => {
      const wallet = new FakeWallet({ chainId: 1 }).announce('MetaMask');
      wallet.dropCodes = true;
      wallet.refuse.wallet_switchEthereumChain = 4001;
      const { el } = await payStep();
      await payWith(el);
      expect(text(part(el, 'wallet-error'))).to.equal('Switch your wallet to BNB Smart Chain.');
    });
  });

  it('says the wallet holds too little of the token, and sends nothing', async () => {
    const wallet = new FakeWallet({ balance: 12n * 10n ** 18n }).announce('MetaMask');
    const { el } = await payStep();
    await payWith(el);
    expect(text(part(el, 'wallet-error'))).to.equal('Not enough in your wallet: 12.187813 USDT needed.');
    expect(wallet.methods()).not.to.include('eth_sendTransaction');
  });

  it('without a wallet, says to scan the code: the QR holds the EIP-681 transfer', async () => {
    const { el } = await payStep();
    expect(has(el, 'wallet')).to.equal(false);
    expect(text(part(el, 'no-wallet'))).to.equal('No wallet here: scan the code.');
    const qr = part(el, 'qr');
    expect(qr.getAttribute('aria-label')).to.equal('QR code of the payment');
    // Version 8 (49 modules + the quiet zone): an EIP-681 URI, not the 42-byte address (version 3).
    expect(qr.getAttribute('viewBox')).to.equal('0 0 57 57');
  });

  it('can be paid from the keyboard: Tab to "Pay with …", Enter', async () => {
    const wallet = new FakeWallet().announce('MetaMask');
    const { el } = await payStep();
    part(el, 'heading').focus();
    await sendKeys({ press: 'Tab' });
    expect(el.shadowRoot!.activeElement).to.equal(part(el, 'wallet'));
    await sendKeys({ press: 'Enter' });
    await until(el, () => wallet.methods().includes('eth_sendTransaction'), 'the wallet to send');
  });

  it('speaks French: the wallet buttons and its words', async () => {
    const wallet = new FakeWallet().announce('MetaMask');
    wallet.refuse.eth_requestAccounts = 4001;
    const { el } = await payStep('fr');
    expect(text(part(el, 'wallet'))).to.equal('Payer avec MetaMask');
    await payWith(el);
    expect(text(part(el, 'wallet-error'))).to.equal('Refusé. Réessayez quand vous voulez.');
  });
});
