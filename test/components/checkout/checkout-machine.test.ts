/**
 * The checkout's state machine on its own, in Node (no DOM): a fake host records what the machine
 * asks of the page (events, storage, navigation, clipboard, renders), the fake checkout API of the
 * browser tests answers its calls, and a fake EIP-1193 wallet records what it is asked. If the
 * machine reached for `document` or `window`, these tests would throw.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { CheckoutMachine } from '../../../src/components/checkout/checkout-machine.js';
import type { CheckoutEvents, CheckoutHost } from '../../../src/components/checkout/checkout-types.js';
import en from '../../../src/components/checkout/translations/en.js';
import fr from '../../../src/components/checkout/translations/fr.js';
import type { Eip1193Provider } from '../../../src/internal/evm-wallet.js';
import { Localizer } from '../../../src/internal/localize.js';
import {
  BSC_ADD_NETWORK,
  FakeCheckoutApi,
  PAID_ACTION,
  SANDBOX_CHAIN_FACTS,
  errorResponse,
  makeDonation,
  makeLink,
  makeOrder,
} from '../../browser/checkout-fake-api.js';

const TOKEN = '0x55d398326f99059fF775485246999027B3197955';
const PAY_TO = '0x52908400098527886E0F7030069857D2E4169EE7';
const FROM = '0x1111111111111111111111111111111111111111';
/** A session on BNB Smart Chain (chain 56), USDT with 18 decimals, as a real chain reports it. */
const CHAIN_FACTS = { chainId: 56, tokenAddress: TOKEN, tokenDecimals: 18, explorerUrl: 'https://bscscan.com' };

/** A host that records everything the machine asks of it. */
interface FakeHost extends CheckoutHost {
  events: { name: keyof CheckoutEvents; detail: unknown }[];
  storage: Map<string, string>;
  navigations: string[];
  copied: string[];
  renders: number;
  cancelSuccess: boolean;
}

function fakeHost(): FakeHost {
  const events: FakeHost['events'] = [];
  const storage = new Map<string, string>();
  const host: FakeHost = {
    events,
    storage,
    navigations: [] as string[],
    copied: [] as string[],
    renders: 0,
    /** Listeners cancel `paylink-success` when this is set (the page routes itself). */
    cancelSuccess: false,
    emit: ((name, detail, cancelable) => {
      events.push({ name, detail });
      return !(cancelable && host.cancelSuccess);
    }) as CheckoutHost['emit'],
    store: (area: string, key: string, value?: string | null) => {
      const full = `${area}:${key}`;
      if (value) storage.set(full, value);
      else if (value === null) storage.delete(full);
      return storage.get(full) ?? null;
    },
    navigate: (url: string) => void host.navigations.push(url),
    clipboard: async (text: string): Promise<void> => void host.copied.push(text),
    requestUpdate: () => void host.renders++,
  };
  return host;
}

/** Every machine a test made: disconnected after it, so no poll or clock outlives its test. */
const machines: CheckoutMachine[] = [];
afterEach(() => machines.splice(0).forEach((machine) => machine.disconnect()));

/** A machine on `api`, in `locale`, with its host. */
function machineOn(api: FakeCheckoutApi, locale = 'en') {
  const host = fakeHost();
  const machine = new CheckoutMachine(host);
  machines.push(machine);
  machine.fetch = api.fetch;
  machine.l10n = new Localizer(locale, { en, fr });
  return { machine, host };
}

/** Intl's spaces (no-break, narrow no-break) as plain spaces, to compare formatted money. */
const plain = (text: string | undefined) => text?.replace(/\s/g, ' ');

/**
 * Waits until the machine's pending work is done: the fake API answers with promises alone (no timer,
 * no I/O), so everything a call started has run once the event loop reaches its check phase.
 */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A fake wallet: answers the EIP-1193 methods, records every request, and can be told to refuse. */
