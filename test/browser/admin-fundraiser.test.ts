/**
 * `<paylink-admin>` on a fundraiser: the link form takes a donation's goal, the link's detail shows
 * what it raised of the goal, and its payments say each donor with Hide while the donor is on the page.
 */
import { expect, waitUntil } from '@open-wc/testing';
import '../../src/admin.js';
import type { PaylinkAdmin } from '../../src/components/admin/paylink-admin.js';
import { FakeAdminApi, makeLink, makeSession } from './admin-fake-api.js';
import { $, $$, button, choose, click, errorFor, field, mount, part, text, type } from './admin-helpers.js';

/** A fundraiser with a goal, its payments (two shown donors, one private, one hidden, one unpaid). */
function fundraiserApi(): FakeAdminApi {
  const api = new FakeAdminApi();
  const link = makeLink({
    id: 'lnk_fund',
    title: 'Library books',
    linkType: 'Donation',
    fiatAmount: '0.00',
    goalAmount: '500000.00',
    raised: '125000.50',
    donorCount: 12,
  });
  api.links.push(link);
  const donation = (overrides: Parameters<typeof makeSession>[0]) => makeSession({ linkId: link.id, slug: link.slug, linkTitle: link.title, ...overrides });
  api.sessions.push(
    donation({ donorName: 'Ada', message: 'For the books', showPublicly: true }),
    donation({ donorName: 'Secret Sam', message: null, showPublicly: false }),
    donation({ donorName: 'Bola', message: '<b>hi</b>', showPublicly: true, donorHiddenAt: '2025-03-01T12:00:00.000Z' }),
    donation({ donorName: 'Chidi', message: null, showPublicly: true, status: 'awaiting_payment', paidAt: null }),
  );
  return api;
}

async function openFundraiser(api: FakeAdminApi): Promise<PaylinkAdmin> {
  const el = await mount(api);
  await waitUntil(() => $(el, '[part~="link-title"]'), 'the links');
  await click(el, part(el, 'link-title'));
  await waitUntil(() => $$(el, '[part~="link-payment-row"]').length === 4, 'the donations');
  return el;
}

/** The row of the donor named `name`. */
const row = (el: PaylinkAdmin, name: string) => $$(el, '[part~="link-payment-row"]').find((r) => text(r).includes(name))!;

describe('<paylink-admin> on a fundraiser', () => {
  it('is accessible with its progress and donors', async () => {
    const el = await openFundraiser(fundraiserApi());
    await expect(el).to.be.accessible();
  });

  it('shows what the fundraiser raised of its goal over a progress bar', async () => {
    const el = await openFundraiser(fundraiserApi());
    expect(text(part(el, 'stat-raised'))).to.equal('NGN 125,000.50 / NGN 500,000.00');
    const bar = part(el, 'progress') as HTMLProgressElement;
    expect(bar.value).to.equal(25);
    expect(text(el.shadowRoot!.getElementById(bar.getAttribute('aria-labelledby')!))).to.equal('Raised');
  });

  it('says each donor and hides one who is shown, with the key the proxy adds', async () => {
    const api = fundraiserApi();
    const el = await openFundraiser(api);
    expect(text(row(el, 'Ada'))).to.contain('For the books');
    expect(text(row(el, 'Bola')), 'a message stays text').to.contain('<b>hi</b>');
    // Hide where the donor is on the page: paid and shown; never for the private, hidden or unpaid ones.
    expect($$(el, '[part~="hide-donor"]')).to.have.length(1);
    for (const name of ['Secret Sam', 'Bola', 'Chidi']) expect(row(el, name).querySelector('[part~="hide-donor"]'), name).to.equal(null);
    await click(el, row(el, 'Ada').querySelector<HTMLElement>('[part~="hide-donor"]')!);
    await waitUntil(() => $$(el, '[part~="hide-donor"]').length === 0, 'Ada hidden');
    const ada = api.sessions.find((session) => session.donorName === 'Ada')!;
    expect(api.calls('POST', `/checkout-session/${ada.id}/hide-donor`)).to.have.length(1);
    expect(ada.donorHiddenAt, 'the service was asked').to.be.a('string');
    expect(text(part(el, 'status'))).to.contain('Donor hidden from the page.');
  });

  it('takes the goal in the link form, and refuses one that is not above 0 beside its field', async () => {
    const api = fundraiserApi();
    const el = await mount(api);
    await click(el, part(el, 'new-link'));
    await choose(el, $(el, '#lf-kind-donation') as HTMLInputElement, 'on');
    await type(el, field(el, /Title/), 'Roof repairs');
    await type(el, field(el, /Goal/), '0');
    await click(el, button(el, /Create link/));
    expect(errorFor(el, field(el, /Goal/))).to.match(/greater than 0/);
    await type(el, field(el, /Goal/), '250,000');
    await click(el, button(el, /Create link/));
    await waitUntil(() => api.calls('POST', '/payment-link').length === 1, 'the link created');
    expect(api.calls('POST', '/payment-link')[0]!.body.goalAmount).to.equal('250000');
  });

  it('speaks French', async () => {
    const el = await openFundraiser(fundraiserApi());
    el.locale = 'fr';
    await waitUntil(() => text(part(el, 'hide-donor')) === 'Masquer', 'French');
    expect(text(el.shadowRoot!.getElementById('ld-raised'))).to.equal('Collecté');
  });
});
