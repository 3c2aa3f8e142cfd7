/**
 * Parity: the admin's forms and the service accept exactly the same links and withdrawals. Each
 * sample is typed into the real form state (`LinkFormModel`, the link form's DOM-free model, and
 * `WithdrawController` with a stand-in host), whose check runs the core rules; the body the form
 * would send then goes to the service (`app.request`, PGlite). The form accepts a sample iff the service does (a withdrawal the
 * service refuses only for the balance, 422, counts as accepted: the form's rules are about the request).
 * The checkout's side is `checkout-parity.test.ts`; the phone rule is checked here on the service too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createPaylinkClient } from '../../src/client/index.js';
import { AdminText, type AdminHost } from '../../src/components/admin/admin-context.js';
import { LinkFormModel, emptyLinkFormValues, type LinkFormValues } from '../../src/components/admin/links/link-form-model.js';
import { WithdrawController } from '../../src/components/admin/money/withdraw-form.js';
import type { PaymentLink } from '../../src/core/schemas.js';
import type { Database } from '../../src/server/db/index.js';
import { createSandboxChain } from '../../src/server/chain/sandbox/index.js';
import { createApp } from '../../src/server/service/app.js';
import { createApiKey } from '../../src/server/service/keys/index.js';
import { openMigratedPglite } from '../support/pglite-template.js';

const GOOD = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

let db: Database;
let app: ReturnType<typeof createApp>;
let key: string;

function host(): AdminHost {
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => app.request(String(input).replace('http://service.test', ''), init);
  return {
    api: createPaylinkClient({ baseUrl: 'http://service.test/v1', apiKey: key, fetch: fetch as typeof globalThis.fetch }),
    text: new AdminText('en'),
    pollInterval: 1000,
    announce() {},
    handleAuthError: () => false,
    focusAfterRender() {},
    requestUpdate() {},
    addController() {},
  } as unknown as AdminHost;
}

async function send(method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await app.request(path, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

before(async () => {
  db = await openMigratedPglite();
  app = createApp({ db, chain: createSandboxChain(), publicUrl: 'http://pay.test/pay', now: () => new Date() });
  key = (await createApiKey(db)).key;
});
after(() => db.close());

// ---------------------------------------------------------------------------------------------
// Links

const FORM: LinkFormValues = {
  ...emptyLinkFormValues(),
  title: 'Workshop',
  description: 'Saturday morning',
  amount: '2000',
  successMessage: 'Thanks!',
};
const item = (name: string, quantity: string, unitAmount: string, key = 1) => ({ key, name, quantity, unitAmount });
const donation = (overrides: Partial<LinkFormValues>): Partial<LinkFormValues> => ({ linkType: 'Donation', amount: '', ...overrides });

const LINK_SAMPLES: Array<[string, Partial<LinkFormValues>]> = [
  ['a valid Standard link', {}],
  ['no title', { title: '   ' }],
  ['a title of 200 characters', { title: 'x'.repeat(200) }],
  ['a title of 201 characters', { title: 'x'.repeat(201) }],
  ['a description of 5001 characters', { description: 'x'.repeat(5001) }],
  ['a success message of 2001 characters', { successMessage: 'x'.repeat(2001) }],
  ['no amount', { amount: '' }],
  ['a word as amount', { amount: 'ten' }],
  ['three decimals in NGN', { amount: '10.001' }],
  ['two decimals in NGN', { amount: '10.50' }],
  ['decimals in JPY', { currency: 'JPY', amount: '10.5' }],
  ['a whole JPY amount', { currency: 'JPY', amount: '1500' }],
  ['zero', { amount: '0' }],
  ['an exponent', { amount: '1e3' }],
  ['grouped thousands', { amount: '1,250.50' }],
  ['the largest amount', { amount: '1000000000000' }],
  ['past the largest amount', { amount: '1000000000000.01' }],
  ['a cart', { items: [item('Beans', '2', '1500.25'), item('Mug', '1', '999.5', 2)] }],
  ['a cart item without a name', { items: [item(' ', '1', '5')] }],
  ['a cart item of quantity 0', { items: [item('A', '0', '5')] }],
  ['a fractional quantity', { items: [item('A', '1.5', '5')] }],
  ['an empty quantity', { items: [item('A', '', '5')] }],
  ['a quantity of 10001', { items: [item('A', '10001', '5')] }],
  ['an empty unit price', { items: [item('A', '1', '')] }],
  ['a unit price with 3 decimals', { items: [item('A', '1', '1.005')] }],
  ['a redirect to https', { after: 'redirect', redirectUrl: 'https://shop.example/thanks' }],
  ['a redirect without a URL', { after: 'redirect', redirectUrl: '' }],
  ['a javascript: redirect', { after: 'redirect', redirectUrl: 'javascript:alert(1)' }],
  ['a relative redirect', { after: 'redirect', redirectUrl: '/thanks' }],
  ['a redirect URL of 2049 characters', { after: 'redirect', redirectUrl: `https://x.example/${'a'.repeat(2031)}` }],
  ['a plain donation', donation({})],
  ['a donation with bounds and suggestions', donation({ minAmount: '500', maxAmount: '100000', suggestedAmounts: '1000, 2500, 5000' })],
  ['a donation with min above max', donation({ minAmount: '500', maxAmount: '100' })],
  ['a donation with max 0', donation({ maxAmount: '0' })],
  ['a suggestion below the minimum', donation({ minAmount: '500', suggestedAmounts: '100' })],
  ['a suggestion above the maximum', donation({ maxAmount: '500', suggestedAmounts: '100, 1000' })],
  ['nine suggestions', donation({ suggestedAmounts: '1, 2, 3, 4, 5, 6, 7, 8, 9' })],
  ['an unreadable suggestion', donation({ suggestedAmounts: '1000, lots' })],
  ['a zero suggestion', donation({ suggestedAmounts: '0' })],
  ['a closing time in the past', donation({ closesAt: '2001-01-01T00:00' })],
  ['a closing time in the future', donation({ closesAt: '2099-06-30T18:00' })],
];

async function linkParity(values: Partial<LinkFormValues>, editing?: PaymentLink) {
  const form = new LinkFormModel(() => new AdminText('en'));
  form.open(editing);
  // A new link starts from a valid form; an edited one from the link as the form shows it.
  form.values = { ...(editing ? form.values : FORM), ...values };
  const formErrors = form.check();
  const formAccepts = Object.keys(formErrors).length === 0 && form.formError === '';
  const body = form.body();
  const response = editing ? await send('PATCH', '/v1/payment-link', { ...body, id: editing.id }) : await send('POST', '/v1/payment-link', body);
  const serviceAccepts = response.status === (editing ? 200 : 201);
  if (!serviceAccepts) assert.equal(response.status, 400, JSON.stringify(response.body));
  return { formAccepts, serviceAccepts, formErrors, response };
}

describe('parity of the admin link form and the service', () => {
  for (const [what, values] of LINK_SAMPLES)
    it(what, async () => {
      const { formAccepts, serviceAccepts, formErrors, response } = await linkParity(values);
      assert.equal(formAccepts, serviceAccepts, `form: ${JSON.stringify(formErrors)}; service: ${response.status} ${JSON.stringify(response.body.errors)}`);
    });

  it('the table holds both accepted and refused samples', async () => {
    const outcomes = await Promise.all(LINK_SAMPLES.map(([, values]) => linkParity(values).then((result) => result.serviceAccepts)));
    assert.ok(outcomes.filter(Boolean).length >= 10 && outcomes.filter((accepted) => !accepted).length >= 20, JSON.stringify(outcomes));
  });

  it('when editing: the same acceptance, and an unchanged past closing time stays editable', async () => {
    const created = await send('POST', '/v1/payment-link', {
      title: 'Roof',
      description: '',
      linkType: 'Donation',
      fiatCurrency: 'NGN',
      action: {},
      options: {},
      cart: { items: [] },
      closesAt: new Date(Date.now() + 60_000).toISOString(),
    });
    assert.equal(created.status, 201);
    const link = created.body as PaymentLink;
    for (const values of [{ title: 'New roof' }, { title: '' }, { minAmount: '10', maxAmount: '5' }, { description: 'Still open' }]) {
      const { formAccepts, serviceAccepts } = await linkParity(values, link);
      assert.equal(formAccepts, serviceAccepts, JSON.stringify(values));
    }
  });

  it('agrees on random combinations of typed values', async () => {
    const text = fc.constantFrom('', ' ', 'Order', 'x'.repeat(201));
    const typedAmount = fc.constantFrom('', '0', '10', '10.5', '10.505', 'abc', '1e2', '-3', '1000000000000', '1000000000001', ' 42 ');
    const currency = fc.constantFrom('NGN', 'USD', 'JPY', 'KWD');
    const items = fc.array(fc.record({ name: text, quantity: fc.constantFrom('1', '0', '2', '1.5', '', '10001'), unitAmount: typedAmount }), { maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          linkType: fc.constantFrom<'Standard' | 'Donation'>('Standard', 'Donation'),
          title: text,
          currency,
          amount: typedAmount,
          items,
          after: fc.constantFrom<'message' | 'confirmation' | 'redirect'>('message', 'confirmation', 'redirect'),
          redirectUrl: fc.constantFrom('', 'https://shop.example', 'javascript:x', '/rel', 'http://'),
          minAmount: typedAmount,
          maxAmount: typedAmount,
          suggestedAmounts: fc.constantFrom('', '10', '10, 20', '0', 'abc', '1,2,3,4,5,6,7,8,9'),
          closesAt: fc.constantFrom('', '2001-01-01T00:00', '2099-01-01T00:00'),
        }),
        async (sample) => {
          const values = { ...sample, items: sample.items.map((entry, index) => ({ ...entry, key: index + 1 })) };
          const { formAccepts, serviceAccepts, formErrors, response } = await linkParity(values);
          assert.equal(
            formAccepts,
            serviceAccepts,
            `${JSON.stringify(values)}\nform: ${JSON.stringify(formErrors)}\nservice: ${JSON.stringify(response.body)}`,
          );
        },
      ),
      { numRuns: 120 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Withdrawals

async function withdrawalParity(sample: { assetId: string; blockchainId: string; address: string; amount: string }) {
  const form = new WithdrawController(host(), { availableOf: () => undefined, submitted() {} });
  await form.loadNetworks();
  Object.assign(form, sample);
  // The form's own review (what its "Review withdrawal" button runs) and the body its confirmation would send.
  const internals = form as unknown as { review(event: { preventDefault(): void }): void; body(): Record<string, unknown> };
  internals.review({ preventDefault() {} });
  const formAccepts = form.step === 'confirm';
  const body = internals.body();
  const response = await send('POST', '/v1/withdrawal', body);
  const serviceAccepts = response.status === 200 || (response.status === 422 && response.body.code === 'insufficient_balance');
  if (!serviceAccepts) assert.equal(response.status, 400, JSON.stringify(response.body));
  return { formAccepts, serviceAccepts, errors: form.errors, response };
}

describe('parity of the admin withdrawal form and the service', () => {
  it('agrees on a table of typed values', async () => {
    const valid = { assetId: 'USDT', blockchainId: 'bsc', address: GOOD, amount: '25.5' };
    const samples = [
      valid,
      { ...valid, assetId: 'CNGN' },
      { ...valid, blockchainId: 'BEP20' },
      { ...valid, blockchainId: 'ethereum' },
      { ...valid, address: GOOD.toLowerCase() },
      { ...valid, address: `0x${GOOD.slice(2).toUpperCase()}` },
      { ...valid, address: GOOD.replace('aAeb', 'aaeb') },
      { ...valid, address: GOOD.slice(0, 41) },
      { ...valid, address: GOOD.slice(2) },
      { ...valid, address: '' },
      { ...valid, address: ` ${GOOD} ` },
      ...['', '0', '-1', 'abc', '1e3', '1.1234567', '0.000001', '1000000000000', '1000000000000.5', ' 7 '].map((amount) => ({ ...valid, amount })),
    ];
    for (const sample of samples) {
      const { formAccepts, serviceAccepts, errors, response } = await withdrawalParity(sample);
      assert.equal(formAccepts, serviceAccepts, `${JSON.stringify(sample)}\nform: ${JSON.stringify(errors)}\nservice: ${JSON.stringify(response.body)}`);
    }
  });

  it('agrees on random combinations', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          assetId: fc.constantFrom('USDT', 'CNGN'),
          blockchainId: fc.constantFrom('bsc', 'BSC', 'bnb smart chain', 'tron'),
          address: fc.constantFrom(GOOD, GOOD.toLowerCase(), GOOD.replace('aAeb', 'aAEb'), `${GOOD}0`, '0x', ''),
          amount: fc.oneof(fc.constantFrom('', '0', '1.0000001', 'x'), fc.double({ min: 0, max: 1e13, noNaN: true }).map(String)),
        }),
        async (sample) => {
          const { formAccepts, serviceAccepts, errors, response } = await withdrawalParity(sample);
          assert.equal(formAccepts, serviceAccepts, `${JSON.stringify(sample)}\nform: ${JSON.stringify(errors)}\nservice: ${JSON.stringify(response.body)}`);
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('the phone rule, on the service side (the checkout had drifted to accept national numbers)', () => {
  it('refuses 08012345678 and takes +234 801 234 5678', async () => {
    const created = await send('POST', '/v1/payment-link', {
      title: 'Delivery',
      description: '',
      fiatAmount: 10,
      fiatCurrency: 'USD',
      action: {},
      options: { collectPhone: true },
      cart: { items: [] },
    });
    const slug = created.body.slug as string;
    const national = await send('POST', `/v1/checkout/${slug}/sessions`, { assetId: 'USDT', customer: { phone: '08012345678' } });
    assert.equal(national.status, 400);
    assert.deepEqual(
      national.body.errors.map((error: { path: string }) => error.path),
      ['customer.phone'],
    );
    const international = await send('POST', `/v1/checkout/${slug}/sessions`, { assetId: 'USDT', customer: { phone: '+234 801 234 5678' } });
    assert.equal(international.status, 201, JSON.stringify(international.body));
  });
});