function fakeWallet(options: { chainId?: number; balance?: bigint; refuse?: Record<string, { code: number }>; knowsChain?: boolean } = {}) {
  let chainId = options.chainId ?? 56;
  const calls: { method: string; params?: unknown[] }[] = [];
  const provider: Eip1193Provider = {
    async request({ method, params }) {
      calls.push({ method, params });
      const refusal = options.refuse?.[method];
      if (refusal) throw Object.assign(new Error('refused'), refusal);
      switch (method) {
        case 'eth_requestAccounts':
          return [FROM];
        case 'eth_chainId':
          return `0x${chainId.toString(16)}`;
        case 'wallet_switchEthereumChain':
          if (options.knowsChain === false) throw Object.assign(new Error('Unrecognized chain'), { code: 4902 });
          chainId = Number((params![0] as { chainId: string }).chainId);
          return null;
        case 'wallet_addEthereumChain':
          chainId = Number((params![0] as { chainId: string }).chainId);
          return null;
        case 'eth_call':
          return `0x${(options.balance ?? 10n ** 24n).toString(16)}`;
        case 'eth_sendTransaction':
          return '0x' + 'ab'.repeat(32);
      }
      throw Object.assign(new Error(`Unsupported ${method}`), { code: 4200 });
    },
  };
  return { provider, calls, methods: () => calls.map((call) => call.method) };
}

/** A machine on the pay step of a real-chain session (12.187813 USDT due). */
async function onChainPayStep() {
  const assets = makeLink().assets.map((asset) => ({ ...asset, ...SANDBOX_CHAIN_FACTS, chainId: 56, addNetwork: BSC_ADD_NETWORK }));
  const api = new FakeCheckoutApi(makeLink({ sandbox: false, assets }));
  api.nextSession = { ...CHAIN_FACTS, sandbox: false };
  const { machine, host } = machineOn(api);
  await machine.load('shop1');
  machine.submitAmount();
  await settle();
  assert.equal(machine.view, 'pay');
  return { machine, host, api };
}

