/**
 * The checkout's zod-free parsers must agree with the zod schemas the server builds responses with:
 * same samples in, same verdict and the same value out. So must the lean parsers that stand in for
 * them in `dist/paylink.js` (`scripts/lean-schemas.ts`).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CheckoutSession, PublicDonorList, PublicLink, PublicOrder, VisitResult } from '../../src/core/schemas.js';
import { parseCheckoutSession, parsePublicDonorList, parsePublicLink, parsePublicOrder, parseVisitResult } from '../../src/core/public-parse.js';
import { leanParserOf, leanPublicParseModule } from '../../scripts/lean-schemas.js';

/** The parsers of `dist/paylink.js`, where each `parseX` is the lean parser of schema `X`. */
const lean = {
  PublicLink: await leanParserOf(PublicLink),
  PublicOrder: await leanParserOf(PublicOrder),
  CheckoutSession: await leanParserOf(CheckoutSession),
  VisitResult: await leanParserOf(VisitResult),
  PublicDonorList: await leanParserOf(PublicDonorList),
};

const link = {
  id: 'lnk_1',
  slug: 'Ab3dE6gH9k',
  url: 'http://localhost/pay/Ab3dE6gH9k',
  title: '<img src=x onerror=alert(1)>',
  description: 'Beans',
  linkType: 'Standard',
  fiatAmount: '19500.50',
  fiatCurrency: ['NGN', 'USD'],
  prepayOptions: { collectAddress: true, collectPhone: false },
  cart: {
    items: [
      { name: 'Yirgacheffe', quantity: 2, unitAmount: '8500', description: '250 g', imageUrl: 'https://x/y.png' },
      { name: 'Filters', quantity: 1, unitAmount: '2500.50' },
    ],
  },
  isActive: true,
  closesAt: null,
  minAmount: null,
  maxAmount: null,
  suggestedAmounts: [],
  goalAmount: null,
  raised: null,
  donorCount: null,
  state: 'open',
  assets: [
    {
      assetId: 'USDT',
      blockchainId: 'bsc',
      networkName: 'BNB Smart Chain',
      chainId: 56,
      tokenAddress: '0x55d398326f99059fF775485246999027B3197955',
      decimals: 18,
      explorerUrl: 'https://bscscan.com',
      addNetwork: {
        chainId: '0x38',
        chainName: 'BNB Smart Chain',
        nativeCurrency: { name: 'BNB', symbol: 'BNB', decimals: 18 },
        rpcUrls: ['https://bsc-dataseed.bnbchain.org'],
      },
    },
    {
      assetId: 'CNGN',
      blockchainId: 'bsc',
      networkName: 'BNB Smart Chain',
      chainId: null,
      tokenAddress: null,
      decimals: null,
      explorerUrl: null,
      addNetwork: null,
    },
  ],
  sandbox: true,
  merchantName: 'Ada Stores',
};

const donation = {
  ...link,
  linkType: 'Donation',
  fiatAmount: '0.00',
  cart: { items: [] },
  closesAt: '2030-01-01T00:00:00.000Z',
  minAmount: '500',
  maxAmount: '2000000',
  suggestedAmounts: ['1000', '5000.5'],
  goalAmount: '500000.00',
  raised: '125000.50',
  donorCount: 12,
  state: 'closed',
};

const order = {
  id: '0f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b',
  url: 'http://localhost/pay/order/0f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b',
  title: 'Order 1042',
  description: '',
  fiatAmount: '1500.00',
  fiatCurrency: 'USD',
  cart: link.cart,
  prepayOptions: { collectAddress: false, collectPhone: true },
  state: 'open',
  expiresAt: '2030-01-02T00:00:00.000Z',
  assets: link.assets,
  sandbox: false,
  merchantName: null,
};

const session = {
  id: 'ses_1',
  slug: 'Ab3dE6gH9k',
  orderId: null,
  status: 'awaiting_payment',
  fiatAmount: '45.00',
  fiatCurrency: 'USD',
  assetId: 'USDT',
  blockchainId: 'bsc',
  networkName: 'BNB Smart Chain',
  cryptoAmount: '45.000000',
  rate: '1',
  rateSource: 'static',
  rateAt: '2030-01-01T00:00:00.000Z',
  paidAmount: '0',
  remainingAmount: '45.000000',
  payAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
  txHash: null,
  paidBlockchainId: null,
  expiresAt: '2030-01-01T00:15:00.000Z',
  createdAt: '2030-01-01T00:00:00.000Z',
  sandbox: true,
  postpayAction: null,
  chainId: null,
  tokenAddress: null,
  tokenDecimals: null,
  explorerUrl: null,
  confirmations: null,
  requiredConfirmations: null,
};

