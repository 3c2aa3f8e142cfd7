/**
 * Two service instances on one database (scale-out): a status change made on one
 * instance reaches an SSE client of the other (LISTEN/NOTIFY), and payout workers on both never
 * pay a withdrawal twice (FOR UPDATE SKIP LOCKED). On PostgreSQL each instance has its own
 * connection pool and listener connection; on PGlite (single process) the two share the database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSandboxChain } from '../../src/server/chain/sandbox/index.js';
import type { ChainAdapter } from '../../src/server/chain/types.js';
import { openDatabase, type Database } from '../../src/server/db/index.js';
import { createApiKey } from '../../src/server/service/keys/index.js';
import { startService, type RunningService } from '../../src/server/service/serve.js';
import { GOOD_ADDRESS, assertLedgerMatches, balanceOf, countRows, createUsdLink, eventually, fund, openEventStream, startSession } from '../support/money.js';
import { backends, call, openTestDatabase } from '../support/service.js';

/** The sandbox chain, counting how often each withdrawal is paid out (shared, like a real chain would be). */
function countingChain(payouts: Map<string, number>): ChainAdapter {
  const sandbox = createSandboxChain({ payoutDelayMs: 5 });
  return {
    ...sandbox,
    sendPayout: async (request) => {
      payouts.set(request.withdrawalId, (payouts.get(request.withdrawalId) ?? 0) + 1);
      return sandbox.sendPayout(request);
    },
  };
}

for (const backend of backends()) {
  describe(`scale-out: two instances on one database (${backend})`, () => {
    let database: Awaited<ReturnType<typeof openTestDatabase>>;
    let secondDb: Database;
    let a: RunningService;
    let b: RunningService;
    const payouts = new Map<string, number>();

    before(async () => {
      database = await openTestDatabase(backend);
      secondDb = database.url ? await openDatabase({ databaseUrl: database.url }) : database.db;
      const options = { payouts: { pollIntervalMs: 5, batchSize: 4 }, sseHeartbeatMs: 5_000 };
      a = await startService({ ...options, db: database.db, chain: countingChain(payouts) });
      b = await startService({ ...options, db: secondDb, chain: countingChain(payouts) });
    });
    after(async () => {
      await Promise.all([a.close(), b.close()]);
      if (secondDb !== database.db) await secondDb.close();
      await database.close();
    });

    it('an SSE client on instance A sees a payment simulated on instance B', async () => {
      const { key } = await database.db.transaction((tx) => createApiKey(tx));
      const slug = await createUsdLink(a.url, key, '9');
      const session = await startSession(a.url, slug);
      const stream = await openEventStream(`${a.url}/v1/checkout/sessions/${session.id}/events`);
      assert.equal(JSON.parse((await stream.next()).data).status, 'awaiting_payment');
      const partial = await call(b.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: { amount: '4' } });
      assert.equal(partial.status, 200);
      // Well inside the 5 s heartbeat: this event came through NOTIFY.
      const underpaid = JSON.parse((await stream.next(2000)).data);
      assert.equal(underpaid.status, 'underpaid');
      await call(b.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} });
      const paid = JSON.parse((await stream.next(2000)).data);
      assert.equal(paid.status, 'paid');
      assert.ok(await stream.ended);
    });

    it('workers on both instances pay every withdrawal exactly once', async () => {
      const { key, integratorId } = await database.db.transaction((tx) => createApiKey(tx));
      await fund(a.url, key, '60');
      const responses = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          call(i % 2 ? a.url : b.url, 'POST', '/v1/withdrawal', {
            key,
            body: { amount: '1.5', address: GOOD_ADDRESS, blockchainId: 'bsc', assetId: 'USDT' },
          }),
        ),
      );
      assert.ok(
        responses.every((r) => r.status === 200),
        JSON.stringify(responses.map((r) => r.body)),
      );
      const ids = responses.map((r) => r.body.id as string);
      await eventually(
        async () => (await countRows(database.db, 'withdrawals', "integrator_id = $1 AND status = 'success'", [integratorId])) === 40,
        15_000,
        'all payouts to finish',
      );
      for (const id of ids) assert.equal(payouts.get(id), 1, `withdrawal ${id} paid ${payouts.get(id)} times`);
      assert.equal(await countRows(database.db, 'ledger_entries', "integrator_id = $1 AND kind = 'withdrawal_payout'", [integratorId]), 40);
      assert.deepEqual(await balanceOf(b.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '0.000000', pending: '0.000000' });
      await assertLedgerMatches(database.db, integratorId);
    });

    it('concurrent withdrawals split across instances never overdraw', async () => {
      const { key, integratorId } = await database.db.transaction((tx) => createApiKey(tx));
      await fund(a.url, key, '10');
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          call(i % 2 ? a.url : b.url, 'POST', '/v1/withdrawal', {
            key,
            body: { amount: '1', address: GOOD_ADDRESS, blockchainId: 'bsc', assetId: 'USDT' },
          }),
        ),
      );
      assert.equal(responses.filter((r) => r.status === 200).length, 10);
      assert.equal(responses.filter((r) => r.status === 422).length, 20);
      assert.equal((await balanceOf(a.url, key)).available, '0.000000');
      await assertLedgerMatches(database.db, integratorId);
    });
  });
}