describe('CheckoutMachine', () => {
  describe('loading', () => {
    test('a link loads to the amount step, tells the page, and counts the visit once per page view', async () => {
      const api = new FakeCheckoutApi(makeLink());
      const { machine, host } = machineOn(api);
      const loading = machine.load('shop1');
      assert.equal(machine.view, 'loading');
      await loading;
      await settle();
      assert.equal(machine.view, 'amount');
      assert.equal(machine.assetId, 'USDT', 'the first asset is chosen');
      assert.deepEqual(
        host.events.map((event) => event.name),
        ['paylink-ready'],
      );
      assert.equal(host.storage.get('sessionStorage:paylink:visit:shop1'), 'visit-0001');
      await machine.load('shop1');
      await settle();
      assert.deepEqual(
        api.callsTo('/visits').map((call) => call.body),
        [{}, { visitId: 'visit-0001' }],
      );
    });

    test('an unknown slug, an inactive link, a closed fundraiser and a failed network each get their screen', async () => {
      const api = new FakeCheckoutApi(makeLink({ slug: 'off', state: 'inactive' }), makeDonation({ slug: 'over', state: 'closed' }));
      const { machine, host } = machineOn(api);
      await machine.load('nope');
      assert.equal(machine.view, 'notFound');
      assert.equal((host.events.at(-1)!.detail as { code: string }).code, 'not_found');
      await machine.load('off');
      assert.equal(machine.view, 'inactive');
      await machine.load('over');
      assert.equal(machine.view, 'closed');
      assert.equal(machine.announcement, 'Payments are closed');

      let offline = true;
      const flaky = new FakeCheckoutApi(makeLink());
      flaky.override = () => (offline ? Promise.reject(new TypeError('Failed to fetch')) : undefined);
      const second = machineOn(flaky);
      await second.machine.load('shop1');
      assert.equal(second.machine.view, 'error');
      offline = false;
      second.machine.retry();
      await settle();
      assert.equal(second.machine.view, 'amount');
    });

    test('a session start without a current exchange rate (503 rate_unavailable) has its own screen, and its retry goes back to the asset choice', async () => {
      const api = new FakeCheckoutApi(makeLink());
      let stale = true;
      api.override = (call) =>
        stale && call.path.endsWith('/sessions') ? errorResponse(503, 'rate_unavailable', 'No current exchange rate for USDT in NGN') : undefined;
      const { machine, host } = machineOn(api, 'fr');
      await machine.load('shop1');
      machine.submitAmount();
      await settle();
      assert.equal(machine.view, 'rates');
      assert.equal(machine.announcement, 'Prix indisponibles');
      assert.equal((host.events.at(-1)!.detail as { code: string }).code, 'rate_unavailable');
      stale = false;
      machine.retry();
      assert.equal(machine.view, 'amount', 'back to the step with the asset choice, nothing lost');
      machine.submitAmount();
      await settle();
      assert.equal(machine.view, 'pay');
    });

    test('a body that is not the API’s (a page served where the proxy should be) is an error screen, not a broken one', async () => {
      const api = new FakeCheckoutApi(makeLink());
      api.override = () => new Response('<!doctype html><p>Shop', { status: 200, headers: { 'content-type': 'text/html' } });
      const { machine, host } = machineOn(api);
      await machine.load('shop1');
      assert.equal(machine.view, 'error');
      assert.equal((host.events.at(-1)!.detail as { code: string }).code, 'invalid_response');
    });

    test('a pending session kept for the link is resumed after a reload', async () => {
      const api = new FakeCheckoutApi(makeLink());
      const first = machineOn(api);
      await first.machine.load('shop1');
      first.machine.submitAmount();
      await settle();
      const id = first.machine.session!.id;
      const again = new CheckoutMachine(first.host);
      machines.push(again);
      again.fetch = api.fetch;
      again.l10n = first.machine.l10n;
      await again.load('shop1');
      assert.equal(again.view, 'pay');
      assert.equal(again.session!.id, id);
    });
  });

  describe('an order', () => {
    const ORDER = makeOrder().id;
    function orderMachine(overrides: Parameters<typeof makeOrder>[0] = {}) {
      const api = new FakeCheckoutApi();
      const order = makeOrder(overrides);
      api.orders.set(order.id, order);
      return { api, order, ...machineOn(api) };
    }

    test('loads its public view to the amount step at its own price, counts no visit, and pays through its own sessions', async () => {
      const { api, machine, host, order } = orderMachine();
      machine.clientReference = 'cart-9';
      await machine.load('', ORDER);
      await settle();
      assert.equal(machine.view, 'amount');
      assert.equal(machine.currency, 'USD');
      assert.equal(machine.price, '1500.00', 'the order’s amount, never edited');
      assert.equal(machine.amountProblem, '');
      assert.deepEqual((host.events[0]!.detail as { link: unknown }).link, order, 'paylink-ready carries the order’s view');
      assert.equal(api.callsTo('/visits').length, 0);
      machine.submitAmount();
      await settle();
      assert.deepEqual(api.callsTo(`/orders/${ORDER}/sessions`, 'POST')[0]!.body, {
        assetId: 'USDT',
        blockchainId: 'bsc',
        fiatCurrency: 'USD',
        reference: 'cart-9',
      });
      assert.equal(machine.view, 'pay');
      assert.equal(machine.session!.orderId, ORDER);
      assert.equal(host.storage.get(`localStorage:paylink:session:orders/${ORDER}`), machine.session!.id, 'kept by order id for a reload');

      const again = new CheckoutMachine(host);
      machines.push(again);
      again.fetch = api.fetch;
      again.l10n = machine.l10n;
      await again.load('', ORDER);
      assert.equal(again.view, 'pay', 'a reload resumes the order’s session');
      assert.equal(again.session!.id, machine.session!.id);
    });

    test('a paid order says so; a closed one (expired or cancelled) says payments are closed; so do their refusals at start', async () => {
      const paid = orderMachine({ state: 'paid' });
      await paid.machine.load('', ORDER);
      assert.equal(paid.machine.view, 'paid');
      assert.equal(paid.machine.announcement, 'Payment received');
      const closed = orderMachine({ state: 'closed' });
      await closed.machine.load('', ORDER);
      assert.equal(closed.machine.view, 'closed');
      const missing = orderMachine();
      await missing.machine.load('', '5a0e2b1c-0000-4000-8000-000000000000');
      assert.equal(missing.machine.view, 'notFound');

      // Paid in another tab, or expired, while this one was open: the start's 409 and 410 get the same screens.
      for (const [state, view] of [
        ['paid', 'paid'],
        ['closed', 'closed'],
      ] as const) {
        const { machine, order, host } = orderMachine();
        await machine.load('', ORDER);
        order.state = state;
        machine.submitAmount();
        await settle();
        assert.equal(machine.view, view, state);
        assert.equal((host.events.at(-1)!.detail as { code: string }).code, state === 'paid' ? 'order_paid' : 'order_expired');
      }
    });

    test('an untitled order is headed by its amount', async () => {
      const { machine } = orderMachine({ title: '' });
      await machine.load('', ORDER);
      assert.equal(machine.link!.title, '');
      assert.equal(machine.money(machine.price), '$1,500.00');
    });
  });

  describe('the donor’s amount', () => {
    async function donation(locale = 'en') {
      const api = new FakeCheckoutApi(makeDonation());
      const { machine, host } = machineOn(api, locale);
      await machine.load('give1');
      return { machine, host, api };
    }

    test('is payable only within the link’s minimum and maximum, in the currency’s digits', async () => {
      const { machine } = await donation();
      for (const [typed, problem] of [
        ['', 'Enter an amount like NGN 1,000.00.'],
        ['0', 'Enter an amount like NGN 1,000.00.'],
        ['12.345', 'Enter an amount like NGN 1,000.00.'],
        ['100', 'Minimum NGN 500.00'],
        ['3000000', 'Maximum NGN 2,000,000.00'],
        ['1,500.50', ''],
      ]) {
        machine.edit('fiatAmount', typed!);
        assert.equal(plain(machine.amountProblem), problem, typed);
      }
      assert.equal(machine.price, '1500.50');
    });

    test('is read the way the reader writes it (French: 1 000,50)', async () => {
      const { machine } = await donation('fr');
      machine.edit('fiatAmount', '1 000,50');
      assert.equal(machine.price, '1000.50');
      assert.equal(machine.amountProblem, '');
    });

    test('a refused amount stays on the step with its error, and nothing is started', async () => {
      const { machine, api } = await donation();
      machine.edit('fiatAmount', '100');
      machine.submitAmount();
      assert.equal(machine.view, 'amount');
      assert.equal(plain(machine.errors.fiatAmount), 'Minimum NGN 500.00');
      assert.equal(machine.focusInvalid, true);
      machine.edit('fiatAmount', '1000');
      assert.equal(machine.errors.fiatAmount, '', 'typing clears the error');
      assert.equal(api.callsTo('/sessions', 'POST').length, 0);
    });

    test('starts the session with the amount, the chosen asset, and the page’s client reference (as `reference`) and metadata', async () => {
      const { machine, api } = await donation();
      machine.clientReference = 'cart-42';
      machine.metadata = { cart: 'c_9' };
      machine.edit('fiatAmount', '5000');
      machine.chooseAsset('CNGN');
      machine.submitAmount();
      await settle();
      assert.deepEqual(api.callsTo('/sessions', 'POST')[0]!.body, {
        assetId: 'CNGN',
        fiatCurrency: 'NGN',
        fiatAmount: '5000',
        reference: 'cart-42',
        metadata: { cart: 'c_9' },
      });
      assert.equal(machine.view, 'pay');
    });

    test('starts the session with the donor’s name and message (trimmed) and their choice to be shown', async () => {
      const { machine, api } = await donation();
      machine.edit('fiatAmount', '5000');
      machine.edit('donorName', '  Ada  ');
      machine.edit('message', ' For the books ');
      machine.showPublicly = true;
      machine.submitAmount();
      await settle();
      assert.deepEqual(api.callsTo('/sessions', 'POST')[0]!.body, {
        assetId: 'USDT',
        blockchainId: 'bsc',
        fiatCurrency: 'NGN',
        fiatAmount: '5000',
        donorName: 'Ada',
        message: 'For the books',
        showPublicly: true,
      });
    });

    test('a refused name or message is said beside its field on the amount step', async () => {
      const { machine, api } = await donation();
      api.override = (call) =>
        call.method === 'POST' && call.path.endsWith('/sessions')
          ? errorResponse(400, 'validation_failed', 'Invalid', [{ path: 'message', message: 'Must not contain control characters' }])
          : undefined;
      machine.edit('fiatAmount', '5000');
      machine.edit('message', 'x');
      machine.submitAmount();
      await settle();
      assert.equal(machine.view, 'amount');
      assert.deepEqual(machine.errors, { message: 'Must not contain control characters' });
    });
  });

  describe('a fundraiser', () => {
    const fund = (overrides = {}) => makeDonation({ goalAmount: '500000.00', raised: '1000.00', donorCount: 1, ...overrides });
    const linkReads = (api: FakeCheckoutApi) => api.callsTo('/give1', 'GET').length;

    test('reads its public view again every 3 s while the page is visible, and not while it is hidden', async (t) => {
      t.mock.timers.enable({ apis: ['setInterval'] });
      const api = new FakeCheckoutApi(fund());
      const { machine } = machineOn(api);
      await machine.load('give1');
      await settle();
      const reads = linkReads(api);
      api.links.set('give1', fund({ raised: '9000.00', donorCount: 2 }));
      t.mock.timers.tick(3000);
      await settle();
      assert.equal(linkReads(api), reads + 1);
      assert.deepEqual([machine.link!.raised, machine.link!.donorCount], ['9000.00', 2]);
      // A page in a background tab asks for nothing.
      const global = globalThis as { document?: unknown };
      global.document = { hidden: true };
      try {
        t.mock.timers.tick(9000);
        await settle();
        assert.equal(linkReads(api), reads + 1);
      } finally {
        delete global.document;
      }
      machine.disconnect();
      t.mock.timers.tick(9000);
      await settle();
      assert.equal(linkReads(api), reads + 1, 'nothing once the element left the page');
    });

    test('asks for nothing more when the donation has no goal and the page shows no donors', async (t) => {
      t.mock.timers.enable({ apis: ['setInterval'] });
      const api = new FakeCheckoutApi(fund({ goalAmount: null }));
      const { machine } = machineOn(api);
      await machine.load('give1');
      t.mock.timers.tick(9000);
      await settle();
      assert.equal(linkReads(api), 1);
    });

    test('reads its public donors when shown, then only when their count moved', async (t) => {
      t.mock.timers.enable({ apis: ['setInterval'] });
      const api = new FakeCheckoutApi(fund({ goalAmount: null }));
      api.donors = [{ name: 'Ada', message: null, amount: '1000.00', currency: 'NGN', paidAt: '2025-05-01T12:00:00.000Z' }];
      const { machine } = machineOn(api);
      machine.donors = '3';
      await machine.load('give1');
      await settle();
      assert.deepEqual(machine.publicDonors, api.donors);
      assert.equal(api.callsTo('/donors')[0]!.query.get('limit'), '3');
      t.mock.timers.tick(6000);
      await settle();
      assert.equal(api.callsTo('/donors').length, 1, 'the same count: no second read');
      api.links.set('give1', fund({ goalAmount: null, donorCount: 2 }));
      api.donors = [{ ...api.donors[0]!, name: 'Bola' }, ...api.donors];
      t.mock.timers.tick(3000);
      await settle();
      assert.equal(api.callsTo('/donors').length, 2);
      assert.deepEqual(
        machine.publicDonors!.map((donor) => donor.name),
        ['Bola', 'Ada'],
      );
    });

    test('shows the donor’s own gift at once when it is paid', async (t) => {
      t.mock.timers.enable({ apis: ['setInterval'] });
      const api = new FakeCheckoutApi(fund());
      const { machine } = machineOn(api);
      await machine.load('give1');
      machine.edit('fiatAmount', '5000');
      machine.submitAmount();
      await settle();
      api.links.set('give1', fund({ raised: '6000.00', donorCount: 2 }));
      await machine.simulate();
      await settle();
      assert.equal(machine.view, 'done');
      assert.equal(machine.link!.raised, '6000.00', 'read again without waiting for the poll');
    });
  });

  describe('the customer’s details', () => {
    test('follow the service’s rule (core/rules/customer.ts): words for each refusal, in the customer’s language', async () => {
      for (const [locale, words] of [
        ['en', { address: 'Enter your address.', phone: 'Use the international form: +234 801 234 5678.', long: 'At most 500 characters.' }],
        ['fr', { address: 'Saisissez votre adresse.', phone: 'Au format international\u202f: +234 801 234 5678.', long: '500 caractères au plus.' }],
      ] as const) {
        const api = new FakeCheckoutApi(makeLink({ prepayOptions: { collectAddress: true, collectPhone: true } }));
        const { machine } = machineOn(api, locale);
        await machine.load('shop1');
        machine.submitAmount();
        machine.edit('customer.address', ' ');
        machine.edit('customer.phone', '0801 234 5678');
        machine.submitDetails();
        assert.deepEqual(machine.errors, { 'customer.address': words.address, 'customer.phone': words.phone });
        machine.edit('customer.address', 'x'.repeat(501));
        machine.edit('customer.phone', '+44 (20) 7946-0958');
        machine.submitDetails();
        assert.deepEqual(machine.errors, { 'customer.address': words.long });
        assert.equal(api.callsTo('/sessions', 'POST').length, 0);
      }
    });

    test('a national number is refused in the form, in words, before the service is asked', async () => {
      const api = new FakeCheckoutApi(makeLink({ prepayOptions: { collectAddress: true, collectPhone: true } }));
      const { machine } = machineOn(api);
      await machine.load('shop1');
      machine.submitAmount();
      assert.equal(machine.view, 'details');
      machine.edit('customer.address', '12 Marina Road');
      machine.edit('customer.phone', '08012345678');
      machine.submitDetails();
      assert.deepEqual(machine.errors, { 'customer.phone': 'Use the international form: +234 801 234 5678.' });
      assert.equal(api.callsTo('/sessions', 'POST').length, 0);
      machine.edit('customer.phone', '+234 801 234 5678');
      machine.submitDetails();
      await settle();
      assert.deepEqual(api.callsTo('/sessions', 'POST')[0]!.body!.customer, { address: '12 Marina Road', phone: '+234 801 234 5678' });
    });

    test('the service’s field errors go back beside their fields, on their step', async () => {
      const api = new FakeCheckoutApi(makeLink({ prepayOptions: { collectAddress: false, collectPhone: true } }));
      api.override = (call) =>
        call.path.endsWith('/sessions')
          ? errorResponse(400, 'validation_failed', 'Invalid', [{ path: 'customer.phone', message: 'No such number' }])
          : undefined;
      const { machine, host } = machineOn(api);
      await machine.load('shop1');
      machine.submitAmount();
      machine.edit('customer.phone', '+2348012345678');
      machine.submitDetails();
      await settle();
      assert.equal(machine.view, 'details');
      assert.deepEqual(machine.errors, { 'customer.phone': 'No such number' });
      assert.equal((host.events.at(-1)!.detail as { code: string }).code, 'validation_failed');
    });
  });

  describe('the session', () => {
    test('is done only when the service says paid: success event, then the merchant’s https redirect', async () => {
      const api = new FakeCheckoutApi(makeLink());
      api.onSimulate = (session) => ({
        status: 'paid',
        paidAmount: session.cryptoAmount,
        remainingAmount: '0',
        txHash: '0xabc',
        postpayAction: { ...PAID_ACTION, redirect: true, redirectUrl: 'https://shop.example/thanks' },
      });
      const { machine, host } = machineOn(api);
      await machine.load('shop1');
      machine.submitAmount();
      await settle();
      assert.equal(host.storage.get(`localStorage:paylink:session:shop1`), machine.session!.id, 'kept for a reload');
      assert.deepEqual(host.navigations, []);
      await machine.simulate();
      assert.equal(machine.view, 'done');
      assert.deepEqual(host.events.map((event) => event.name).slice(-2), ['paylink-session', 'paylink-success']);
      assert.deepEqual(host.navigations, ['https://shop.example/thanks']);
      assert.equal(host.storage.has('localStorage:paylink:session:shop1'), false, 'nothing left to resume');
    });

    test('a cancelled success event, or a redirect that is not http(s), leaves the customer on the confirmation', async () => {
      for (const [redirectUrl, cancel] of [
        ['https://shop.example/thanks', true],
        ['javascript:alert(1)', false],
      ] as const) {
        const api = new FakeCheckoutApi(makeLink());
        api.onSimulate = () => ({ status: 'paid', postpayAction: { ...PAID_ACTION, redirect: true, redirectUrl } });
        const { machine, host } = machineOn(api);
        host.cancelSuccess = cancel;
        await machine.load('shop1');
        machine.submitAmount();
        await settle();
        await machine.simulate();
        assert.equal(machine.view, 'done');
        assert.deepEqual(host.navigations, [], redirectUrl);
        assert.equal(machine.redirectTo, '');
      }
    });

    test('says “Confirming n/N” while a seen transfer gathers confirmations, and stops the price clock', async () => {
      const { machine } = await onChainPayStep();
      const session = machine.session!;
      machine.apply({ ...session, status: 'confirming', confirmations: 1, requiredConfirmations: 3, txHash: '0x' + 'cd'.repeat(32) });
      assert.equal(machine.view, 'pay');
      assert.equal(machine.progress, 'Confirming 1/3…');
      assert.equal(machine.announcement, 'Confirming 1/3…');
      machine.apply({ ...machine.session!, confirmations: 2 });
      assert.equal(machine.progress, 'Confirming 2/3…');
    });

    test('“Change asset” leaves the unpaid session and goes back to the choice, amount and details kept', async () => {
      const api = new FakeCheckoutApi(makeDonation());
      const { machine, host } = machineOn(api);
      await machine.load('give1');
      machine.edit('fiatAmount', '5000');
      machine.submitAmount();
      await settle();
      assert.equal(machine.view, 'pay');
      machine.changeAsset();
      assert.equal(machine.view, 'amount');
      assert.equal(machine.session, undefined);
      assert.equal(machine.amountText, '5000');
      assert.equal(host.storage.has('localStorage:paylink:session:give1'), false, 'the left session is not resumed');
      machine.chooseAsset('CNGN');
      machine.submitAmount();
      await settle();
      assert.deepEqual(
        api.callsTo('/sessions', 'POST').map((call) => call.body!.assetId),
        ['USDT', 'CNGN'],
      );
    });

    test('the countdown shows the time the price is held as m:ss, never below 0:00', async () => {
      const { machine } = await onChainPayStep();
      machine.session = { ...machine.session!, expiresAt: new Date(Date.now() + 14 * 60_000 + 59_500).toISOString() };
      assert.equal(machine.countdown, '15:00');
      machine.session = { ...machine.session, expiresAt: new Date(Date.now() - 5_000).toISOString() };
      assert.equal(machine.countdown, '0:00');
    });

    test('copies the exact amount and says so; a refused clipboard claims nothing', async () => {
      const { machine, host } = await onChainPayStep();
      await machine.copy(machine.due, 'amount');
      assert.deepEqual(host.copied, ['12.187813']);
      assert.equal(machine.copied, 'amount');
      assert.equal(machine.announcement, 'Copied: Amount');
      host.clipboard = () => Promise.reject(new Error('denied'));
      await machine.copy('x', 'toAddress');
      assert.equal(machine.copied, 'amount');
    });
  });

  describe('paying from a wallet', () => {
    test('the transfer is the due amount in the token’s base units, exactly (no float), and its EIP-681 URI', async () => {
      const { machine } = await onChainPayStep();
      assert.deepEqual(machine.transfer, { chainId: 56, token: TOKEN, to: PAY_TO, units: 12_187_813_000_000_000_000n, add: BSC_ADD_NETWORK });
      machine.apply({ ...machine.session!, status: 'underpaid', paidAmount: '5', remainingAmount: '7.187813' });
      assert.equal(machine.transfer!.units, 7_187_813_000_000_000_000n, 'underpaid: what is left');
      machine.session = { ...machine.session!, chainId: null, tokenAddress: null, tokenDecimals: null };
      assert.equal(machine.transfer, undefined, 'the sandbox has no token to transfer');
    });

    test('connects, checks the balance, and sends transfer(payAddress, units) to the token contract', async () => {
      const { machine, host } = await onChainPayStep();
      const wallet = fakeWallet();
      await machine.payWithWallet({ name: 'Test wallet', provider: wallet.provider });
      assert.deepEqual(wallet.methods(), ['eth_requestAccounts', 'eth_chainId', 'eth_call', 'eth_sendTransaction']);
      assert.deepEqual(wallet.calls[2]!.params, [{ to: TOKEN, data: '0x70a08231' + FROM.slice(2).padStart(64, '0') }, 'latest']);
      assert.deepEqual(wallet.calls[3]!.params, [
        {
          from: FROM,
          to: TOKEN,
          data: '0xa9059cbb' + PAY_TO.slice(2).toLowerCase().padStart(64, '0') + (12_187_813n * 10n ** 12n).toString(16).padStart(64, '0'),
        },
      ]);
      assert.equal(machine.sentHash, '0x' + 'ab'.repeat(32));
      assert.equal(machine.walletError, '');
      assert.equal(machine.busy, false);
      assert.equal(host.events.filter((event) => event.name == 'paylink-success').length, 0, 'sent is not paid: the service decides');
    });

    test('a wallet on another network is switched first, and one that refuses the switch gets words for it', async () => {
      const { machine } = await onChainPayStep();
      const wallet = fakeWallet({ chainId: 1 });
      await machine.payWithWallet({ name: '', provider: wallet.provider });
      assert.deepEqual(wallet.calls[2], { method: 'wallet_switchEthereumChain', params: [{ chainId: '0x38' }] });
      assert.equal(wallet.methods().at(-1), 'eth_sendTransaction');

      const stubborn = fakeWallet({ chainId: 1, refuse: { wallet_switchEthereumChain: { code: 4001 } } });
      machine.sentHash = '';
      await machine.payWithWallet({ name: '', provider: stubborn.provider });
      assert.equal(machine.walletError, 'Switch your wallet to BNB Smart Chain.');
      assert.equal(stubborn.methods().includes('eth_sendTransaction'), false);
    });

    test('a wallet that does not know BNB Smart Chain is asked to add it (4902), with its parameters', async () => {
      const { machine } = await onChainPayStep();
      const wallet = fakeWallet({ chainId: 1, knowsChain: false });
      await machine.payWithWallet({ name: '', provider: wallet.provider });
      const add = wallet.calls.find((call) => call.method == 'wallet_addEthereumChain')!;
      assert.deepEqual(add.params, [
        {
          chainId: '0x38',
          chainName: 'BNB Smart Chain',
          nativeCurrency: { name: 'BNB', symbol: 'BNB', decimals: 18 },
          rpcUrls: ['https://bsc-dataseed.bnbchain.org'],
        },
      ]);
      assert.equal(machine.walletError, '');
      assert.equal(machine.sentHash, '0x' + 'ab'.repeat(32));
    });

    test('a chain we have no parameters for gets words telling the customer to add it', async () => {
      const { machine } = await onChainPayStep();
      machine.session = { ...machine.session!, blockchainId: 'anvil', chainId: 31337, networkName: 'Anvil' };
      const wallet = fakeWallet({ chainId: 1, knowsChain: false });
      await machine.payWithWallet({ name: '', provider: wallet.provider });
      assert.equal(machine.walletError, 'Add Anvil (chain 31337) to your wallet.');
    });

    test('a declined request (4001) gets its words and can be tried again', async () => {
      const { machine } = await onChainPayStep();
      const wallet = fakeWallet({ refuse: { eth_sendTransaction: { code: 4001 } } });
      await machine.payWithWallet({ name: '', provider: wallet.provider });
      assert.equal(machine.walletError, 'Declined. Try again when ready.');
      assert.equal(machine.sentHash, '');
      assert.equal(machine.busy, false, 'the button is back');
      await machine.payWithWallet({ name: '', provider: fakeWallet().provider });
      assert.equal(machine.walletError, '');
      assert.equal(machine.sentHash, '0x' + 'ab'.repeat(32));
    });

    test('a wallet without enough of the token is told so, and nothing is sent', async () => {
      const { machine } = await onChainPayStep();
      const wallet = fakeWallet({ balance: 12_187_812_999_999_999_999n });
      await machine.payWithWallet({ name: '', provider: wallet.provider });
      assert.equal(plain(machine.walletError), 'Not enough in your wallet: 12.187813 USDT needed.');
      assert.equal(wallet.methods().includes('eth_sendTransaction'), false);
    });

    test('any other wallet failure (MetaMask mobile nests its codes) gets its own words', async () => {
      const { machine } = await onChainPayStep();
      await machine.payWithWallet({ name: '', provider: fakeWallet({ refuse: { eth_call: { code: -32603 } } }).provider });
      assert.equal(machine.walletError, 'Sending failed. Try again or scan the code.');
      // MetaMask mobile: -32603 wrapping 4902 for an unknown chain still adds the network.
      const nested = fakeWallet({ chainId: 1, refuse: { wallet_switchEthereumChain: { code: -32603, data: { originalError: { code: 4902 } } } as never } });
      await machine.payWithWallet({ name: '', provider: nested.provider });
      assert.ok(nested.methods().includes('wallet_addEthereumChain'));
    });
  });
});