const confirming = {
  ...session,
  status: 'confirming',
  txHash: '0xabc',
  paidBlockchainId: 'polygon',
  chainId: 31337,
  tokenAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  tokenDecimals: 18,
  explorerUrl: 'https://bscscan.com',
  confirmations: 1,
  requiredConfirmations: 3,
};

const paid = {
  ...session,
  status: 'paid',
  paidAmount: '45.000000',
  remainingAmount: '0',
  txHash: '0xabc',
  paidBlockchainId: 'bsc',
  postpayAction: { redirect: false, showConfirmationPage: true, successMessage: 'Thanks', redirectUrl: '' },
};

/** Returns a copy of `value` with `change` applied at a dotted path (`undefined` deletes). */
function mutate(value: unknown, path: string, change: unknown): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  const keys = path.split('.');
  let node: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const last = keys.at(-1)!;
  if (change === undefined) delete node[last];
  else node[last] = change;
  return copy;
}

type Outcome = { ok: true; value: unknown } | { ok: false };

function zodOutcome(schema: { safeParse(v: unknown): { success: boolean; data?: unknown } }, value: unknown): Outcome {
  const result = schema.safeParse(value);
  return result.success ? { ok: true, value: result.data } : { ok: false };
}

function ourOutcome(parse: (v: unknown) => unknown, value: unknown): Outcome {
  try {
    return { ok: true, value: parse(value) };
  } catch {
    return { ok: false };
  }
}

function agree(name: string, schema: Parameters<typeof zodOutcome>[0], parse: (v: unknown) => unknown, samples: unknown[]) {
  const leanParse = lean[name.split(' ')[0] as keyof typeof lean];
  test(`${name}: ${samples.length} samples get the verdict and value zod gives, from public-parse and the lean parser`, () => {
    for (const [index, sample] of samples.entries()) {
      const expected = zodOutcome(schema, sample);
      assert.deepStrictEqual(ourOutcome(parse, sample), expected, `sample ${index}: ${JSON.stringify(sample)}`);
      assert.deepStrictEqual(
        ourOutcome((value) => leanParse.parse(value), sample),
        expected,
        `lean, sample ${index}: ${JSON.stringify(sample)}`,
      );
    }
  });
}

const linkVariants = (base: unknown) => [
  base,
  mutate(base, 'extra', 'dropped'),
  mutate(base, 'userId', 'u_1'),
  mutate(base, 'id', 1),
  mutate(base, 'title', undefined),
  mutate(base, 'linkType', 'DONATION'),
  mutate(base, 'linkType', undefined),
  mutate(base, 'fiatAmount', 19500.5),
  mutate(base, 'fiatAmount', 'anything'),
  mutate(base, 'fiatCurrency', 'NGN'),
  mutate(base, 'fiatCurrency', []),
  mutate(base, 'fiatCurrency', [1]),
  mutate(base, 'prepayOptions', null),
  mutate(base, 'prepayOptions.collectPhone', 'yes'),
  mutate(base, 'prepayOptions.extra', 1),
  mutate(base, 'cart', []),
  mutate(base, 'cart.items', {}),
  mutate(base, 'cart.items', [{ name: 'a', quantity: 1.5, unitAmount: '1' }]),
  mutate(base, 'cart.items', [{ name: 'a', quantity: 2 ** 60, unitAmount: '1' }]),
  mutate(base, 'cart.items', [{ name: 'a', quantity: -1, unitAmount: '1' }]),
  mutate(base, 'cart.items', [{ name: 'a', quantity: 1, unitAmount: '1.' }]),
  mutate(base, 'cart.items', [{ name: 'a', quantity: 1, unitAmount: '-1' }]),
  mutate(base, 'cart.items', [{ name: 'a', quantity: 1, unitAmount: 1 }]),
  mutate(base, 'cart.items', [{ name: 'a', quantity: 1, unitAmount: '1', description: null }]),
  mutate(base, 'cart.items', [{ name: 'a', quantity: 1, unitAmount: '1', imageUrl: 5 }]),
  mutate(base, 'cart.items', [{ name: 'a', quantity: '1', unitAmount: '1' }]),
  mutate(base, 'isActive', 1),
  mutate(base, 'closesAt', undefined),
  mutate(base, 'closesAt', 5),
  mutate(base, 'minAmount', '1e5'),
  mutate(base, 'minAmount', undefined),
  mutate(base, 'maxAmount', 10),
  mutate(base, 'suggestedAmounts', undefined),
  mutate(base, 'suggestedAmounts', ['1', '.5']),
  mutate(base, 'suggestedAmounts', ['1', ' 5']),
  mutate(base, 'goalAmount', undefined),
  mutate(base, 'goalAmount', -5),
  mutate(base, 'raised', '1e3'),
  mutate(base, 'raised', '12'),
  mutate(base, 'donorCount', 1.5),
  mutate(base, 'donorCount', '3'),
  mutate(base, 'state', 'OPEN'),
  mutate(base, 'state', 'expired'),
  mutate(base, 'assets', [{ assetId: 'BTC', blockchainId: 'bsc', networkName: 'x' }]),
  mutate(base, 'assets', [{ assetId: 'USDT', blockchainId: 'bsc' }]),
  mutate(base, 'assets', [{ assetId: 'CNGN', blockchainId: 'bsc', networkName: 'x', extra: true }]),
  mutate(base, 'sandbox', 'true'),
  mutate(base, 'assets', [{ assetId: 'USDT', blockchainId: 'bsc', networkName: 'x', chainId: '56', tokenAddress: null, decimals: null, explorerUrl: null }]),
  mutate(base, 'assets', [{ assetId: 'USDT', blockchainId: 'bsc', networkName: 'x', chainId: 56, tokenAddress: null, decimals: 1.5, explorerUrl: null }]),
  mutate(base, 'assets', [{ assetId: 'USDT', blockchainId: 'bsc', networkName: 'x', chainId: 56, tokenAddress: null, decimals: 18 }]),
  mutate(base, 'assets', [
    { assetId: 'USDT', blockchainId: 'bsc', networkName: 'x', chainId: 56, tokenAddress: null, decimals: 18, explorerUrl: null, addNetwork: { chainId: 56 } },
  ]),
  mutate(base, 'assets', [
    {
      assetId: 'USDT',
      blockchainId: 'bsc',
      networkName: 'x',
      chainId: 56,
      tokenAddress: null,
      decimals: 18,
      explorerUrl: null,
      addNetwork: {
        chainId: '0x38',
        chainName: 'x',
        nativeCurrency: { name: 'B', symbol: 'B', decimals: 18 },
        rpcUrls: ['https://x.example'],
        blockExplorerUrls: ['https://e.example'],
        extra: 1,
      },
    },
  ]),
  mutate(base, 'merchantName', null),
  mutate(base, 'merchantName', undefined),
  mutate(base, 'merchantName', 7),
  null,
  [],
  'link',
  42,
];

