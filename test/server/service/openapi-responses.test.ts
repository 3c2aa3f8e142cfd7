/**
 * The check that every server test's answer meets the OpenAPI document (test/support/openapi-responses.ts,
 * run by `call` and `callFrom` on each answer): what it refuses, and the two drifts it found, fixed (a
 * session read whose `postpayAction` is null, and the 415 of a body that is not JSON).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkResponse, checkedResponses, documentedOperations } from '../../support/openapi-responses.js';
import { call, standardLinkBody, startTestService, type TestService } from '../../support/service.js';

describe('every answer meets the OpenAPI document', () => {
  let service: TestService;
  let key: string;
  before(async () => {
    service = await startTestService('pglite');
    key = (await service.newKey()).key;
  });
  after(() => service.close());

  it('a session whose link has no post-payment action yet reads as postpayAction: null', async () => {
    const link = await call(service.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody() });
    assert.equal(link.status, 201);
    const started = await call(service.url, 'POST', `/v1/checkout/${link.body.slug}/sessions`, { body: { assetId: 'USDT' } });
    assert.equal(started.status, 201);
    assert.equal(started.body.postpayAction, null);
    const read = await call(service.url, 'GET', `/v1/checkout/sessions/${started.body.id}`);
    assert.equal(read.body.postpayAction, null);
    assert.ok(checkedResponses().get('GET /v1/checkout/sessions/{id}')?.has(200), 'the read was checked');
  });

  it('a body that is not JSON is a documented 415 on every operation that takes one', async () => {
    const refused = await call(service.url, 'POST', '/v1/payment-link', { key, rawBody: 'title=x', headers: { 'content-type': 'text/plain' } });
    assert.equal(refused.status, 415);
    assert.equal(refused.body.code, 'unsupported_media_type');
    const visit = await call(service.url, 'POST', '/v1/checkout/nosuchslug1/visits', {
      rawBody: 'x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(visit.status, 415);
    assert.ok(documentedOperations().length >= 26);
  });

  it('refuses an undocumented route that answers, an unlisted status and a body its schema refuses', () => {
    const url = `${service.url}/v1/orders`;
    assert.throws(() => checkResponse({ method: 'POST', url, status: 201, contentType: 'application/json', body: { id: 'x' } }), /no such operation/);
    // An unknown route's 404 in the one error shape is no drift.
    checkResponse({
      method: 'GET',
      url,
      status: 404,
      contentType: 'application/json',
      body: { status: 'error', statusCode: 404, code: 'not_found', message: 'Not found' },
    });
    assert.throws(
      () => checkResponse({ method: 'GET', url: `${service.url}/v1/balance`, status: 418, contentType: 'application/json', body: {} }),
      /GET \/v1\/balance answered 418, which its OpenAPI operation does not list/,
    );
    assert.throws(
      () =>
        checkResponse({
          method: 'GET',
          url: `${service.url}/v1/balance`,
          status: 200,
          contentType: 'application/json',
          body: { items: [{ assetId: 'USDT' }] },
        }),
      /GET \/v1\/balance answered 200 with a body its OpenAPI schema refuses:\n[\s\S]*must have required property 'available'/,
    );
    // Outside the API (the proxy, the pages, the bundles) is not the document's.
    checkResponse({ method: 'GET', url: `${service.url}/pay/abc`, status: 200, contentType: 'text/html', body: '<html>' });
  });
});
