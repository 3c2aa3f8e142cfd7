/**
 * Network alerts: what an operator must be told about a network is raised once, refreshed while it
 * holds, shown with the network in `GET /v1/withdrawal/networks`, and gone once cleared; a network
 * whose final block changed has its payouts halted until then.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clearAlert, listAlerts, payoutsHalted, raiseAlert } from '../../../../src/server/service/alerts/index.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';

for (const backend of backends()) {
  describe(`network alerts (${backend})`, () => {
    let t: TestService;

    before(async () => {
      t = await startTestService(backend, { payoutWorker: false });
    });
    after(() => t.close());

    it('raises an alert once, keeps when it was raised while it holds, and shows it on its network until cleared', async () => {
      const { key } = await t.newKey();
      const first = new Date('2026-01-01T00:00:00.000Z');
      assert.equal(await raiseAlert(t.db, { blockchainId: 'bsc', code: 'hot_wallet_low', message: 'short of gas', detail: { native: '0' } }, first), true);
      assert.equal(
        await raiseAlert(t.db, { blockchainId: 'bsc', code: 'hot_wallet_low', message: 'still short of gas' }, new Date('2026-01-01T00:05:00.000Z')),
        false,
        'a second raise while it holds is not news',
      );
      const [alert] = await listAlerts(t.db, 'bsc');
      assert.equal(alert?.message, 'still short of gas');
      assert.equal(alert?.raisedAt.toISOString(), first.toISOString());

      const shown = await call(t.url, 'GET', '/v1/withdrawal/networks', { key });
      assert.equal(shown.status, 200);
      assert.deepEqual(shown.body.items.find((n: { id: string }) => n.id === 'bsc').alerts, [
        { code: 'hot_wallet_low', message: 'still short of gas', since: first.toISOString() },
      ]);

      assert.equal(await clearAlert(t.db, 'bsc', 'hot_wallet_low'), true);
      assert.equal(await clearAlert(t.db, 'bsc', 'hot_wallet_low'), false);
      const after = await call(t.url, 'GET', '/v1/withdrawal/networks', { key });
      assert.deepEqual(after.body.items.find((n: { id: string }) => n.id === 'bsc').alerts, []);
    });

    it('halts payouts on a network only while its finality is violated, and on no other network', async () => {
      assert.equal(await payoutsHalted(t.db, 'bsc'), false);
      await raiseAlert(t.db, { blockchainId: 'bsc', code: 'chain_finality_violated', message: 'block 90 changed' }, new Date());
      assert.equal(await payoutsHalted(t.db, 'bsc'), true);
      assert.equal(await payoutsHalted(t.db, 'polygon'), false);
      await clearAlert(t.db, 'bsc', 'chain_finality_violated');
      assert.equal(await payoutsHalted(t.db, 'bsc'), false);
    });

    it('refuses a code it does not know', async () => {
      await assert.rejects(
        t.db.query(`INSERT INTO network_alerts (blockchain_id, code, message, raised_at, updated_at) VALUES ('bsc', 'made_up', 'x', now(), now())`),
      );
    });
  });
}