const orderSession = { ...session, slug: null, orderId: order.id };

const orderVariants = (base: unknown) => [
  base,
  mutate(base, 'extra', 'dropped'),
  mutate(base, 'reference', 'dropped'),
  mutate(base, 'fiatAmount', 1500),
  mutate(base, 'fiatAmount', '1,500.00'),
  mutate(base, 'fiatCurrency', ['USD']),
  mutate(base, 'fiatCurrency', undefined),
  mutate(base, 'cart.items', [{ name: 'a', quantity: 1.5, unitAmount: '1' }]),
  mutate(base, 'prepayOptions.collectPhone', undefined),
  ...['open', 'paid', 'closed', 'expired', 'cancelled', 'inactive', 'OPEN'].map((state) => mutate(base, 'state', state)),
  mutate(base, 'expiresAt', null),
  mutate(base, 'assets', [{ assetId: 'BTC', blockchainId: 'bsc', networkName: 'x' }]),
  mutate(base, 'sandbox', undefined),
  mutate(base, 'merchantName', 'Ada Stores'),
  mutate(base, 'merchantName', undefined),
  null,
  'order',
];

const sessionVariants = (base: unknown) => [
  base,
  mutate(base, 'extra', 1),
  mutate(base, 'slug', null),
  mutate(base, 'slug', undefined),
  mutate(base, 'orderId', undefined),
  mutate(base, 'orderId', 7),
  mutate(base, 'orderId', order.id),
  ...['awaiting_payment', 'confirming', 'paid', 'underpaid', 'overpaid', 'expired', 'pending', 'PAID', ''].map((s) => mutate(base, 'status', s)),
  mutate(base, 'fiatAmount', 45),
  mutate(base, 'fiatAmount', '45,00'),
  mutate(base, 'fiatCurrency', ['USD']),
  mutate(base, 'assetId', 'usdt'),
  mutate(base, 'assetId', 'CNGN'),
  mutate(base, 'cryptoAmount', '0.000001'),
  mutate(base, 'cryptoAmount', ''),
  mutate(base, 'rate', null),
  mutate(base, 'rate', '0.000620193500372116100223'),
  mutate(base, 'rate', 0.000625),
  mutate(base, 'rate', '-1'),
  mutate(base, 'rate', undefined),
  mutate(base, 'rateSource', null),
  mutate(base, 'rateSource', 2),
  mutate(base, 'rateAt', null),
  mutate(base, 'paidAmount', null),
  mutate(base, 'remainingAmount', undefined),
  mutate(base, 'payAddress', 0),
  mutate(base, 'txHash', undefined),
  mutate(base, 'txHash', '0xdef'),
  mutate(base, 'expiresAt', null),
  mutate(base, 'createdAt', 1),
  mutate(base, 'sandbox', undefined),
  mutate(base, 'postpayAction', undefined),
  mutate(base, 'postpayAction', { redirect: true, showConfirmationPage: false, successMessage: 'x' }),
  mutate(base, 'postpayAction', { redirect: true, showConfirmationPage: false, successMessage: 'x', redirectUrl: 'javascript:1' }),
  mutate(base, 'postpayAction', 'none'),
  mutate(base, 'chainId', undefined),
  mutate(base, 'chainId', 56.5),
  mutate(base, 'tokenAddress', 5),
  mutate(base, 'tokenDecimals', '18'),
  mutate(base, 'explorerUrl', undefined),
  mutate(base, 'confirmations', 2),
  mutate(base, 'confirmations', -1),
  mutate(base, 'requiredConfirmations', null),
  mutate(base, 'requiredConfirmations', 'three'),
  {},
  undefined,
];

