/**
 * The public link cache: a page load does not cost a query once the link is warm, a change made on
 * this instance shows at once, and one made on another instance on the same database shows as soon
 * as its NOTIFY arrives (well inside the cache's lifetime).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Database } from '../../../../src/server/db/index.js';
import { createApiKey } from '../../../../src/server/service/keys/index.js';
import { createLinkCache } from '../../../../src/server/service/links/index.js';
import { startService, type RunningService } from '../../../../src/server/service/serve.js';
import { eventually } from '../../../support/money.js';
import { backends, call, openTestDatabase, standardLinkBody } from '../../../support/service.js';

for (const backend of backends()) {
  describe(`public link cache (${backend})`, () => {
    let database: Awaited<ReturnType<typeof openTestDatabase>>;
    let secondDb: Database;
    let a: RunningService;
    let b: RunningService;
    let key: string;

    before(async () => {
      database = await openTestDatabase(backend);
      secondDb = database.url ? await openDatabase({ databaseUrl: database.url }) : database.db;
      a = await startService({ db: database.db });
      b = await startService({ db: secondDb });
      key = (await database.db.transaction((tx) => createApiKey(tx))).key;
    });
    after(async () => {
      await Promise.all([a.close(), b.close()]);
      if (secondDb !== database.db) await secondDb.close();
      await database.close();
    });

    it('serves a warm link without asking the database again', async () => {
      const link = (await call(a.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody() })).body;
      let queries = 0;
      const counting: Database = { ...database.db, query: (sql, params) => (queries++, database.db.query(sql, params)) };
      const cache = createLinkCache(counting, { ttlMs: 60_000 });
      await cache.get(link.slug); // starts listening, reads through
      await eventually(
        async () => {
          const before = queries;
          await cache.get(link.slug);
          await cache.get(link.slug);
          return queries - before <= 1;
        },
        5000,
        'the cache to serve repeat reads',
      );
      const before = queries;
      for (let i = 0; i < 20; i++) assert.equal((await cache.get(link.slug)).slug, link.slug);
      assert.equal(queries, before, '20 warm reads, no query');
    });

    it('shows a change made on the same instance at once', async () => {
      const link = (await call(a.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody() })).body;
      for (let i = 0; i < 3; i++) assert.equal((await call(a.url, 'GET', `/v1/checkout/${link.slug}`)).body.state, 'open');
      await call(a.url, 'PATCH', '/v1/payment-link', { key, body: { id: link.id, title: 'Renamed', action: { isActive: false } } });
      const after = await call(a.url, 'GET', `/v1/checkout/${link.slug}`);
      assert.equal(after.body.state, 'inactive');
      assert.equal(after.body.title, 'Renamed');
    });

    it('shows a change made on another instance once its notification arrives', async () => {
      const link = (await call(a.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody() })).body;
      for (let i = 0; i < 3; i++) await call(a.url, 'GET', `/v1/checkout/${link.slug}`);
      await call(b.url, 'PATCH', '/v1/payment-link', { key, body: { id: link.id, action: { isActive: false } } });
      // Well under the 2 s lifetime of a cached copy: the NOTIFY, not the expiry, made it fresh.
      await eventually(async () => (await call(a.url, 'GET', `/v1/checkout/${link.slug}`)).body.state === 'inactive', 1000, 'instance A to see the change');
    });

    it('still refuses to start a session on a link made inactive elsewhere, whatever the cache holds', async () => {
      const link = (await call(a.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody() })).body;
      await call(a.url, 'GET', `/v1/checkout/${link.slug}`);
      await secondDb.query('UPDATE payment_links SET is_active = false WHERE id = $1', [link.id]);
      const session = await call(a.url, 'POST', `/v1/checkout/${link.slug}/sessions`, { body: { assetId: 'USDT' } });
      assert.equal(session.status, 422);
      assert.equal(session.body.code, 'link_inactive');
    });
  });
}
