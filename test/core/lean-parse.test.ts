/**
 * The script-tag bundles parse responses with `core/lean-parse.ts` over the JSON Schema of each zod
 * schema (`scripts/lean-schemas.ts`); they must agree with zod: the same samples in, the same verdict
 * and the same value out. Each sample is also taken apart field by field (removed, retyped, set to
 * null or to an unknown word, joined by an unknown key) so every branch of each shape is compared.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z, type ZodType } from 'zod';
import * as schemas from '../../src/core/schemas.js';
import { leanParserOf, leanSchema, leanSchemasModule, sharedLiterals } from '../../scripts/lean-schemas.js';
import { makeDelivery, makeEndpoint, makeLink, makeOrder, makeSession, makeWithdrawal } from '../browser/admin-fake-api.js';

const meta = { totalItems: 1, itemCount: 1, itemsPerPage: 20, totalPages: 1, currentPage: 1 };
const endpoint = makeEndpoint();
const samples: [keyof typeof schemas, unknown][] = [
  ['PaymentLink', makeLink()],
  ['PaymentLinkList', { items: [makeLink(), makeLink({ linkType: 'Donation', minAmount: '5', maxAmount: null, closesAt: '2030-01-01T00:00:00.000Z' })], meta }],
  ['Withdrawal', makeWithdrawal()],
  ['WithdrawalList', { items: [makeWithdrawal()], meta }],
  ['WithdrawalCreated', { message: 'Withdrawal queued', status: 'success', statusCode: 200, id: makeWithdrawal().id }],
  [
    'WithdrawalNetworkList',
    {
      items: [
        {
          id: 'bsc',
          name: 'BNB Smart Chain',
          aliases: ['bnb'],
          assets: ['USDT'],
          chainId: 56,
          explorerUrl: null,
          alerts: [{ code: 'hot_wallet_low', message: 'short of gas', since: '2030-01-01T00:00:00.000Z' }],
        },
      ],
    },
  ],
  ['Balance', { items: [{ assetId: 'USDT', blockchainId: 'bsc', available: '12.5', pending: '0' }] }],
  ['CheckoutSessionRecord', makeSession()],
  ['CheckoutSessionRecordList', { items: [makeSession()], meta }],
  ['Order', makeOrder()],
  ['OrderList', { items: [makeOrder()], meta }],
  ['WebhookEndpoint', endpoint],
  ['WebhookEndpointCreated', { ...endpoint, secret: 'whsec_abc' }],
  ['WebhookEndpointList', { items: [endpoint], meta }],
  ['WebhookEndpointDeleted', { id: endpoint.id, deleted: true }],
  ['WebhookDelivery', makeDelivery(endpoint.id)],
  ['WebhookDeliveryList', { items: [makeDelivery(endpoint.id)], meta }],
];

/** Every variant of `value` with one field (at any depth) removed, retyped, nulled, or given an unknown word. */
function* variants(value: unknown): Generator<unknown> {
  yield value;
  if (Array.isArray(value)) {
    yield [];
    for (let i = 0; i < value.length; i++) for (const item of variants(value[i])) yield value.map((v, j) => (j === i ? item : v));
    return;
  }
  if (typeof value !== 'object' || value === null) {
    for (const other of [null, 12345, 1.5, -1, 'zzz-unknown', '', true, {}, []]) yield other;
    return;
  }
  const object = value as Record<string, unknown>;
  yield { ...object, unknownKey: 'x' };
  for (const key of Object.keys(object)) {
    const { [key]: _, ...rest } = object;
    yield rest;
    for (const field of variants(object[key])) if (field !== object[key]) yield { ...object, [key]: field };
  }
}

/** Whether zod's output has a string where its input had a number (a transform the lean parser does not run). */
function turnsNumberIntoString(input: unknown, output: unknown): boolean {
  if (typeof input === 'number') return typeof output === 'string';
  if (typeof input !== 'object' || input === null || typeof output !== 'object' || output === null) return false;
  return Object.keys(output).some((key) => turnsNumberIntoString((input as Record<string, unknown>)[key], (output as Record<string, unknown>)[key]));
}

