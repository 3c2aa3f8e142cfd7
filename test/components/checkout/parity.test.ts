/**
 * Parity: the checkout and the service accept exactly the same customer details and donation
 * amounts. Each sample is typed into the real `CheckoutMachine` (the state machine of
 * `<paylink-checkout>`, with a stand-in host), whose check runs the core rule
 * (`core/rules/customer.ts`, its own amount bounds); the body the machine sends, or would send,
 * then goes to the service (`app.request`, PGlite). The checkout accepts a sample (it asks the
 * service for a session) iff the service accepts that body (201). The admin's side of parity is
 * `parity.test.ts`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { CheckoutMachine } from '../../../src/components/checkout/checkout-machine.js';
import type { CheckoutHost } from '../../../src/components/checkout/checkout-types.js';
import en from '../../../src/components/checkout/translations/en.js';
import fr from '../../../src/components/checkout/translations/fr.js';
import { Localizer } from '../../../src/internal/localize.js';
import { createSandboxChain } from '../../../src/server/chain/sandbox/index.js';
import type { Database } from '../../../src/server/db/index.js';
import { createApp } from '../../../src/server/service/app.js';
import { createApiKey } from '../../../src/server/service/keys/index.js';
import { openMigratedPglite } from '../../support/pglite-template.js';

let db: Database;
let app: ReturnType<typeof createApp>;
let key: string;
const slugs: Record<string, string> = {};

/** The service behind the machine's `fetch`: the checkout's calls go straight to `app.request`. */
const serviceFetch = ((input: RequestInfo | URL, init?: RequestInit) => app.request(String(input).replace('http://service.test', ''), init)) as typeof fetch;

async function createLink(body: Record<string, unknown>): Promise<string> {
  const response = await app.request('/v1/payment-link', {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ description: '', action: {}, options: {}, cart: { items: [] }, ...body }),
  });
  assert.equal(response.status, 201);
  return ((await response.json()) as { slug: string }).slug;
}

before(async () => {
  db = await openMigratedPglite();
  app = createApp({ db, chain: createSandboxChain(), publicUrl: 'http://pay.test/pay', now: () => new Date() });
  key = (await createApiKey(db)).key;
  for (const [name, options] of Object.entries({
    address: { collectAddress: true, collectPhone: false },
    phone: { collectAddress: false, collectPhone: true },
    both: { collectAddress: true, collectPhone: true },
  }))
    slugs[name] = await createLink({ title: `Delivery (${name})`, fiatAmount: 25, fiatCurrency: 'USD', options });
  slugs.bounded = await createLink({ title: 'Fund', linkType: 'Donation', fiatCurrency: 'NGN', minAmount: 500, maxAmount: 2_000_000 });
  slugs.open = await createLink({ title: 'Open fund', linkType: 'Donation', fiatCurrency: 'USD' });
});
after(() => db.close());

/** A machine on the real service, in `locale`, that records the session starts it sends. */
async function machineOn(slug: string, locale = 'en') {
  const starts: Record<string, unknown>[] = [];
  const host: CheckoutHost = {
    emit: () => true,
    store: () => null,
    navigate() {},
    clipboard: async () => {},
    requestUpdate() {},
  };
  const machine = new CheckoutMachine(host);
  machine.apiBase = 'http://service.test/v1';
  machine.l10n = new Localizer(locale, { en, fr });
  machine.fetch = (input, init) => {
    if (String(input).endsWith('/sessions') && init?.method == 'POST') starts.push(JSON.parse(String(init.body)));
    const answer = serviceFetch(input, init);
    inFlight.add(answer);
    void answer.finally(() => inFlight.delete(answer)).catch(() => {});
    return answer;
  };
  await machine.load(slug);
  assert.equal(machine.view, 'amount');
  return { machine, starts };
}

/** The machines' requests to the service that have not come back yet. */
const inFlight = new Set<Promise<Response>>();

/** Waits for the machine's requests to the service to come back, and for what it does with their answers. */
async function settle() {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  await new Promise((resolve) => setImmediate(resolve));
}

