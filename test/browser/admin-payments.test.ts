/**
 * `<paylink-admin>`'s payments: the list with its filters and paging, one payment's detail
 * (what the customer gave, amounts, transactions and their explorer pages), a link's own payments,
 * and the CSV export of the whole filtered list, checked row by row against what the API returns.
 */
import { expect, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { PaylinkAdmin } from '../../src/components/admin/paylink-admin.js';
import type { CheckoutSessionRecord } from '../../src/core/schemas.js';
import { FakeAdminApi, errorResponse, makeLink, makeSession } from './admin-fake-api.js';
import { $, $$, choose, click, focused, mount, openTab, part, settle, text, type } from './admin-helpers.js';
import { readCsv } from '../support/csv.js';

const HASH = `0x${'ab'.repeat(32)}`;

/** A merchant with two links and payments on both, one of them with every detail a customer can give. */
function paymentsApi(): { api: FakeAdminApi; detailed: CheckoutSessionRecord } {
  const api = new FakeAdminApi();
  api.links.push(makeLink({ id: 'lnk_bag', title: 'Leather bag' }), makeLink({ id: 'lnk_fund', title: 'School fund', linkType: 'Donation' }));
  const detailed = makeSession({
    createdAt: '2025-03-01T12:00:00.000Z',
    linkId: 'lnk_bag',
    linkTitle: 'Leather bag',
    status: 'overpaid',
    fiatAmount: '185000.00',
    cryptoAmount: '120.500000',
    paidAmount: '121.000000',
    lateAmount: '2.000000',
    rate: '0.000651351351351351351351',
    rateSource: 'coingecko+coinbase',
    rateAt: '2025-03-01T11:59:30.000Z',
    reference: 'order-1042',
    metadata: { cart: '42', channel: 'instagram' },
    customer: { address: '12 Marina Road\nLagos Island', phone: '+2348012345678', email: 'ada@example.com' },
    transfers: [
      { txHash: HASH, blockchainId: 'bsc', amount: '121.000000', confirmedAt: '2025-03-01T12:05:00.000Z', late: false },
      { txHash: `0x${'cd'.repeat(32)}`, blockchainId: 'bsc', amount: '2.000000', confirmedAt: null, late: true },
    ],
  });
  api.sessions.push(
    makeSession({
      createdAt: '2025-02-27T09:00:00.000Z',
      linkId: 'lnk_fund',
      linkTitle: 'School fund',
      status: 'expired',
      paidAmount: '0.000000',
      paidAt: null,
      transfers: [],
      reference: null,
    }),
    makeSession({
      createdAt: '2025-02-28T09:00:00.000Z',
      linkId: 'lnk_bag',
      linkTitle: 'Leather bag',
      status: 'awaiting_payment',
      paidAmount: '0.000000',
      paidAt: null,
      transfers: [],
    }),
    detailed,
  );
  return { api, detailed };
}

async function mountPayments(api: FakeAdminApi, locale = 'en'): Promise<PaylinkAdmin> {
  const el = await mount(api, { view: 'payments', locale });
  await waitUntil(() => $(el, '[part~="payments-table"], [part~="empty"]'), 'payments shown');
  await settle(el);
  return el;
}

async function openDetail(el: PaylinkAdmin, row = 0) {
  await click(el, $$(el, '[part~="open-payment"]')[row]!);
  await waitUntil(() => $(el, '[part~="payment-detail"]'), 'detail shown');
  await settle(el);
}

/** Reads the export's RFC 4180 text into rows of fields. */
function parseCsv(csv: string): string[][] {
  expect(csv.endsWith('\r\n'), 'the file ends with a line break').to.equal(true);
  return readCsv(csv);
}

/** What each column of the export must hold for `s`: the API's value, with `'` before a leading = + - @. */
function expectedRow(s: CheckoutSessionRecord): string[] {
  const guard = (value: string | null) => (value && /^[=+\-@]/.test(value) ? `'${value}` : (value ?? ''));
  return [
    s.id,
    s.createdAt,
    s.status,
    s.linkId,
    s.slug,
    s.linkTitle,
    s.reference,
    s.fiatAmount,
    s.fiatCurrency,
    s.assetId,
    s.blockchainId,
    s.networkName,
    s.cryptoAmount,
    s.paidAmount,
    s.lateAmount,
    s.payAddress,
    s.customer.address,
    s.customer.phone,
    s.customer.email,
    s.paidAt,
    s.expiresAt,
    s.transfers.map((t) => t.txHash).join(' '),
    Object.keys(s.metadata).length ? JSON.stringify(s.metadata) : '',
    s.orderId,
    s.clientReference,
    s.refundedAmount,
    s.paidBlockchainId,
    s.finalizedAt,
  ].map(guard);
}

const HEADER = [
  'id',
  'createdAt',
  'status',
  'linkId',
  'slug',
  'linkTitle',
  'reference',
  'fiatAmount',
  'fiatCurrency',
  'assetId',
  'blockchainId',
  'networkName',
  'cryptoAmount',
  'paidAmount',
  'lateAmount',
  'payAddress',
  'customerAddress',
  'customerPhone',
  'customerEmail',
  'paidAt',
  'expiresAt',
  'txHashes',
  'metadata',
  'orderId',
  'clientReference',
  'refundedAmount',
  'paidBlockchainId',
  'finalizedAt',
];

/** Catches the next export through its event (so nothing is downloaded). */
function catchExport(el: PaylinkAdmin) {
  const exports: { fileName: string; csv: string; count: number }[] = [];
  el.addEventListener('paylink-payments-export', (event) => {
    event.preventDefault();
    exports.push(event.detail);
  });
  return exports;
}

describe('<paylink-admin> payments', () => {
  it('is accessible on the list, the detail, an empty list and a link’s payments', async () => {
    const { api } = paymentsApi();
    const el = await mountPayments(api);
    await expect(el).to.be.accessible();
    await openDetail(el, 0);
    await expect(el).to.be.accessible();
    const empty = await mountPayments(new FakeAdminApi());
    await expect(empty).to.be.accessible();
    const links = await mount(paymentsApi().api);
    await waitUntil(() => $(links, '[part~="link-title"]'));
    await click(links, part(links, 'link-title'));
    await waitUntil(() => $(links, '[part~="link-payment-row"]'), 'link payments shown');
    await expect(links).to.be.accessible();
  });

  it('defaults: lists the payments newest first, 20 a page, with amount, status, link, reference and customer', async () => {
    const { api } = paymentsApi();
    const el = await mountPayments(api);
    const [request] = api.calls('GET', '/checkout-session');
    expect(Object.fromEntries(request!.url.searchParams)).to.deep.equal({ page: '1', limit: '20' });
    const rows = $$(el, '[part~="payment-row"]');
    expect(rows).to.have.length(3);
    expect(text(rows[0]))
      .to.contain('NGN 185,000.00')
      .and.contain('Overpaid')
      .and.contain('Leather bag')
      .and.contain('order-1042')
      .and.contain('+2348012345678');
    expect(text(rows[2])).to.contain('School fund').and.contain('Expired');
    expect(text(part(el, 'payments-pagination'))).to.contain('3 payments');
  });

  describe('when filtering and paging', () => {
    it('sends status, link, reference and the bounds of the chosen days, from page 1', async () => {
      const { api } = paymentsApi();
      const el = await mountPayments(api);
      await waitUntil(() => (part(el, 'filter-link') as HTMLSelectElement).options.length === 3, 'the links are offered');
      await choose(el, part(el, 'filter-payment-status') as HTMLSelectElement, 'overpaid');
      await choose(el, part(el, 'filter-link') as HTMLSelectElement, 'lnk_bag');
      await choose(el, part(el, 'filter-payments-from') as HTMLInputElement, '2025-03-01');
      await choose(el, part(el, 'filter-payments-to') as HTMLInputElement, '2025-03-31');
      await type(el, part(el, 'filter-reference') as HTMLInputElement, ' order-1042 ');
      (part(el, 'payment-filters') as HTMLFormElement).requestSubmit();
      await waitUntil(() => $$(el, '[part~="payment-row"]').length === 1, 'one payment matches');
      const params = Object.fromEntries(api.calls('GET', '/checkout-session').at(-1)!.url.searchParams);
      expect(params).to.deep.equal({
        status: 'overpaid',
        linkId: 'lnk_bag',
        reference: 'order-1042',
        startDate: new Date(2025, 2, 1).toISOString(),
        endDate: new Date(2025, 2, 31, 23, 59, 59, 999).toISOString(),
        page: '1',
        limit: '20',
      });
      await choose(el, part(el, 'filter-payment-status') as HTMLSelectElement, 'expired');
      await waitUntil(() => $(el, '[part~="empty"]'), 'nothing matches');
      expect(text(part(el, 'empty'))).to.equal('No payments match these filters.');
      await click(el, part(el, 'clear-filters'));
      await waitUntil(() => $$(el, '[part~="payment-row"]').length === 3);
      expect(Object.fromEntries(api.calls('GET', '/checkout-session').at(-1)!.url.searchParams)).to.deep.equal({ page: '1', limit: '20' });
    });

    it('waits for a pause in typing a reference', async () => {
      const { api } = paymentsApi();
      const el = await mountPayments(api);
      const before = api.calls('GET', '/checkout-session').length;
      await type(el, part(el, 'filter-reference') as HTMLInputElement, 'order-1');
      await type(el, part(el, 'filter-reference') as HTMLInputElement, 'order-1042');
      await waitUntil(() => $$(el, '[part~="payment-row"]').length === 1);
      const after = api.calls('GET', '/checkout-session').slice(before);
      expect(after.map((r) => r.url.searchParams.get('reference'))).to.deep.equal(['order-1042']);
    });

    it('pages forward and back, and stays on the filters', async () => {
      const api = new FakeAdminApi();
      for (let i = 0; i < 45; i++) api.sessions.push(makeSession({ status: i % 3 ? 'paid' : 'expired' }));
      const el = await mountPayments(api);
      await choose(el, part(el, 'filter-payment-status') as HTMLSelectElement, 'paid');
      await waitUntil(() => text(part(el, 'page-info')).includes('30 payments'));
      expect($$(el, '[part~="payment-row"]')).to.have.length(20);
      await click(el, part(el, 'next-page'));
      await waitUntil(() => $$(el, '[part~="payment-row"]').length === 10);
      const params = api.calls('GET', '/checkout-session').at(-1)!.url.searchParams;
      expect(params.get('page')).to.equal('2');
      expect(params.get('status')).to.equal('paid');
      expect(focused(el)?.id, 'focus back on the heading').to.equal('payments-heading');
      await click(el, part(el, 'previous-page'));
      await waitUntil(() => $$(el, '[part~="payment-row"]').length === 20);
    });
  });

  describe('when opening a payment', () => {
    it('shows the delivery address, phone and email, amounts, reference and metadata', async () => {
      const { api, detailed } = paymentsApi();
      const el = await mountPayments(api);
      await openDetail(el, 0);
      expect(focused(el)?.id).to.equal('payment-detail-heading');
      expect(text(part(el, 'payment-detail').querySelector('h2'))).to.equal('Payment of NGN 185,000.00');
      const address = part(el, 'customer-address');
      expect(address.innerText, 'the address keeps its lines').to.equal('12 Marina Road\nLagos Island');
      expect(text(part(el, 'customer-phone'))).to.equal('+2348012345678');
      expect(part(el, 'customer-phone').querySelector('a')!.getAttribute('href')).to.equal('tel:+2348012345678');
      expect(part(el, 'customer-email').querySelector('a')!.getAttribute('href')).to.equal('mailto:ada@example.com');
      expect(text(part(el, 'fiat-amount'))).to.equal('NGN 185,000.00');
      expect(text(part(el, 'crypto-amount')))
        .to.contain('120.5 USDT')
        .and.contain('BNB Smart Chain');
      expect(text(part(el, 'paid-amount'))).to.equal('121 USDT');
      expect(text(part(el, 'late-amount'))).to.equal('2 USDT');
      const rate = text(part(el, 'exchange-rate'));
      expect(rate, 'what one USDT cost, then the recorded rate, its sources and time, and what it was made of').to.match(
        /^1 USDT = NGN 1,535\.27 0\.000651351351351351351351 USDT per NGN, from coingecko\+coinbase, Mar 1, 2025, \d{1,2}:59 [AP]M USD\/NGN 1,538\.5: coingecko 1,537\.5, coinbase 1,539\.5, exchangerate 1,490 ✗ Rates$/,
      );
      expect(text(part(el, 'pay-address'))).to.equal(detailed.payAddress);
      expect(text(part(el, 'reference'))).to.equal('order-1042');
      const pairs = [...part(el, 'metadata').querySelectorAll('div')].map((pair) => [text(pair.querySelector('dt')), text(pair.querySelector('dd'))]);
      expect(pairs).to.deep.equal([
        ['cart', '42'],
        ['channel', 'instagram'],
      ]);
      expect(api.calls('GET', `/checkout-session/${detailed.id}`), 'read again for its latest state').to.have.length(1);
    });

    it('links an email only when it is an address and nothing else: one stored with header fields shows as text', async () => {
      const api = new FakeAdminApi();
      api.sessions.push(makeSession({ customer: { address: null, phone: null, email: 'support@shop.example?bcc=thief%40evil.example' } }));
      const el = await mountPayments(api);
      await openDetail(el, 0);
      expect(part(el, 'customer-email').querySelector('a'), 'no mailto: link that would copy someone in').to.equal(null);
      expect(text(part(el, 'customer-email'))).to.equal('support@shop.example?bcc=thief%40evil.example');
    });

    it('links each transaction to its page on the network’s explorer', async () => {
      const { api } = paymentsApi();
      const el = await mountPayments(api);
      await openDetail(el, 0);
      await waitUntil(() => $(el, '[part~="explorer-link"]'), 'explorer known');
      const rows = $$(el, '[part~="transaction-row"]');
      expect(rows).to.have.length(2);
      const link = rows[0]!.querySelector('a')!;
      expect(link.getAttribute('href')).to.equal(`https://bscscan.com/tx/${HASH}`);
      expect(link.getAttribute('rel')).to.contain('noopener');
      expect(text(link)).to.contain(HASH).and.contain('opens in a new tab');
      expect(text(rows[1])).to.contain('Waiting for confirmations').and.contain('Late');
      expect($(el, '[part~="no-explorer"]')).to.equal(null);
    });

    it('names the network a payment came on when it is not the one quoted, links its transaction there, and says when its money became final', async () => {
      const { api, detailed } = paymentsApi();
      api.networks.push({ id: 'polygon', name: 'Polygon', aliases: [], assets: ['USDT'], chainId: 137, explorerUrl: 'https://polygonscan.com', alerts: [] });
      Object.assign(detailed, {
        paidBlockchainId: 'polygon',
        finalizedAt: '2025-03-01T12:20:00.000Z',
        transfers: [{ ...detailed.transfers[0]!, blockchainId: 'polygon' }, detailed.transfers[1]!],
      });
      const el = await mountPayments(api);
      await openDetail(el, 0);
      await waitUntil(() => $(el, '[part~="explorer-link"]'), 'explorer known');
      expect(text(part(el, 'paid-network'))).to.equal('Polygon');
      expect(text(part(el, 'finalized-at'))).to.contain('2025');
      expect($$(el, '[part~="explorer-link"]')[0]!.getAttribute('href')).to.equal(`https://polygonscan.com/tx/${HASH}`);
      expect(text($$(el, '[part~="explorer-link"]')[0])).to.contain('Polygon');
      await expect(el).to.be.accessible();
    });

    it('names no other network for a payment on the one quoted, and no final time before its money is final', async () => {
      const { api } = paymentsApi();
      const el = await mountPayments(api);
      await openDetail(el, 0);
      expect($(el, '[part~="paid-network"]')).to.equal(null);
      expect($(el, '[part~="finalized-at"]')).to.equal(null);
    });

    it('shows the hashes without links on the sandbox, which has no explorer', async () => {
      const { api } = paymentsApi();
      // As the sandbox reports its network: no chain id, no explorer.
      api.networks = api.networks.map((network) => ({ ...network, chainId: null, explorerUrl: null }));
      const el = await mountPayments(api);
      await openDetail(el, 0);
      await waitUntil(() => api.calls('GET', '/withdrawal/networks').length > 0);
      await settle(el);
      expect($(el, '[part~="explorer-link"]')).to.equal(null);
      expect(text(part(el, 'transactions-table'))).to.contain(HASH);
      expect(text(part(el, 'no-explorer')))
        .to.contain('Test mode')
        .and.contain('sandbox');
      await expect(el).to.be.accessible();
    });

    it('says a local test chain is one, not the sandbox, from the chain id the service reports', async () => {
      const { api } = paymentsApi();
      api.networks = [{ id: 'bsc', name: 'Local chain', aliases: [], assets: ['USDT', 'CNGN'], chainId: 31337, explorerUrl: null, alerts: [] }];
      const el = await mountPayments(api);
      await openDetail(el, 0);
      await waitUntil(() => $(el, '[part~="no-explorer"]'), 'the note once the networks are known');
      const note = text(part(el, 'no-explorer'));
      expect(note).to.contain('Local test chain').and.contain('chain id 31337');
      expect(note).not.to.match(/sandbox|Test mode/);
    });

    it('on a real network without a known explorer says only that', async () => {
      const { api } = paymentsApi();
      api.networks = [{ id: 'bsc', name: 'BNB Smart Chain', aliases: [], assets: ['USDT', 'CNGN'], chainId: 56, explorerUrl: null, alerts: [] }];
      const el = await mountPayments(api);
      await openDetail(el, 0);
      await waitUntil(() => $(el, '[part~="no-explorer"]'), 'the note once the networks are known');
      const note = text(part(el, 'no-explorer'));
      expect(note).to.contain('knows no block explorer for BNB Smart Chain');
      expect(note).not.to.match(/sandbox|Test mode|local/i);
    });

    it('says when the link asked for nothing, and goes back to the list with the keyboard', async () => {
      const { api } = paymentsApi();
      const el = await mountPayments(api);
      const plain = $$(el, '[part~="open-payment"]')[2]!;
      plain.focus();
      await sendKeys({ press: 'Enter' });
      await waitUntil(() => $(el, '[part~="payment-detail"]'));
      await settle(el);
      expect(text(part(el, 'customer'))).to.contain('The customer gave no details');
      expect(text(part(el, 'transactions'))).to.contain('No transfer has arrived yet.');
      await sendKeys({ down: 'Shift' });
      await sendKeys({ press: 'Tab' });
      await sendKeys({ up: 'Shift' });
      expect(part(el, 'back').matches(':focus'), 'the back button comes before the heading').to.equal(true);
      await sendKeys({ press: 'Enter' });
      await waitUntil(() => $(el, '[part~="payments-table"]'));
      await settle(el);
      expect(focused(el)?.id).to.equal('payments-heading');
    });
  });

  describe('when a link is opened', () => {
    it('lists its payments, newest first, and opens one', async () => {
      const { api, detailed } = paymentsApi();
      const el = await mount(api);
      await waitUntil(() => $$(el, '[part~="link-title"]').length === 2);
      await click(
        el,
        $$(el, '[part~="link-title"]').find((b) => text(b) === 'Leather bag')!,
      );
      await waitUntil(() => $$(el, '[part~="link-payment-row"]').length === 2, 'the link’s two payments');
      const request = api.calls('GET', '/checkout-session').at(-1)!;
      expect(Object.fromEntries(request.url.searchParams)).to.deep.equal({ linkId: 'lnk_bag', page: '1', limit: '5' });
      const rows = $$(el, '[part~="link-payment-row"]');
      expect(text(rows[0])).to.contain('NGN 185,000.00').and.contain('order-1042');
      await click(el, rows[0]!.querySelector<HTMLElement>('[part~="open-payment"]')!);
      await waitUntil(() => $(el, '[part~="payment-detail"]'));
      expect(text(part(el, 'customer-address'))).to.contain('12 Marina Road');
      expect(text(part(el, 'back'))).to.contain('Back to Leather bag');
      expect(api.calls('GET', `/checkout-session/${detailed.id}`)).to.have.length(1);
      await click(el, part(el, 'back'));
      await waitUntil(() => $(el, '[part~="link-detail"]'));
      await settle(el);
      expect(focused(el)?.id, 'back where the merchant left').to.equal('ld-payments');
    });

    it('opens the payments tab filtered on the link', async () => {
      const { api } = paymentsApi();
      const el = await mount(api);
      await waitUntil(() => $$(el, '[part~="link-title"]').length === 2);
      await click(
        el,
        $$(el, '[part~="link-title"]').find((b) => text(b) === 'Leather bag')!,
      );
      await waitUntil(() => $(el, '[part~="link-payment-row"]'));
      await click(el, part(el, 'all-link-payments'));
      await waitUntil(() => el.view === 'payments' && $$(el, '#panel-payments [part~="payment-row"]').length === 2, 'the link’s payments in the tab');
      await settle(el);
      expect(api.calls('GET', '/checkout-session').at(-1)!.url.searchParams.get('linkId')).to.equal('lnk_bag');
      expect((part(el, 'filter-link') as HTMLSelectElement).selectedOptions[0]!.textContent).to.equal('Leather bag');
      expect(focused(el)?.id).to.equal('payments-heading');
    });
  });

  describe('when exporting', () => {
    it('exports every page of the filtered list, rows matching the API, quoted and guarded', async () => {
      const api = new FakeAdminApi();
      for (let i = 0; i < 230; i++) api.sessions.push(makeSession({ status: i % 4 ? 'paid' : 'expired', linkId: i % 2 ? 'lnk_a' : 'lnk_b' }));
      api.sessions.push(
        makeSession({
          status: 'paid',
          linkId: 'lnk_a',
          reference: '=HYPERLINK("https://evil.example")',
          linkTitle: 'Bags, "limited" edition',
          customer: { address: '1 Main St,\nIkeja', phone: '+2348012345678', email: '@ada' },
          metadata: { note: 'say "hi", please' },
        }),
      );
      const el = await mountPayments(api);
      const exports = catchExport(el);
      await choose(el, part(el, 'filter-payment-status') as HTMLSelectElement, 'paid');
      await waitUntil(() => text(part(el, 'page-info')).includes('173 payments'));
      const shownBefore = api.calls('GET', '/checkout-session').length;
      await click(el, part(el, 'export-csv'));
      await waitUntil(() => exports.length === 1, 'export finished', { timeout: 5000 });

      const requests = api.calls('GET', '/checkout-session').slice(shownBefore);
      expect(requests.map((r) => r.url.searchParams.get('page'))).to.deep.equal(['1', '2']);
      for (const request of requests) {
        expect(request.url.searchParams.get('status')).to.equal('paid');
        expect(request.url.searchParams.get('limit')).to.equal('100');
      }
      const { fileName, csv, count } = exports[0]!;
      const now = new Date();
      const day = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
      expect(fileName).to.equal(`paylink-payments-${day}.csv`);
      const outsideQuotes = csv.replace(/"(?:[^"]|"")*"/g, '');
      expect(outsideQuotes.replace(/\r\n/g, ''), 'every row ends with CRLF; other line breaks are inside quotes').not.to.match(/[\r\n]/);

      const expected = api.filterSessions(new URLSearchParams({ status: 'paid' }));
      expect(expected).to.have.length(173);
      const rows = parseCsv(csv);
      expect(rows[0]).to.deep.equal(HEADER);
      expect(rows.slice(1)).to.deep.equal(expected.map(expectedRow));
      expect(count).to.equal(173);

      const tricky = rows.find((row) => row[6]!.includes('HYPERLINK'))!;
      expect(tricky[6], 'a formula is text').to.equal(`'=HYPERLINK("https://evil.example")`);
      expect(tricky[17]).to.equal(`'+2348012345678`);
      expect(tricky[18]).to.equal(`'@ada`);
      expect(tricky[16]).to.equal('1 Main St,\nIkeja');
      expect(csv).to.contain('"\'=HYPERLINK(""https://evil.example"")"');
      expect(text(part(el, 'status'))).to.contain('Exported 173 payments');
    });

    it('holds the list still while exporting: no later payment, no row twice', async () => {
      const api = new FakeAdminApi();
      for (let i = 0; i < 150; i++) api.sessions.push(makeSession());
      const el = await mountPayments(api);
      const exports = catchExport(el);
      // A payment arrives between the two pages of the export.
      api.intercept((request) => {
        if (request.path.endsWith('/checkout-session') && request.url.searchParams.get('page') === '2')
          api.sessions.push(makeSession({ createdAt: new Date().toISOString() }));
        return undefined;
      });
      await click(el, part(el, 'export-csv'));
      await waitUntil(() => exports.length === 1);
      const rows = parseCsv(exports[0]!.csv).slice(1);
      expect(rows).to.have.length(150);
      expect(new Set(rows.map((row) => row[0])).size).to.equal(150);
      const endDate = api.calls('GET', '/checkout-session').at(-1)!.url.searchParams.get('endDate');
      expect(Date.parse(endDate!)).to.be.at.most(Date.now());
    });

    it('exports with the filters exactly as the list sends them', async () => {
      const { api } = paymentsApi();
      const el = await mountPayments(api);
      const exports = catchExport(el);
      await type(el, part(el, 'filter-reference') as HTMLInputElement, '  order-1042 ');
      (part(el, 'payment-filters') as HTMLFormElement).requestSubmit();
      await waitUntil(() => $$(el, '[part~="payment-row"]').length === 1);
      const shown = Object.fromEntries(api.calls('GET', '/checkout-session').at(-1)!.url.searchParams);
      await click(el, part(el, 'export-csv'));
      await waitUntil(() => exports.length === 1);
      const { endDate, page, limit, ...exported } = Object.fromEntries(api.calls('GET', '/checkout-session').at(-1)!.url.searchParams);
      expect(exported).to.deep.equal({ reference: 'order-1042' });
      expect({ ...exported, page: shown.page, limit: shown.limit }).to.deep.equal(shown);
      expect(
        parseCsv(exports[0]!.csv)
          .slice(1)
          .map((row) => row[6]),
      ).to.deep.equal(['order-1042']);
    });

    it('downloads the file with a byte-order mark when the page does not take it', async () => {
      const { api } = paymentsApi();
      const el = await mountPayments(api);
      const blobs: Blob[] = [];
      const clicked: { download: string; href: string }[] = [];
      const createObjectURL = URL.createObjectURL;
      const anchorClick = HTMLAnchorElement.prototype.click;
      URL.createObjectURL = (blob: Blob | MediaSource) => (blobs.push(blob as Blob), 'blob:paylink-test');
      HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
        clicked.push({ download: this.download, href: this.href });
      };
      try {
        part(el, 'export-csv').focus();
        await sendKeys({ press: 'Enter' });
        await waitUntil(() => clicked.length === 1, 'the download was started from the keyboard');
      } finally {
        URL.createObjectURL = createObjectURL;
        HTMLAnchorElement.prototype.click = anchorClick;
      }
      expect(clicked[0]!.download).to.match(/^paylink-payments-\d{4}-\d{2}-\d{2}\.csv$/);
      expect(clicked[0]!.href).to.equal('blob:paylink-test');
      expect(blobs[0]!.type).to.equal('text/csv;charset=utf-8');
      const bytes = new Uint8Array(await blobs[0]!.arrayBuffer());
      expect([...bytes.slice(0, 3)], 'UTF-8 byte-order mark').to.deep.equal([0xef, 0xbb, 0xbf]);
      expect(parseCsv(new TextDecoder().decode(bytes.slice(3))).slice(1)).to.have.length(3);
      expect($(el, 'a[download]'), 'no anchor left behind').to.equal(null);
    });

    it('says why an export failed and tries again', async () => {
      const { api } = paymentsApi();
      const el = await mountPayments(api);
      const exports = catchExport(el);
      let down = true;
      api.intercept((request) =>
        down && request.url.searchParams.get('limit') === '100' ? errorResponse(502, 'upstream_unavailable', 'The payment service is unreachable') : undefined,
      );
      await click(el, part(el, 'export-csv'));
      await waitUntil(() => $(el, '[part~="export-error"]'), 'error shown');
      expect(text(part(el, 'export-error'))).to.contain('unreachable');
      await expect(el).to.be.accessible();
      down = false;
      await click(el, part(el, 'export-error').querySelector<HTMLElement>('[part~="retry"]')!);
      await waitUntil(() => exports.length === 1);
      expect($(el, '[part~="export-error"]')).to.equal(null);
    });
  });

  describe('when the proxy answers 401', () => {
    it('asks the merchant to sign in', async () => {
      const { api } = paymentsApi();
      api.intercept((request) => (request.path.includes('/checkout-session') ? errorResponse(401, 'unauthorized', 'Sign in') : undefined));
      const el = await mount(api, { view: 'payments' });
      await waitUntil(() => $(el, '[part~="sign-in"]'), 'sign-in shown');
    });
  });

  describe('when the locale is French', () => {
    it('speaks French in the list and the detail', async () => {
      const { api } = paymentsApi();
      const el = await mountPayments(api, 'fr');
      expect(text($(el, '#payments-heading'))).to.equal('Paiements');
      expect(text(part(el, 'export-csv'))).to.equal('Exporter en CSV');
      expect(text($$(el, '[part~="payment-row"]')[0])).to.contain('Trop-perçu');
      await openDetail(el, 0);
      expect(text(part(el, 'customer'))).to.contain('Adresse de livraison');
      expect(text(part(el, 'amounts')))
        .to.contain('Taux de change')
        .and.match(/1 USDT = 1\s535,27\sNGN 0,000651351351351351351351 USDT par NGN, source coingecko\+coinbase/);
    });
  });

  it('opens on the payments tab from markup, and moves to it with the arrow keys', async () => {
    const { api } = paymentsApi();
    const el = await mount(api, { view: 'money' });
    const tab = $(el, '#tab-money')!;
    tab.focus();
    await sendKeys({ press: 'ArrowRight' });
    await settle(el);
    expect(el.view).to.equal('payments');
    expect(focused(el)?.id).to.equal('tab-payments');
    await waitUntil(() => $$(el, '[part~="payment-row"]').length === 3);
    await openTab(el, 'links');
    expect(el.view).to.equal('links');
  });
});