describe('lean response parsers agree with the zod schemas', () => {
  for (const [name, sample] of samples) {
    test(name, async () => {
      const zod = schemas[name] as ZodType;
      assert.ok(zod.safeParse(sample).success, `the ${name} sample is valid`);
      const lean = await leanParserOf(zod);
      let compared = 0;
      for (const input of variants(sample)) {
        const expected = zod.safeParse(input);
        let actual: { ok: true; value: unknown } | { ok: false; at: string };
        try {
          actual = { ok: true, value: lean.parse(input) };
        } catch (error) {
          assert.ok(error instanceof TypeError);
          actual = { ok: false, at: error.message };
        }
        // zod's schema of a link's fiatAmount also takes a number and turns it into a string; the service
        // answers with the string, and the lean parser takes only that output form.
        if (!actual.ok && expected.success && turnsNumberIntoString(input, expected.data)) continue;
        assert.equal(actual.ok, expected.success, `${name}: ${actual.ok ? '' : `refused at ${actual.at}: `}${JSON.stringify(input)}`);
        if (actual.ok && expected.success) assert.deepEqual(actual.value, expected.data);
        compared++;
      }
      assert.ok(compared > 20);
    });
  }

  test('the bundles get one pure parser per exported schema and no zod', async () => {
    const source = await leanSchemasModule();
    for (const name of Object.keys(schemas).filter((key) => schemas[key as keyof typeof schemas] instanceof z.ZodType)) {
      assert.match(source, new RegExp(`^export const ${name} = /\\* @__PURE__ \\*/ leanParser\\(`, 'm'), name);
    }
    assert.doesNotMatch(source, /from ['"]zod/);
  });

  test('an enum of a list the rules export is written as that list, imported: the bundle that filters by it carries it once', async () => {
    const source = await leanSchemasModule();
    assert.match(source, /^import \{ WEBHOOK_EVENT_TYPES \} from ".*[\\/]src[\\/]core[\\/]rules[\\/]webhooks\.ts";$/m);
    assert.match(source, /"enum":WEBHOOK_EVENT_TYPES\b/);
    assert.ok(!source.includes('"refund.succeeded"'), 'the event types are not written again');
  });

  test('an object lists the properties it may lack, and an enum or a constant goes without its type', () => {
    const link = leanSchema(z.toJSONSchema(schemas.PaymentLink, { io: 'output' }) as Record<string, unknown>);
    assert.deepEqual(link.optional, ['state', 'closesAt', 'minAmount', 'maxAmount', 'suggestedAmounts', 'goalAmount', 'raised', 'donorCount', '__type']);
    assert.equal('required' in link, false);
    assert.deepEqual(link.properties!.__type, { const: 'PaymentLink' });
    assert.equal(link.properties!.isActive!.type, 'boolean');
    const session = leanSchema(z.toJSONSchema(schemas.CheckoutSessionRecord, { io: 'output' }) as Record<string, unknown>);
    assert.equal('optional' in session, false, 'every property of a session is there');
    assert.deepEqual(Object.keys(session.properties!.status!), ['enum']);
  });

  test('the bundles write a part that recurs across the schemas once, and it reads back the same', async () => {
    const values = [
      leanSchema(z.toJSONSchema(schemas.CheckoutSessionRecord, { io: 'output' }) as Record<string, unknown>),
      leanSchema(z.toJSONSchema(schemas.CheckoutSessionRecordList, { io: 'output' }) as Record<string, unknown>),
      { type: 'null' },
    ];
    const { constants, expressions } = sharedLiterals(values);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-lean-'));
    try {
      const file = path.join(dir, 'shared.mjs');
      writeFileSync(file, `${constants.join('\n')}\nexport default [${expressions.join(',')}];`);
      const read = ((await import(pathToFileURL(file).href)) as { default: unknown[] }).default;
      assert.deepEqual(read, values);
      // The list's items are the record: one constant, named by both.
      const record = expressions[0]!;
      assert.match(record, /^\$\d+$/);
      assert.ok(expressions[1]!.includes(record));
      assert.ok(constants.join('').length + expressions.join('').length < JSON.stringify(values).length * 0.75);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
