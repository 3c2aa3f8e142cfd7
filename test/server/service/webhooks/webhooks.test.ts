/**
 * `paylink/webhooks`: a merchant's endpoint accepts exactly the deliveries its Paylink service signed
 * (`Paylink-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`),
 * within the time tolerance, and refuses everything else with a reason it can log.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  PAYLINK_WEBHOOK_EVENT_TYPES,
  signWebhookPayload,
  verifyWebhook,
  WebhookVerificationError,
  type PaylinkWebhookEvent,
  type WebhookVerificationReason,
} from '../../../../src/webhooks/index.js';

const SECRET = 'whsec_test_secret';
const BODY = '{"id":"evt_1","type":"checkout.session.paid","createdAt":"2025-01-01T00:00:00.000Z","data":{"object":{"id":"cs_1","status":"paid"}}}';
const T = 1_700_000_000;
const AT_T = new Date(T * 1000);
// HMAC-SHA256("whsec_test_secret", "1700000000." + BODY), written down once (and recomputed below with node:crypto).
const VECTOR = '5c020f66ec95d0f477588c37c96e677bc48a50da05415efc397903be25458bba';

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationReason> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof WebhookVerificationError, `a WebhookVerificationError, not ${error}`);
    assert.ok(error.message.length > 10, 'with a message that says why');
    return error.reason;
  }
  assert.fail('the delivery was accepted');
}

describe('paylink/webhooks', () => {
  it('signs the fixed vector, the same as node:crypto', async () => {
    assert.equal(createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex'), VECTOR);
    assert.equal(await signWebhookPayload(SECRET, BODY, T), `t=${T},v1=${VECTOR}`);
    assert.equal(await signWebhookPayload(SECRET, new TextEncoder().encode(BODY), T), `t=${T},v1=${VECTOR}`, 'bytes sign like their string');
  });

  it('accepts a signed delivery and returns its event', async () => {
    const event: PaylinkWebhookEvent<{ id: string; status: string }> = await verifyWebhook(BODY, `t=${T},v1=${VECTOR}`, SECRET, { now: AT_T });
    assert.deepEqual(event, JSON.parse(BODY));
    assert.equal(event.data.object.status, 'paid');
    const fromBytes = await verifyWebhook(new TextEncoder().encode(BODY).buffer, `t=${T},v1=${VECTOR}`, SECRET, { now: AT_T });
    assert.equal(fromBytes.id, 'evt_1');
  });

  it('accepts any one of several v1 signatures (secret rotation), spaces and other schemes aside', async () => {
    const old = (await signWebhookPayload('whsec_old_secret', BODY, T)).split('v1=')[1];
    assert.equal((await verifyWebhook(BODY, `t=${T}, v1=${old}, v1=${VECTOR}, v0=abc`, SECRET, { now: AT_T })).id, 'evt_1');
    assert.equal((await verifyWebhook(BODY, `t=${T},v1=${VECTOR},v1=${old}`, SECRET, { now: AT_T })).id, 'evt_1');
    assert.equal((await verifyWebhook(BODY, `t=${T},v1=${VECTOR.toUpperCase()}`, SECRET, { now: AT_T })).id, 'evt_1', 'hex in either case');
  });

  it('refuses a tampered body, another secret and a moved timestamp', async () => {
    const header = `t=${T},v1=${VECTOR}`;
    assert.equal(await refusal(verifyWebhook(BODY.replace('"paid"', '"underpaid"'), header, SECRET, { now: AT_T })), 'signature_mismatch');
    assert.equal(await refusal(verifyWebhook(`${BODY} `, header, SECRET, { now: AT_T })), 'signature_mismatch', 'one added byte');
    assert.equal(await refusal(verifyWebhook(BODY, header, 'whsec_other_secret', { now: AT_T })), 'signature_mismatch');
    assert.equal(await refusal(verifyWebhook(BODY, `t=${T + 1},v1=${VECTOR}`, SECRET, { now: AT_T })), 'signature_mismatch', 'the timestamp is signed');
    const flipped = `${VECTOR.slice(0, 63)}${VECTOR.endsWith('a') ? 'b' : 'a'}`;
    assert.equal(await refusal(verifyWebhook(BODY, `t=${T},v1=${flipped}`, SECRET, { now: AT_T })), 'signature_mismatch', 'one hex digit off');
  });

  it('refuses old and future timestamps beyond the tolerance, both ways', async () => {
    const header = `t=${T},v1=${VECTOR}`;
    const at = (seconds: number) => new Date((T + seconds) * 1000);
    assert.equal((await verifyWebhook(BODY, header, SECRET, { now: at(300) })).id, 'evt_1', '300 s old is within the default');
    assert.equal((await verifyWebhook(BODY, header, SECRET, { now: at(-300) })).id, 'evt_1', '300 s ahead is within the default');
    assert.equal(await refusal(verifyWebhook(BODY, header, SECRET, { now: at(301) })), 'timestamp_out_of_tolerance');
    assert.equal(await refusal(verifyWebhook(BODY, header, SECRET, { now: at(-301) })), 'timestamp_out_of_tolerance');
    assert.equal(await refusal(verifyWebhook(BODY, header, SECRET, { now: at(61), toleranceSeconds: 60 })), 'timestamp_out_of_tolerance');
    assert.equal((await verifyWebhook(BODY, header, SECRET, { now: at(3600), toleranceSeconds: 3600 })).id, 'evt_1');
    // The clock by default: a delivery signed now passes, one signed an hour ago does not.
    const now = Math.floor(Date.now() / 1000);
    assert.equal((await verifyWebhook(BODY, await signWebhookPayload(SECRET, BODY, now), SECRET)).id, 'evt_1');
    assert.equal(await refusal(verifyWebhook(BODY, await signWebhookPayload(SECRET, BODY, now - 3600), SECRET)), 'timestamp_out_of_tolerance');
  });

  it('refuses missing and malformed headers', async () => {
    for (const header of [null, undefined, '', '   ']) {
      assert.equal(await refusal(verifyWebhook(BODY, header, SECRET, { now: AT_T })), 'missing_signature', String(header));
    }
    const malformed = [
      VECTOR,
      `v1=${VECTOR}`,
      `t=${T}`,
      `t=${T},v0=${VECTOR}`,
      `t=abc,v1=${VECTOR}`,
      `t=-5,v1=${VECTOR}`,
      `t=1.5,v1=${VECTOR}`,
      `t=${T},t=${T},v1=${VECTOR}`,
      `t=${T},v1=${VECTOR.slice(2)}`,
      `t=${T},v1=${VECTOR}zz`,
      `t=${T},v1=${'g'.repeat(64)}`,
      `t=${T};v1=${VECTOR}`,
      `t=${T},,v1=${VECTOR}`,
      `t=${T},=x,v1=${VECTOR}`,
    ];
    for (const header of malformed) {
      assert.equal(await refusal(verifyWebhook(BODY, header, SECRET, { now: AT_T })), 'malformed_signature', header);
    }
  });

  it('refuses a signed body that is not a Paylink event', async () => {
    for (const body of ['not json', '[]', '{"id":"evt_1"}', '{"id":"evt_1","type":"payment.late","createdAt":"2025-01-01T00:00:00Z","data":null}']) {
      const header = await signWebhookPayload(SECRET, body, T);
      assert.equal(await refusal(verifyWebhook(body, header, SECRET, { now: AT_T })), 'invalid_payload', body);
    }
    const invalidUtf8 = new Uint8Array([0x7b, 0xff, 0x7d]);
    assert.equal(await refusal(verifyWebhook(invalidUtf8, await signWebhookPayload(SECRET, invalidUtf8, T), SECRET, { now: AT_T })), 'invalid_payload');
  });

  it('tells a programmer who passes parsed JSON or no secret, instead of refusing every delivery', async () => {
    await assert.rejects(verifyWebhook(JSON.parse(BODY), `t=${T},v1=${VECTOR}`, SECRET, { now: AT_T }), { name: 'TypeError', message: /raw request body/ });
    await assert.rejects(verifyWebhook(BODY, `t=${T},v1=${VECTOR}`, '', { now: AT_T }), { name: 'TypeError', message: /secret is empty/ });
    await assert.rejects(signWebhookPayload(SECRET, BODY, 1.5), TypeError);
    await assert.rejects(verifyWebhook(BODY, `t=${T},v1=${VECTOR}`, SECRET, { toleranceSeconds: -1 }), TypeError);
  });

  it('names the event types: those of payments, withdrawals and refunds, order.paid and reconciliation.mismatch', () => {
    assert.deepEqual([...PAYLINK_WEBHOOK_EVENT_TYPES].sort(), [
      'checkout.session.expired',
      'checkout.session.finalized',
      'checkout.session.paid',
      'checkout.session.resolved',
      'checkout.session.underpaid',
      'order.paid',
      'payment.late',
      'payment.reversed',
      'reconciliation.mismatch',
      'refund.created',
      'refund.failed',
      'refund.succeeded',
      'withdrawal.failed',
      'withdrawal.succeeded',
    ]);
  });

  it('uses Web Crypto only: no Node module, so it runs in Deno and Workers', () => {
    const source = readFileSync(new URL('../../../../src/webhooks/index.ts', import.meta.url), 'utf8');
    assert.doesNotMatch(source, /from\s+['"](node:|crypto|buffer)/);
    assert.doesNotMatch(source, /\bBuffer\b|\bprocess\./);
  });
});
