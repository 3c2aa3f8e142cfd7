/**
 * The rules of `core/rules/`, once, table-driven (and property-based where a rule has a law):
 * what they accept, what they refuse and with which key, and that every key has the API's English
 * and the admin's translations.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import en from '../../src/components/admin/translations/en.js';
import fr from '../../src/components/admin/translations/fr.js';
import {
  EMPTY_LINK_DRAFT,
  MAX_AMOUNT,
  RULE_KEYS,
  RuleErrors,
  TERMINAL_STATUSES,
  checkAmount,
  checkCustomer,
  checkWithdrawal,
  draftOfLink,
  fillMessage,
  findNetwork,
  isDateRange,
  isEmail,
  isHttpUrl,
  isUuid,
  normalizePhone,
  parseDateBound,
  parseDateTime,
  DATE_RANGE,
  hasForbiddenCharacters,
  LINE_TEXT_PATTERN,
  MULTILINE_TEXT_PATTERN,
  resolveLinkDraft,
  type LinkInput,
  type NetworkInfo,
} from '../../src/core/rules/index.js';
import { API_MESSAGES, ruleMessage } from '../../src/server/service/messages.js';

const amount = (value: unknown, rule = { digits: 2, unit: 'USD' } as { digits: number; unit: string; positive?: boolean }) => {
  const errors = new RuleErrors();
  const result = checkAmount(value, 'x', rule, errors);
  return result ?? errors.list[0]!.key;
};

describe('core rules', () => {
  describe('amounts', () => {
    const cases: Array<[unknown, string, { digits: number; unit: string; positive?: boolean }?]> = [
      [12.5, '12.5'],
      ['12.50', '12.5'],
      [' 7 ', '7'],
      [0, '0'],
      [0, 'amount.positive', { digits: 2, unit: 'USD', positive: true }],
      ['', 'amount.required'],
      ['  ', 'amount.required'],
      ['ten', 'amount.invalid'],
      ['1e3', 'amount.invalid'],
      [-5, 'amount.invalid'],
      [Number.NaN, 'amount.invalid'],
      [null, 'amount.invalid'],
      ['10.001', 'amount.decimals'],
      [10.5, 'amount.decimals', { digits: 0, unit: 'JPY' }],
      [MAX_AMOUNT, MAX_AMOUNT],
      ['1000000000000.01', 'amount.tooLarge'],
    ];
    for (const [value, expected, rule] of cases) it(`${JSON.stringify(value)} → ${expected}`, () => assert.equal(amount(value, rule), expected));

    it('reads any number with at most the allowed digits as the same decimal as its text', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 0, max: 99 }), (whole, cents) => {
          const text = `${whole}.${String(cents).padStart(2, '0')}`;
          assert.equal(amount(Number(text)), amount(text));
        }),
      );
    });
  });

  describe('dates', () => {
    it('reads date-times, refusing impossible days and times', () => {
      assert.equal(parseDateTime('2030-01-31T18:00:00Z')?.toISOString(), '2030-01-31T18:00:00.000Z');
      assert.equal(parseDateTime('2030-01-31T18:00')?.toISOString(), '2030-01-31T18:00:00.000Z', 'UTC without an offset');
      assert.equal(parseDateTime('2030-01-31T19:00:00+01:00')?.toISOString(), '2030-01-31T18:00:00.000Z');
      for (const bad of ['2031-02-30T00:00:00Z', '2030-13-01T00:00:00Z', '2030-01-01T25:00:00Z', '2030-01-01T10:60:00Z', 'next tuesday', '2030-01-01'])
        assert.equal(parseDateTime(bad), null, bad);
    });

    it('reads filter bounds inclusively: a date as end covers its whole day', () => {
      const start = parseDateBound('2031-03-01', 'start')!;
      const end = parseDateBound('2031-03-01', 'end')!;
      assert.deepEqual([start.at.toISOString(), start.exclusive], ['2031-03-01T00:00:00.000Z', false]);
      assert.deepEqual([end.at.toISOString(), end.exclusive], ['2031-03-02T00:00:00.000Z', true]);
      assert.ok(isDateRange(start, end));
      assert.ok(!isDateRange(parseDateBound('2031-03-02', 'start')!, end));
      assert.equal(parseDateBound('2031-02-30', 'start'), null);
    });

    it('refuses dates outside 1970–9999 and offsets no time zone has (they were 500s in the database)', () => {
      for (const bad of [
        '0000-01-01T00:00:00Z',
        '1969-12-31T23:59:59Z',
        '9999-12-31T23:59:59-12:00',
        '2030-06-01T12:00:00-23:59',
        '2030-06-01T12:00:00+14:30',
        '2030-06-01T12:00:00+05:60',
        '2030-02-29T00:00:00Z',
      ])
        assert.equal(parseDateTime(bad), null, bad);
      for (const [good, iso] of [
        ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
        ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
        ['2030-06-01T12:00:00-12:00', '2030-06-02T00:00:00.000Z'],
        ['2030-06-01T12:00:00+1400', '2030-05-31T22:00:00.000Z'],
        ['2028-02-29T08:30:15.123456Z', '2028-02-29T08:30:15.123Z'],
        ['0099-01-01T00:00:00Z', null],
      ] as const)
        assert.equal(parseDateTime(good)?.toISOString() ?? null, iso, good);
      assert.equal(parseDateBound('0000-01-01', 'start'), null);
      assert.equal(parseDateBound('9999-12-31', 'end'), null, 'its end is the next midnight, in year 10000');
      assert.equal(parseDateBound('9999-12-30', 'end')?.at.toISOString(), '9999-12-31T00:00:00.000Z');
      assert.equal(DATE_RANGE.min, Date.UTC(1970, 0, 1));
    });
  });

  describe('text', () => {
    it('refuses NUL and other control characters, allowing tab and line breaks only where text spans lines', () => {
      for (const value of ['a\u0000b', '\u0000', 'a\u0007', 'a\u001bb', 'a\u0001', 'lone \ud800 half', 'lone \udc00 half']) {
        assert.ok(hasForbiddenCharacters(value, 'line'), JSON.stringify(value));
        assert.ok(hasForbiddenCharacters(value, 'multiline'), JSON.stringify(value));
      }
      for (const value of ['title\u000b', '\u000cTitle']) {
        assert.ok(hasForbiddenCharacters(value, 'line'), `${JSON.stringify(value)}: only tab and line breaks are forgiven around a one-line text`);
        assert.ok(hasForbiddenCharacters(value, 'multiline'), JSON.stringify(value));
      }
      for (const value of ['a\nb', 'a\tb', 'a\r\nb']) {
        assert.ok(hasForbiddenCharacters(value, 'line'), JSON.stringify(value));
        assert.ok(!hasForbiddenCharacters(value, 'multiline'), JSON.stringify(value));
      }
      for (const value of ['', 'Coffee beans', 'Café ☕ 𝔘', ' padded\n', '\ttabbed ', 'a\u007fb', 'متجر القهوة', 'חנות'])
        assert.ok(!hasForbiddenCharacters(value, 'line'), JSON.stringify(value));
    });

    it('refuses bidirectional controls in a one-line text (a title that reads backwards), not in text of several lines', () => {
      for (const control of ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c']) {
        const value = `Invoice ${control}fdp.exe`;
        assert.ok(hasForbiddenCharacters(value, 'line'), JSON.stringify(value));
        assert.ok(hasForbiddenCharacters(`${value} `, 'line'), 'at the end too');
        assert.ok(hasForbiddenCharacters(`${control}Invoice`, 'line'), 'at the start too');
        assert.ok(!new RegExp(LINE_TEXT_PATTERN).test(value), 'the pattern says so');
        assert.ok(!hasForbiddenCharacters(value, 'multiline'), 'right-to-left writing in a description may need them');
      }
    });

    it('states the rule as the patterns the OpenAPI document carries, no looser than the check', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (value) => {
          if (new RegExp(LINE_TEXT_PATTERN).test(value) && !/[\ud800-\udfff]/.test(value)) assert.ok(!hasForbiddenCharacters(value, 'line'));
          if (new RegExp(MULTILINE_TEXT_PATTERN).test(value) && !/[\ud800-\udfff]/.test(value)) assert.ok(!hasForbiddenCharacters(value, 'multiline'));
          if (hasForbiddenCharacters(value, 'multiline')) assert.ok(hasForbiddenCharacters(value, 'line'));
        }),
      );
    });
  });

  describe('payment links', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const base: LinkInput = {
      title: 'Order',
      description: '',
      action: {},
      options: {},
      cart: { items: [] },
      fiatCurrency: ['NGN'],
      fiatAmount: 2000,
    };
    const resolve = (overrides: LinkInput) => resolveLinkDraft(EMPTY_LINK_DRAFT, { ...base, ...overrides }, now, true);
    const cases: Array<[string, LinkInput, string | null, string?]> = [
      ['a valid Standard link', {}, null],
      ['an empty title', { title: '  ' }, 'title', 'link.titleRequired'],
      ['a title too long', { title: 'x'.repeat(201) }, 'title', 'text.tooLong'],
      ['an unknown kind', { linkType: 'Subscription' }, 'linkType', 'link.typeInvalid'],
      ['DONATION in capitals', { linkType: 'DONATION', fiatAmount: undefined }, null],
      ['an unknown currency', { fiatCurrency: ['NGN', 'XYZ'] }, 'fiatCurrency', 'link.currencyUnsupported'],
      ['three decimals in USD', { fiatCurrency: 'USD', fiatAmount: '10.001' }, 'fiatAmount', 'amount.decimals'],
      ['no amount and no cart', { fiatAmount: undefined }, 'fiatAmount', 'link.amountRequired'],
      ['an amount that is not the cart total', { cart: { items: [{ name: 'A', quantity: 1, unitAmount: 50 }] } }, 'fiatAmount', 'link.cartTotal'],
      [
        'a cart with a fractional quantity',
        { fiatAmount: undefined, cart: { items: [{ name: 'A', quantity: 1.5, unitAmount: 5 }] } },
        'cart.items.0.quantity',
        'link.quantityInvalid',
      ],
      [
        'a cart item without a name',
        { fiatAmount: undefined, cart: { items: [{ name: ' ', quantity: 1, unitAmount: 5 }] } },
        'cart.items.0.name',
        'link.itemNameRequired',
      ],
      [
        'an http image',
        { fiatAmount: undefined, cart: { items: [{ name: 'A', quantity: 1, unitAmount: 5, imageUrl: 'http://x.example/a.png' }] } },
        'cart.items.0.imageUrl',
        'link.imageUrlInvalid',
      ],
      [
        'a cart whose total passes the cap',
        { fiatAmount: undefined, cart: { items: Array.from({ length: 100 }, () => ({ name: 'A', quantity: 10_000, unitAmount: MAX_AMOUNT })) } },
        'fiatAmount',
        'amount.tooLarge',
      ],
      ['a javascript: redirect', { action: { redirect: true, redirectUrl: 'javascript:alert(1)' } }, 'action.redirectUrl', 'link.redirectUrlInvalid'],
      ['a redirect without a URL', { action: { redirect: true } }, 'action.redirectUrl', 'link.redirectUrlRequired'],
      ['donation extras on a Standard link', { closesAt: '2099-01-01T00:00:00Z' }, 'closesAt', 'link.donationOnly'],
      ['a closing time in the past', { linkType: 'Donation', closesAt: '2001-01-01T00:00:00Z' }, 'closesAt', 'date.notFuture'],
      ['an impossible closing day', { linkType: 'Donation', closesAt: '2031-02-30T00:00:00Z' }, 'closesAt', 'date.invalid'],
      ['min above max', { linkType: 'Donation', minAmount: 500, maxAmount: 100 }, 'minAmount', 'link.minOverMax'],
      ['a suggestion below min', { linkType: 'Donation', minAmount: 500, suggestedAmounts: [100] }, 'suggestedAmounts.0', 'link.suggestedBelowMin'],
      ['nine suggestions', { linkType: 'Donation', suggestedAmounts: [1, 2, 3, 4, 5, 6, 7, 8, 9] }, 'suggestedAmounts', 'link.tooManySuggested'],
    ];
    for (const [what, overrides, path, key] of cases)
      it(`${what} → ${path ?? 'accepted'}`, () => {
        const { errors } = resolve(overrides);
        if (path === null) assert.deepEqual(errors, []);
        else
          assert.ok(
            errors.some((error) => error.path === path && error.key === key),
            JSON.stringify(errors),
          );
      });

    it('prices a cart at its total and keeps an edited link’s fields (draftOfLink)', () => {
      const { draft } = resolve({ fiatAmount: undefined, cart: { items: [{ name: 'A', quantity: 2, unitAmount: '1500.25' }] } });
      assert.equal(draft.fiatAmount, '3000.50');
      const link = {
        ...draft,
        fiatAmount: '3000.50',
        prepayOptions: { collectAddress: true, collectPhone: false },
        postpayAction: { redirect: false, showConfirmationPage: true, successMessage: 'Thanks', redirectUrl: '' },
        cart: { items: draft.cartItems },
        closesAt: null,
      };
      const edited = resolveLinkDraft(draftOfLink(link), { title: 'Renamed' }, now, false);
      assert.deepEqual(edited.errors, []);
      assert.equal(edited.draft.title, 'Renamed');
      assert.equal(edited.draft.collectAddress, true);
      assert.equal(edited.draft.fiatAmount, '3000.5');
    });

    it('follows redirects only to absolute http(s) URLs with a host', () => {
      for (const url of ['https://shop.example/thanks', 'http://localhost:3000/x']) assert.ok(isHttpUrl(url), url);
      for (const url of ['javascript:alert(1)', 'data:text/html,x', '/thanks', 'https://', 'ftp://x.example']) assert.ok(!isHttpUrl(url), url);
    });
  });

  describe('withdrawals and networks', () => {
    const networks: NetworkInfo[] = [
      { id: 'bsc', name: 'BNB Smart Chain', aliases: ['bep20', 'BNB Smart Chain'], assets: ['USDT', 'CNGN'] },
      { id: 'polygon', name: 'Polygon', aliases: [], assets: ['USDT'] },
    ];
    const valid = { amount: '25.5', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', blockchainId: 'bsc', assetId: 'USDT' };

    it('canonicalizes a valid request (asset case, network alias, EIP-55 spelling)', () => {
      const check = checkWithdrawal({ ...valid, assetId: ' usdt ', blockchainId: 'BEP20', address: valid.address.toLowerCase() }, networks);
      assert.deepEqual(check, { ok: true, request: { amount: '25.5', assetId: 'USDT', blockchainId: 'bsc', address: valid.address } });
    });

    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['seven decimals', { amount: '1.1234567' }, 'amount', 'amount.decimals'],
      ['zero', { amount: 0 }, 'amount', 'amount.positive'],
      ['an unknown asset', { assetId: 'BTC' }, 'assetId', 'withdrawal.assetUnsupported'],
      ['an asset the network does not carry', { blockchainId: 'polygon', assetId: 'CNGN' }, 'assetId', 'withdrawal.networkAsset'],
      ['an unknown network', { blockchainId: 'ethereum' }, 'blockchainId', 'withdrawal.networkUnsupported'],
      ['a short address', { address: valid.address.slice(0, 41) }, 'address', 'address.format'],
      ['a bad checksum', { address: valid.address.replace('aAeb', 'aaeb') }, 'address', 'address.checksum'],
      ['the zero address', { address: '0x0000000000000000000000000000000000000000' }, 'address', 'address.format'],
    ];
    for (const [what, overrides, path, key] of cases)
      it(`refuses ${what}`, () => {
        const check = checkWithdrawal({ ...valid, ...overrides } as typeof valid, networks);
        assert.ok(!check.ok && check.errors.some((error) => error.path === path && error.key === key), JSON.stringify(check));
      });

    it('finds a network by id or alias in any case and spacing', () => {
      assert.equal(findNetwork(networks, '  bnb smart chain ')?.id, 'bsc');
      assert.equal(findNetwork(networks, 'POLYGON')?.id, 'polygon');
      assert.equal(findNetwork(networks, 'tron'), undefined);
    });
  });

  describe('customer details', () => {
    it("uses the service's phone rule: international numbers only (the checkout had drifted to accept 08012345678)", () => {
      assert.equal(normalizePhone('08012345678'), null);
      assert.equal(normalizePhone('+234 (801) 234-5678'), '+2348012345678');
      assert.equal(normalizePhone('2348012345678'), '2348012345678');
      for (const bad of ['+12', 'call me', '+0123456789', '1'.repeat(16)]) assert.equal(normalizePhone(bad), null, bad);
    });

    it('requires what the link asks for and checks the email', () => {
      const asks = { collectAddress: true, collectPhone: true };
      assert.deepEqual(
        checkCustomer(undefined, asks).errors.map((error) => error.key),
        ['customer.addressRequired', 'customer.phoneRequired'],
      );
      assert.deepEqual(checkCustomer({ address: ' 1 Marina ', phone: '+2348012345678', email: 'ada@example.com' }, asks), {
        customer: { address: '1 Marina', phone: '+2348012345678', email: 'ada@example.com' },
        errors: [],
      });
      assert.deepEqual(checkCustomer({ email: 'not-an-email' }, { collectAddress: false, collectPhone: false }).errors, [
        { path: 'customer.email', key: 'customer.emailInvalid' },
      ]);
    });

    it('takes an email that is an address and nothing else: no header fields, no percent tricks, no second address', () => {
      for (const good of [
        'ada@example.com',
        ' ada.lovelace+shop@mail.example.co.uk ',
        "o'brien@example.ie",
        'chidi_okafor@example.ng',
        'user@xn--80ak6aa92e.xn--p1ai',
        'jörg@bücher.example',
        'a@b.io',
      ])
        assert.equal(isEmail(good), true, good);
      for (const bad of [
        'support@shop.example?bcc=thief%40evil.example',
        'support@shop.example?subject=Refund&body=Send%20to%20me',
        'support%40shop.example@evil.example',
        'support@shop.example%0Abcc:thief@evil.example',
        'support@shop.example\nbcc: thief@evil.example',
        'support@shop.example,thief@evil.example',
        'support@shop.example;thief@evil.example',
        'support@shop.example#x',
        '"support"@shop.example',
        'support@[127.0.0.1]',
        'support@shop.example\u202e',
        'support\u200b@shop.example',
        'sup port@shop.example',
        '.ada@example.com',
        'ada..l@example.com',
        'ada@-example.com',
        'ada@example',
        'ada@example.c',
        '@example.com',
        `${'a'.repeat(65)}@example.com`,
        `ada@${'a'.repeat(250)}.com`,
      ])
        assert.equal(isEmail(bad), false, JSON.stringify(bad));
      assert.deepEqual(checkCustomer({ email: 'support@shop.example?bcc=thief%40evil.example' }, { collectAddress: false, collectPhone: false }).errors, [
        { path: 'customer.email', key: 'customer.emailInvalid' },
      ]);
    });
  });

  describe('shared definitions', () => {
    it('UUIDs and terminal statuses', () => {
      assert.ok(isUuid('0f9a7c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b'));
      assert.ok(!isUuid('lnk_1'));
      assert.deepEqual([...TERMINAL_STATUSES].sort(), ['expired', 'overpaid', 'paid', 'reversed']);
    });
  });

  describe('messages', () => {
    it('every key has the API’s English and the admin’s English and French, with the same placeholders filled', () => {
      for (const key of RULE_KEYS) {
        assert.equal(typeof API_MESSAGES[key], 'string', `API: ${key}`);
        assert.equal(typeof (en as Record<string, string>)[key], 'string', `en: ${key}`);
        assert.equal(typeof (fr as Record<string, string>)[key], 'string', `fr: ${key}`);
      }
    });

    it("fills the API's text from the error's params and its field", () => {
      assert.equal(
        ruleMessage({ path: 'cart.items.0.unitAmount', key: 'amount.decimals', params: { unit: 'NGN', digits: 2 } }),
        'NGN amounts have at most 2 decimal places',
      );
      assert.equal(ruleMessage({ path: 'amount', key: 'amount.tooLarge', params: { max: MAX_AMOUNT } }), `amount must be at most ${MAX_AMOUNT}`);
      assert.equal(fillMessage('{a} and {b}', { a: 1 }), '1 and {b}');
    });
  });
});