/** POSTs a session start to the service; true on 201 (a 400 otherwise, never anything else). */
async function serviceAccepts(slug: string, body: Record<string, unknown>): Promise<{ accepted: boolean; errors: unknown }> {
  const response = await app.request(`/v1/checkout/${slug}/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { errors?: unknown };
  if (response.status != 201) assert.equal(response.status, 400, JSON.stringify(answer));
  return { accepted: response.status == 201, errors: answer.errors };
}

/** Types `address` and `phone` on the details step of link `kind`; compares with the service on the same body. */
async function detailsParity(kind: string, address: string, phone: string) {
  const { machine, starts } = await machineOn(slugs[kind]!);
  machine.submitAmount();
  assert.equal(machine.view, 'details');
  machine.edit('customer.address', address);
  machine.edit('customer.phone', phone);
  machine.submitDetails();
  const checkoutAccepts = starts.length == 1;
  const formErrors = { ...machine.errors };
  // What the machine sends: the details trimmed (and the asset and currency, as for any start).
  const body = { assetId: machine.assetId, fiatCurrency: 'USD', customer: { address: address.trim(), phone: phone.trim() } };
  if (checkoutAccepts) assert.deepEqual(starts[0]!.customer, body.customer);
  const service = await serviceAccepts(slugs[kind]!, body);
  await settle();
  if (checkoutAccepts && service.accepted) assert.equal(machine.view, 'pay', 'the session the checkout started is shown');
  machine.disconnect();
  return { checkoutAccepts, serviceAccepts: service.accepted, detail: `form: ${JSON.stringify(formErrors)}; service: ${JSON.stringify(service.errors)}` };
}

const ADDRESSES = ['12 Marina Road, Lagos', '', '   ', ' 1 Rue de la Paix ', 'x'.repeat(500), 'x'.repeat(501), `  ${'x'.repeat(500)}  `, 'Apt 4\nLagos'];
const PHONES = [
  '+234 801 234 5678',
  '+2348012345678',
  '2348012345678',
  '08012345678',
  '0801 234 5678',
  '+44 (20) 7946-0958',
  '+1.415.555.0100',
  '',
  '  ',
  '12ab',
  '+123456',
  '+1234567',
  '+123456789012345',
  '+1234567890123456',
  '++2348012345678',
  '+234 801 234 5678'.padEnd(40, ' ') + '9',
  '+2 3 4 8 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6',
  '+234–801–234–5678',
  '+٢٣٤٨٠١٢٣٤٥٦٧٨',
];

describe('parity of the checkout’s customer details and the service', () => {
  for (const kind of ['address', 'phone', 'both'])
    it(`agrees on every address and phone of the table when the link asks for ${kind == 'both' ? 'both' : `the ${kind}`}`, async () => {
      const outcomes: boolean[] = [];
      for (const address of kind == 'phone' ? ['', 'ignored'] : ADDRESSES)
        for (const phone of kind == 'address' ? ['', '+2348012345678', '08012345678'] : PHONES) {
          const { checkoutAccepts, serviceAccepts, detail } = await detailsParity(kind, address, phone);
          assert.equal(checkoutAccepts, serviceAccepts, `${JSON.stringify({ address, phone })}\n${detail}`);
          outcomes.push(serviceAccepts);
        }
      // The table holds both kinds of sample, or it proves nothing.
      assert.ok(outcomes.some(Boolean) && outcomes.some((accepted) => !accepted), JSON.stringify(outcomes));
    });

  it('agrees on random details', async () => {
    const piece = fc.constantFrom('', ' ', '+', '0', '1', '234', '801', '(', ')', '-', '.', 'a', '5678', '99999999');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('address', 'phone', 'both'),
        fc.oneof(
          fc.constantFrom('', ' ', '1 Marina'),
          fc.string({ maxLength: 8 }),
          fc.nat(520).map((n) => 'y'.repeat(n)),
        ),
        fc.array(piece, { maxLength: 10 }).map((pieces) => pieces.join('')),
        async (kind, address, phone) => {
          const { checkoutAccepts, serviceAccepts, detail } = await detailsParity(kind, address, phone);
          assert.equal(checkoutAccepts, serviceAccepts, `${JSON.stringify({ kind, address, phone })}\n${detail}`);
        },
      ),
      { numRuns: 60 },
    );
  });
});

/** Types `typed` as the donation on link `kind` in `locale`; compares with the service on the amount the machine read. */
async function amountParity(kind: 'bounded' | 'open', typed: string, locale = 'en') {
  const { machine, starts } = await machineOn(slugs[kind]!, locale);
  machine.edit('fiatAmount', typed);
  machine.submitAmount();
  const checkoutAccepts = starts.length == 1;
  // The amount the customer meant, as the machine reads it in their locale (`1 000,50` in French), or as typed where it can't.
  const fiatAmount = machine.price || typed;
  if (checkoutAccepts) assert.equal(starts[0]!.fiatAmount, fiatAmount);
  const service = await serviceAccepts(slugs[kind]!, { assetId: machine.assetId, fiatCurrency: kind == 'bounded' ? 'NGN' : 'USD', fiatAmount });
  await settle();
  machine.disconnect();
  return { checkoutAccepts, serviceAccepts: service.accepted, detail: `form: ${machine.errors.fiatAmount}; service: ${JSON.stringify(service.errors)}` };
}

describe('parity of the checkout’s donation amount and the service', () => {
  const AMOUNTS = ['500', '499.99', '500.00', '2000000', '2000000.01', '1000', '1000.5', '1000.505', '0', '', 'abc', '1e3', '-600', '600,50', '1,000', ' 750 '];
  it('agrees on the bounds of a link with a minimum and a maximum (NGN)', async () => {
    for (const typed of AMOUNTS) {
      const { checkoutAccepts, serviceAccepts, detail } = await amountParity('bounded', typed);
      assert.equal(checkoutAccepts, serviceAccepts, `${JSON.stringify(typed)}\n${detail}`);
    }
  });

  it('agrees on a link without bounds, up to the largest amount the service takes', async () => {
    for (const typed of ['0.01', '0.001', '1000000000000', '1000000000000.01', '999999999999.99', '5']) {
      const { checkoutAccepts, serviceAccepts, detail } = await amountParity('open', typed);
      assert.equal(checkoutAccepts, serviceAccepts, `${JSON.stringify(typed)}\n${detail}`);
    }
  });

  it('agrees in French, where the comma is the decimal point', async () => {
    for (const typed of ['1 000,50', '600,5', '499,99', '2 000 000,01', '1000,505']) {
      const { checkoutAccepts, serviceAccepts, detail } = await amountParity('bounded', typed, 'fr');
      assert.equal(checkoutAccepts, serviceAccepts, `${JSON.stringify(typed)}\n${detail}`);
    }
  });

  it('agrees on random amounts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'bounded' | 'open'>('bounded', 'open'),
        fc.oneof(
          fc.bigInt({ min: 0n, max: 10n ** 15n }).map((units) => `${units / 100n}.${String(units % 100n).padStart(2, '0')}`),
          fc.stringMatching(/^[0-9.,]{0,12}$/),
        ),
        async (kind, typed) => {
          const { checkoutAccepts, serviceAccepts, detail } = await amountParity(kind, typed);
          assert.equal(checkoutAccepts, serviceAccepts, `${JSON.stringify({ kind, typed })}\n${detail}`);
        },
      ),
      { numRuns: 60 },
    );
  });
});