describe('public-parse agrees with the zod schemas', () => {
  agree('PublicLink (standard)', PublicLink, parsePublicLink, linkVariants(link));
  agree('PublicLink (donation)', PublicLink, parsePublicLink, linkVariants(donation));
  agree('CheckoutSession (awaiting)', CheckoutSession, parseCheckoutSession, sessionVariants(session));
  agree('CheckoutSession (paid)', CheckoutSession, parseCheckoutSession, sessionVariants(paid));
  agree('CheckoutSession (confirming)', CheckoutSession, parseCheckoutSession, sessionVariants(confirming));
  agree('CheckoutSession (of an order)', CheckoutSession, parseCheckoutSession, sessionVariants(orderSession));
  agree('PublicOrder', PublicOrder, parsePublicOrder, orderVariants(order));

  test('the base samples are valid (so every variant is compared against a real answer)', () => {
    for (const sample of [link, donation]) assert.deepEqual(parsePublicLink(sample), PublicLink.parse(sample));
    for (const sample of [session, paid, confirming, orderSession]) assert.deepEqual(parseCheckoutSession(sample), CheckoutSession.parse(sample));
    assert.deepEqual(parsePublicOrder(order), PublicOrder.parse(order));
  });
  agree('PublicDonorList', PublicDonorList, parsePublicDonorList, [
    { items: [] },
    { items: [{ name: 'Ada', message: '<b>hi</b>', amount: '10.00', currency: 'USD', paidAt: '2030-01-01T00:00:00.000Z' }] },
    { items: [{ name: null, message: null, amount: '7.5', currency: 'NGN', paidAt: '2030-01-01T00:00:00.000Z', customer: { email: 'x' } }] },
    { items: [{ name: 'Ada', message: null, amount: 10, currency: 'USD', paidAt: '2030-01-01T00:00:00.000Z' }] },
    { items: [{ name: 'Ada', message: null, amount: '10', currency: 'USD' }] },
    { items: {} },
    {},
    null,
  ]);
  agree('VisitResult', VisitResult, parseVisitResult, [
    { counted: true, visitId: 'abcdefgh' },
    { counted: false, visitId: 'abcdefgh', extra: 1 },
    { counted: 'yes', visitId: 'abcdefgh' },
    { counted: true },
    { visitId: 'x' },
    null,
  ]);

  test('a refused value names the field that is wrong', () => {
    assert.throws(() => parseCheckoutSession(mutate(session, 'status', 'pending')), /status/);
    assert.throws(() => parsePublicLink(mutate(link, 'cart.items', [{ name: 'a', quantity: 1.5, unitAmount: '1' }])), /cart\.items\.0\.quantity/);
  });

  test('dist/paylink.js swaps each of them for the lean parser of its schema', async () => {
    const source = await leanPublicParseModule();
    for (const [parser, schema] of [
      ['parsePublicLink', 'PublicLink'],
      ['parsePublicOrder', 'PublicOrder'],
      ['parseCheckoutSession', 'CheckoutSession'],
      ['parseVisitResult', 'VisitResult'],
    ]) {
      assert.ok(source.includes(`export const ${parser} = (data) => ${schema}.parse(data);`), parser);
    }
  });

  test("the parsers pull in no zod (a page using the client's checkout resource ships none)", async () => {
    const { readFile } = await import('node:fs/promises');
    const source = await readFile(new URL('../../src/core/public-parse.ts', import.meta.url), 'utf8');
    assert.doesNotMatch(source, /^import (?!type)[^;]*from ['"]zod/m);
    assert.doesNotMatch(source, /^import (?!type)[^;]*schemas\.js/m);
  });
});
