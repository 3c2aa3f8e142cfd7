/**
 * The webhook endpoints API and its SSRF guard: create (the secret once), list, get,
 * update, delete, each integrator's own; the rules on url/events/description; endpoints at loopback,
 * private, link-local, metadata or otherwise non-public addresses refused at creation and, through DNS,
 * at delivery time, on every chain (the sandbox too), unless PAYLINK_WEBHOOK_ALLOW_PRIVATE=1; a refusal
 * never names the address a host resolved to.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPaylinkClient } from '../../../../src/client/index.js';
import { createPaylinkProxy } from '../../../../src/server/proxy/index.js';
import { createLogger } from '../../../../src/server/log.js';
import { COULD_NOT_CONNECT } from '../../../../src/server/service/webhooks/sender.js';
import { isPrivateAddress, resolveWebhookSettings, type ResolvedAddress } from '../../../../src/server/service/webhooks/index.js';
import { signWebhookPayload, verifyWebhook } from '../../../../src/webhooks/index.js';
import { countRows } from '../../../support/money.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';
import { startReceiver } from '../../../support/webhook-receiver.js';

describe('the SSRF rule', () => {
  it('knows private, loopback, link-local, metadata and reserved addresses in every spelling', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.9.10',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.100.100.200',
      '0.0.0.0',
      '100.64.0.1',
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.10',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.1.2.3',
      '64:ff9b::a9fe:a9fe',
      '2002:c0a8:101::1',
      '2001:db8::1',
      'not-an-address',
    ])
      assert.equal(isPrivateAddress(address), true, address);
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '172.32.0.1',
      '192.169.0.1',
      '100.128.0.1',
      '2606:4700::1111',
      '::ffff:93.184.216.34',
      '64:ff9b::808:808',
    ])
      assert.equal(isPrivateAddress(address), false, address);
  });

  it('refuses every special-purpose IPv6 range and every form that carries a non-public IPv4 address', () => {
    for (const [address, what] of [
      ['::ffff:0:7f00:1', 'IPv4-translated loopback (::ffff:0:0:0/96)'],
      ['::ffff:0:a00:1', 'IPv4-translated 10.0.0.1'],
      ['::7f00:1', 'IPv4-compatible loopback (deprecated ::/96)'],
      ['64:ff9b::7f00:1', 'NAT64 of loopback'],
      ['64:ff9b:1::808:808', 'local-use NAT64 (64:ff9b:1::/48)'],
      ['2002:7f00:1::1', '6to4 of loopback'],
      ['2002:a9fe:a9fe::1', '6to4 of the metadata address'],
      ['2001::1', 'Teredo (2001::/32)'],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
      ['2001:2::1', 'benchmarking (2001:2::/48)'],
      ['2001:10::1', 'ORCHID (2001:10::/28)'],
      ['2001:20::1', 'ORCHIDv2 (2001:20::/28)'],
      ['3fff::1', 'documentation (3fff::/20)'],
      ['5f00::1', 'segment routing (5f00::/16)'],
      ['100::1', 'discard-only (100::/64)'],
      ['fec0::1', 'site-local'],
      ['4000::1', 'outside global unicast (2000::/3)'],
      ['fe80::1%eth0', 'link-local with a zone'],
      ['192.88.99.1', '6to4 relay anycast'],
      ['192.0.0.170', 'IETF protocol assignments'],
    ])
      assert.equal(isPrivateAddress(address), true, `${address}: ${what}`);
    for (const address of ['2002:808:808::1', '::ffff:0:808:808', '2a00:1450:4001:80b::200e'])
      assert.equal(isPrivateAddress(address), false, `${address} reaches a public address`);
  });

  it('allows private endpoints only with PAYLINK_WEBHOOK_ALLOW_PRIVATE=1 (on every chain), and reads the retry base', () => {
    assert.equal(resolveWebhookSettings({}, {}).allowPrivate, false);
    assert.equal(resolveWebhookSettings({}, { PAYLINK_WEBHOOK_ALLOW_PRIVATE: '1' }).allowPrivate, true);
    assert.equal(resolveWebhookSettings({}, { PAYLINK_WEBHOOK_ALLOW_PRIVATE: '0' }).allowPrivate, false);
    assert.equal(resolveWebhookSettings({ allowPrivate: true }, {}).allowPrivate, true);
    assert.throws(() => resolveWebhookSettings({}, { PAYLINK_WEBHOOK_ALLOW_PRIVATE: 'yes please' }), /PAYLINK_WEBHOOK_ALLOW_PRIVATE must be 1 or 0/);
    assert.equal(resolveWebhookSettings({}, {}).retryBaseMs, 30_000);
    assert.equal(resolveWebhookSettings({}, { PAYLINK_WEBHOOK_RETRY_BASE_MS: '250' }).retryBaseMs, 250);
    assert.throws(() => resolveWebhookSettings({}, { PAYLINK_WEBHOOK_RETRY_BASE_MS: '0' }), /PAYLINK_WEBHOOK_RETRY_BASE_MS/);
    assert.throws(() => resolveWebhookSettings({}, { PAYLINK_WEBHOOK_RETRY_BASE_MS: '1e3' }), /whole number/);
  });
});

for (const backend of backends()) {
  describe(`webhook endpoints (${backend})`, () => {
    let t: TestService;
    let key: string;

    before(async () => {
      // The admin's calls below post to a receiver on 127.0.0.1: private endpoints allowed, as in development.
      t = await startTestService(backend, { payoutWorker: false, webhooks: { allowPrivate: true } });
      ({ key } = await t.newKey());
    });
    after(() => t.close());

    const api = (method: string, path: string, body?: unknown, apiKey = key) => call(t.url, method, path, { key: apiKey, body });

    it('create answers 201 with the secret, shown there only; list, get, update and delete manage the rest', async () => {
      const created = await api('POST', '/v1/webhook-endpoint', { url: 'https://shop.example/hooks', description: ' Orders ' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const endpoint = created.body;
      assert.match(endpoint.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(endpoint.events, [
        'checkout.session.paid',
        'checkout.session.underpaid',
        'checkout.session.expired',
        'checkout.session.finalized',
        'checkout.session.resolved',
        'payment.late',
        'order.paid',
        'payment.reversed',
        'refund.created',
        'refund.succeeded',
        'refund.failed',
        'withdrawal.succeeded',
        'withdrawal.failed',
        'reconciliation.mismatch',
      ]);
      assert.equal(endpoint.description, 'Orders');
      assert.equal(endpoint.isActive, true);
      const second = (await api('POST', '/v1/webhook-endpoint', { url: 'https://erp.example/paylink', events: ['withdrawal.failed', 'payment.late'] })).body;
      assert.deepEqual(second.events, ['payment.late', 'withdrawal.failed']);
      assert.notEqual(second.secret, endpoint.secret);

      const fetched = await api('GET', `/v1/webhook-endpoint/${endpoint.id}`);
      assert.equal(fetched.status, 200);
      assert.equal('secret' in fetched.body, false, 'the secret is never read again');
      const { secret: _, ...withoutSecret } = endpoint;
      assert.deepEqual(fetched.body, withoutSecret);

      const list = await api('GET', '/v1/webhook-endpoint?limit=1');
      assert.deepEqual(list.body.meta, { totalItems: 2, itemCount: 1, itemsPerPage: 1, totalPages: 2, currentPage: 1 });
      assert.equal(list.body.items[0].id, second.id, 'newest first');
      assert.ok(!JSON.stringify((await api('GET', '/v1/webhook-endpoint')).body).includes('whsec_'));

      const updated = await api('PATCH', '/v1/webhook-endpoint', {
        id: endpoint.id,
        url: 'https://shop.example/v2/hooks',
        events: ['checkout.session.paid'],
        isActive: false,
      });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal(updated.body.url, 'https://shop.example/v2/hooks');
      assert.deepEqual(updated.body.events, ['checkout.session.paid']);
      assert.equal(updated.body.isActive, false);
      assert.equal(updated.body.description, 'Orders', 'what the body leaves out stays');
      assert.ok(Date.parse(updated.body.updatedAt) >= Date.parse(endpoint.updatedAt));

      const deleted = await api('DELETE', `/v1/webhook-endpoint/${endpoint.id}`);
      assert.deepEqual(deleted.body, { id: endpoint.id, deleted: true });
      assert.equal((await api('GET', `/v1/webhook-endpoint/${endpoint.id}`)).status, 404);
      assert.equal((await api('DELETE', `/v1/webhook-endpoint/${endpoint.id}`)).status, 404);
      assert.equal((await api('GET', `/v1/webhook-endpoint/${endpoint.id}/deliveries`)).status, 404);
    });

    it("is each integrator's own: another's endpoint is a 404 to read, change, delete, test or list the deliveries of", async () => {
      const { key: otherKey } = await t.newKey();
      const endpoint = (await api('POST', '/v1/webhook-endpoint', { url: 'https://shop.example/mine' })).body;
      assert.equal((await api('GET', `/v1/webhook-endpoint/${endpoint.id}`, undefined, otherKey)).status, 404);
      assert.equal((await api('PATCH', '/v1/webhook-endpoint', { id: endpoint.id, isActive: false }, otherKey)).status, 404);
      assert.equal((await api('DELETE', `/v1/webhook-endpoint/${endpoint.id}`, undefined, otherKey)).status, 404);
      assert.equal((await api('POST', `/v1/webhook-endpoint/${endpoint.id}/test`, undefined, otherKey)).status, 404);
      assert.equal((await api('GET', `/v1/webhook-endpoint/${endpoint.id}/deliveries`, undefined, otherKey)).status, 404);
      assert.equal((await api('GET', '/v1/webhook-endpoint', undefined, otherKey)).body.meta.totalItems, 0);
      assert.equal((await api('GET', `/v1/webhook-endpoint/${endpoint.id}`)).body.isActive, true, 'unchanged');
      assert.equal((await call(t.url, 'GET', '/v1/webhook-endpoint')).status, 401);
      assert.equal((await call(t.url, 'POST', '/v1/webhook-endpoint', { body: { url: 'https://x.example' } })).status, 401);
    });

    it('refuses bad bodies with a 400 naming the field, creating nothing', async () => {
      const before = await countRows(t.db, 'webhook_endpoints');
      for (const [body, path] of [
        [{}, 'url'],
        [{ url: '' }, 'url'],
        [{ url: 'shop.example/hooks' }, 'url'],
        [{ url: 'ftp://shop.example/hooks' }, 'url'],
        [{ url: 'https://user:pass@shop.example/hooks' }, 'url'],
        [{ url: 'https://shop.example/hooks#x' }, 'url'],
        [{ url: `https://shop.example/${'a'.repeat(2048)}` }, 'url'],
        [{ url: 'https://shop.example/hooks', events: [] }, 'events'],
        [{ url: 'https://shop.example/hooks', events: ['order.shipped'] }, 'events.0'],
        [{ url: 'https://shop.example/hooks', events: 'payment.late' }, 'events'],
        [{ url: 'https://shop.example/hooks', description: 'd'.repeat(501) }, 'description'],
      ] as Array<[Record<string, unknown>, string]>) {
        const response = await api('POST', '/v1/webhook-endpoint', body);
        assert.equal(response.status, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(response.body.code, 'validation_failed');
        assert.ok(
          response.body.errors.some((e: { path: string }) => e.path === path),
          `${JSON.stringify(response.body.errors)} names ${path}`,
        );
      }
      assert.equal(await countRows(t.db, 'webhook_endpoints'), before);
      const endpoint = (await api('POST', '/v1/webhook-endpoint', { url: 'https://shop.example/x' })).body;
      assert.equal((await api('PATCH', '/v1/webhook-endpoint', { url: 'https://shop.example/y' })).status, 400, 'an update names its endpoint');
      assert.equal((await api('PATCH', '/v1/webhook-endpoint', { id: endpoint.id, events: [] })).status, 400);
      assert.equal((await api('PATCH', '/v1/webhook-endpoint', { id: endpoint.id, isActive: 'no' })).status, 400);
    });

    it("the admin's calls through the proxy and the client: create, list, update, test, deliveries, retry, get, delete", async () => {
      const { key: apiKey } = await t.newKey();
      const proxy = createPaylinkProxy({ upstream: t.url, apiKey, adminToken: 'webhooks-admin-token-0123456789abcdef', rateLimit: false });
      const client = createPaylinkClient({
        baseUrl: 'http://shop.test/paylink/admin',
        token: 'webhooks-admin-token-0123456789abcdef',
        fetch: (input, init) => proxy(new Request(input, init)),
      });
      const receiver = await startReceiver();
      try {
        const created = await client.webhookEndpoints.create({ url: `${receiver.url}/hooks`, events: ['checkout.session.paid'], description: 'Shop' });
        assert.match(created.secret, /^whsec_/);
        assert.equal((await client.webhookEndpoints.list()).items[0]!.id, created.id);
        assert.equal((await client.webhookEndpoints.update({ id: created.id, description: 'Shop (live)' })).description, 'Shop (live)');
        const test = await client.webhookEndpoints.sendTestEvent(created.id);
        assert.equal(test.status, 'delivered');
        assert.equal(receiver.received.length, 1);
        assert.equal((await client.webhookEndpoints.deliveries(created.id)).items[0]!.id, test.id);
        assert.equal((await client.webhookDeliveries.retry(test.id)).attemptCount, 2);
        const read = await client.webhookDeliveries.get(test.id);
        assert.deepEqual([read.id, read.attemptCount, read.attempts.length], [test.id, 2, 2], 'one delivery read back by id, both attempts in it');
        assert.deepEqual(await client.webhookEndpoints.delete(created.id), { id: created.id, deleted: true });
        assert.equal((await client.webhookEndpoints.list()).meta.totalItems, 0);
      } finally {
        await receiver.close();
      }
    });

    it('with PAYLINK_WEBHOOK_ALLOW_PRIVATE=1, loopback and http:// endpoints are allowed', async () => {
      const created = await api('POST', '/v1/webhook-endpoint', { url: 'http://127.0.0.1:3000/hooks' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    });

    it('a failed connection is one sentence in the delivery log, naming neither the address nor the error', async () => {
      const receiver = await startReceiver();
      const url = `${receiver.url}/hooks`;
      await receiver.close(); // nothing listens there now
      const endpoint = (await api('POST', '/v1/webhook-endpoint', { url })).body;
      const test = await api('POST', `/v1/webhook-endpoint/${endpoint.id}/test`);
      assert.equal(test.body.status, 'failed');
      assert.equal(test.body.attempts[0].error, COULD_NOT_CONNECT);
    });

    it('rolls a secret: the new one answered once, both signing every delivery until the old one expires', async () => {
      const receiver = await startReceiver();
      try {
        const endpoint = (await api('POST', '/v1/webhook-endpoint', { url: `${receiver.url}/hooks` })).body;
        const old = endpoint.secret as string;
        const startedAt = Date.now();
        const rolled = await call(t.url, 'POST', `/v1/webhook-endpoint/${endpoint.id}/roll-secret`, {
          key,
          body: {},
          headers: { 'idempotency-key': 'roll-1' },
        });
        assert.equal(rolled.status, 200, JSON.stringify(rolled.body));
        const fresh = rolled.body.secret as string;
        assert.match(fresh, /^whsec_[A-Za-z0-9_-]{43}$/);
        assert.notEqual(fresh, old);
        const until = Date.parse(rolled.body.previousSecretExpiresAt);
        assert.ok(Math.abs(until - startedAt - 24 * 3_600_000) < 60_000, 'the old secret signs for 24 hours by default');
        const replay = await call(t.url, 'POST', `/v1/webhook-endpoint/${endpoint.id}/roll-secret`, {
          key,
          body: {},
          headers: { 'idempotency-key': 'roll-1' },
        });
        assert.equal(replay.body.secret, fresh, 'a retried roll answers the same secret and rolls nothing more');
        const read = await api('GET', `/v1/webhook-endpoint/${endpoint.id}`);
        assert.equal(read.body.previousSecretExpiresAt, rolled.body.previousSecretExpiresAt);
        assert.ok(!JSON.stringify(read.body).includes('whsec_'), 'the new secret is shown once');

        // Every delivery now carries both signatures, the new one first, and a receiver with either secret accepts it.
        await api('POST', `/v1/webhook-endpoint/${endpoint.id}/test`);
        const [delivery] = await receiver.waitFor(1);
        const header = String(delivery!.headers['paylink-signature']);
        const t0 = Number(/^t=(\d+)/.exec(header)![1]);
        assert.equal(header, await signWebhookPayload([fresh, old], delivery!.body, t0));
        for (const secret of [fresh, old, [old, fresh]]) assert.equal((await verifyWebhook(delivery!.body, header, secret)).type, 'webhook.test');

        // Once the old secret has expired, it signs no more.
        await t.db.query("UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1", [endpoint.id]);
        assert.equal((await api('GET', `/v1/webhook-endpoint/${endpoint.id}`)).body.previousSecretExpiresAt, null);
        await api('POST', `/v1/webhook-endpoint/${endpoint.id}/test`);
        const [, afterExpiry] = await receiver.waitFor(2);
        const single = String(afterExpiry!.headers['paylink-signature']);
        assert.equal(single.match(/v1=/g)!.length, 1);
        await verifyWebhook(afterExpiry!.body, single, fresh);
        await assert.rejects(() => verifyWebhook(afterExpiry!.body, single, old), /No signature/);

        // expiresInHours 0: the current secret stops at once.
        const now = (await api('POST', `/v1/webhook-endpoint/${endpoint.id}/roll-secret`, { expiresInHours: 0 })).body;
        assert.equal(now.previousSecretExpiresAt, null);
        await api('POST', `/v1/webhook-endpoint/${endpoint.id}/test`);
        const [, , third] = await receiver.waitFor(3);
        await assert.rejects(() => verifyWebhook(third!.body, String(third!.headers['paylink-signature']), fresh), /No signature/);
        await verifyWebhook(third!.body, String(third!.headers['paylink-signature']), now.secret);
      } finally {
        await receiver.close();
      }
    });

    it('refuses a roll of bad hours or of an endpoint not the caller’s, and a PATCH that sets a secret, changing nothing', async () => {
      const endpoint = (await api('POST', '/v1/webhook-endpoint', { url: 'https://shop.example/roll' })).body;
      for (const expiresInHours of [-1, 169, 1.5, '24'])
        assert.equal((await api('POST', `/v1/webhook-endpoint/${endpoint.id}/roll-secret`, { expiresInHours })).status, 400, String(expiresInHours));
      const { key: otherKey } = await t.newKey();
      assert.equal((await api('POST', `/v1/webhook-endpoint/${endpoint.id}/roll-secret`, {}, otherKey)).status, 404);
      assert.equal((await api('POST', '/v1/webhook-endpoint/not-an-id/roll-secret', {})).status, 404);
      const patched = await api('PATCH', '/v1/webhook-endpoint', { id: endpoint.id, secret: 'whsec_mine', description: 'changed?' });
      assert.equal(patched.status, 400);
      assert.equal(patched.body.errors[0].path, 'secret');
      assert.match(patched.body.errors[0].message, /roll-secret/);
      const read = (await api('GET', `/v1/webhook-endpoint/${endpoint.id}`)).body;
      assert.deepEqual([read.description, read.previousSecretExpiresAt], ['', null], 'nothing changed');
      const stored = await t.db.query<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
      assert.equal(stored.rows[0]!.secret, endpoint.secret);
    });
  });

  describe(`the SSRF guard, on the sandbox chain as on any (${backend})`, () => {
    let t: TestService;
    let key: string;
    /** The DNS the service sees: each name's addresses, changed by the tests. */
    const dns = new Map<string, string[]>();
    const resolveHost = async (hostname: string): Promise<ResolvedAddress[]> => {
      const addresses = dns.get(hostname);
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };

    /** The operator's log. */
    const logLines: Array<Record<string, unknown>> = [];

    before(async () => {
      // The sandbox chain, with PAYLINK_WEBHOOK_ALLOW_PRIVATE unset: a sandbox key is no licence to reach the private network.
      const logger = createLogger((line) => logLines.push(JSON.parse(line)));
      t = await startTestService(backend, { payoutWorker: false, env: {}, webhooks: { resolveHost, retryBaseMs: 60_000 }, logger });
      ({ key } = await t.newKey());
    });
    after(() => t.close());

    const create = (url: string) => call(t.url, 'POST', '/v1/webhook-endpoint', { key, body: { url } });

    it('refuses at creation and on update an endpoint that is, or resolves to, a private address, or uses http://', async () => {
      dns.set('localhost', ['127.0.0.1', '::1']);
      dns.set('internal.shop.example', ['93.184.216.34', '10.0.0.7']);
      dns.set('metadata.shop.example', ['169.254.169.254']);
      dns.set('public.shop.example', ['93.184.216.34']);
      for (const url of [
        'https://127.0.0.1/hooks',
        'https://10.1.2.3/hooks',
        'https://192.168.0.10:8443/hooks',
        'https://169.254.169.254/latest/meta-data',
        'https://[::1]/hooks',
        'https://[fd00:ec2::254]/hooks',
        'https://[::ffff:127.0.0.1]/hooks',
        'https://2130706433/hooks',
        'https://localhost/hooks',
        'https://internal.shop.example/hooks',
        'https://metadata.shop.example/hooks',
        'https://[::ffff:0:7f00:1]/hooks',
        'https://[2001::a9fe:a9fe]/hooks',
        'https://[64:ff9b::a00:7]/hooks',
        'https://[2002:a00:7::1]/hooks',
        'https://[3fff::1]/hooks',
        'https://[5f00::1]/hooks',
      ]) {
        const response = await create(url);
        assert.equal(response.status, 400, url);
        assert.equal(response.body.errors[0].path, 'url');
        assert.match(response.body.errors[0].message, /private, loopback, link-local/, url);
        if (/\.example|localhost/.test(url))
          assert.doesNotMatch(
            JSON.stringify(response.body),
            /10\.0\.0\.7|169\.254\.169\.254|127\.0\.0\.1|::1\b/,
            `${url}: the refusal names no resolved address`,
          );
        // A developer with a receiver on their own machine learns how to allow it.
        assert.match(response.body.errors[0].message, /start the service with PAYLINK_WEBHOOK_ALLOW_PRIVATE=1/, url);
      }
      const http = await create('http://public.shop.example/hooks');
      assert.equal(http.status, 400);
      assert.match(http.body.errors[0].message, /https:\/\/.*local http:\/\/ receiver.*PAYLINK_WEBHOOK_ALLOW_PRIVATE=1/);

      const endpoint = await create('https://public.shop.example/hooks');
      assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
      const moved = await call(t.url, 'PATCH', '/v1/webhook-endpoint', { key, body: { id: endpoint.body.id, url: 'https://metadata.shop.example/x' } });
      assert.equal(moved.status, 400);
      assert.equal((await call(t.url, 'GET', `/v1/webhook-endpoint/${endpoint.body.id}`, { key })).body.url, 'https://public.shop.example/hooks');
    });

    it('answers a name that does not resolve as it answers one that resolves to a private address', async () => {
      dns.set('db.shop.example', ['10.0.0.5']);
      const unknown = await create('https://not-in-dns.shop.example/hooks');
      const internal = await create('https://db.shop.example/hooks');
      assert.equal(unknown.status, 400);
      const withoutHost = (body: unknown) => JSON.stringify(body).replace(/not-in-dns|db/g, 'HOST');
      assert.equal(withoutHost(unknown.body), withoutHost(internal.body));
    });

    it('checks DNS again at delivery: a name that now resolves to loopback is refused without connecting', async () => {
      const receiver = await startReceiver();
      try {
        const port = new URL(receiver.url).port;
        dns.set('rebinding.shop.example', ['93.184.216.34']);
        const endpoint = await create(`https://rebinding.shop.example:${port}/hooks`);
        assert.equal(endpoint.status, 201);
        dns.set('rebinding.shop.example', ['127.0.0.1']);
        const test = await call(t.url, 'POST', `/v1/webhook-endpoint/${endpoint.body.id}/test`, { key });
        assert.equal(test.status, 200);
        assert.equal(test.body.status, 'failed');
        assert.equal(test.body.attempts[0].statusCode, null);
        assert.equal(test.body.attempts[0].error, COULD_NOT_CONNECT, 'the delivery log does not say what the name resolved to');
        assert.equal(receiver.connections, 0, 'no connection reached the loopback address');

        // A name gone from DNS, and a public address where nothing listens: the same sentence.
        dns.delete('rebinding.shop.example');
        const gone = await call(t.url, 'POST', `/v1/webhook-delivery/${test.body.id}/retry`, { key });
        assert.equal(gone.body.attempts.at(-1).error, COULD_NOT_CONNECT);
        // The operator's log has each reason, and no address.
        const reasons = logLines.filter((line) => line.code === 'webhook_connect_failed' && line.endpointId === endpoint.body.id).map((line) => line.reason);
        assert.deepEqual(reasons, ['private_address', 'ENOTFOUND']);
        assert.ok(!JSON.stringify(logLines).includes('127.0.0.1') && !JSON.stringify(logLines).includes('rebinding'), 'nor the host');

        // A literal private address stored before the rule (or by hand) is refused at delivery too.
        await t.db.query('UPDATE webhook_endpoints SET url = $1 WHERE id = $2', [`https://127.0.0.1:${port}/hooks`, endpoint.body.id]);
        const literal = await call(t.url, 'POST', `/v1/webhook-delivery/${test.body.id}/retry`, { key });
        assert.match(literal.body.attempts.at(-1).error, /^Refused: 127\.0\.0\.1 is, or resolves to, a private/);
        assert.equal(receiver.connections, 0);
      } finally {
        await receiver.close();
      }
    });
  });
}
