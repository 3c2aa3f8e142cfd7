/**
 * The ledger invariant: every balance change is a ledger entry in the same transaction, so for
 * every account the sums of the entries equal the balance, after any sequence of payments,
 * withdrawals and payouts (successful or failed). And the database itself refuses what would
 * break it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { SANDBOX_FAILING_ADDRESS, createSandboxChain } from '../../../../src/server/chain/sandbox/index.js';
import { fromUnits, toUnits } from '../../../../src/core/money.js';
import { processPayouts } from '../../../../src/server/service/payouts/index.js';
import { GOOD_ADDRESS, assertLedgerMatches, balanceOf, fund } from '../../../support/money.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';

type Op = { kind: 'pay'; units: number } | { kind: 'withdraw'; units: number; failing: boolean } | { kind: 'payout' };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  // Payments go through a USD link, so they are whole cents.
  fc.record({ kind: fc.constant('pay' as const), units: fc.integer({ min: 1, max: 500 }).map((cents) => cents * 10_000) }),
  fc.record({ kind: fc.constant('withdraw' as const), units: fc.integer({ min: 1, max: 5_000_000 }), failing: fc.boolean() }),
  fc.record({ kind: fc.constant('payout' as const) }),
);

for (const backend of backends()) {
  describe(`ledger (${backend})`, () => {
    let t: TestService;
    const chain = createSandboxChain();

    before(async () => {
      t = await startTestService(backend, { payoutWorker: false, chain });
    });
    after(() => t.close());

    it('balance = sum of ledger entries, and never below zero, after any sequence of operations', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArbitrary, { minLength: 1, maxLength: 10 }), async (ops) => {
          const { key, integratorId } = await t.newKey();
          // A model of the account in micro-units.
          let available = 0n;
          let pending = 0n;
          const inFlight: Array<{ units: bigint; failing: boolean }> = [];
          for (const op of ops) {
            if (op.kind === 'pay') {
              await fund(t.url, key, fromUnits(BigInt(op.units), 6));
              available += BigInt(op.units);
            } else if (op.kind === 'withdraw') {
              const amount = BigInt(op.units);
              const response = await call(t.url, 'POST', '/v1/withdrawal', {
                key,
                body: { amount: fromUnits(amount, 6), address: op.failing ? SANDBOX_FAILING_ADDRESS : GOOD_ADDRESS, blockchainId: 'bsc', assetId: 'USDT' },
              });
              if (amount <= available) {
                assert.equal(response.status, 200, JSON.stringify(response.body));
                available -= amount;
                pending += amount;
                inFlight.push({ units: amount, failing: op.failing });
              } else {
                assert.equal(response.status, 422);
              }
            } else {
              await processPayouts({ db: t.db, chain, now: () => new Date() }, { batchSize: 100 });
              for (const w of inFlight.splice(0)) {
                pending -= w.units;
                if (w.failing) available += w.units;
              }
            }
            const balance = await balanceOf(t.url, key);
            assert.equal(toUnits(balance.available, 6), available);
            assert.equal(toUnits(balance.pending, 6), pending);
            await assertLedgerMatches(t.db, integratorId);
          }
        }),
        { numRuns: 8 },
      );
    });

    it('the database refuses a negative balance and a transfer credited twice', async () => {
      const { key, integratorId } = await t.newKey();
      const sessionId = await fund(t.url, key, '5');
      await assert.rejects(
        t.db.transaction((tx) => tx.query("UPDATE balances SET available = available - 6 WHERE integrator_id = $1 AND asset_id = 'USDT'", [integratorId])),
        /check constraint/i,
      );
      const transfer = await t.db.query<{ id: string }>('SELECT id FROM chain_transfers WHERE session_id = $1', [sessionId]);
      await assert.rejects(
        t.db.transaction((tx) =>
          tx.query(
            `INSERT INTO ledger_entries (id, integrator_id, asset_id, blockchain_id, kind, available_delta, pending_delta, transfer_id)
             VALUES (gen_random_uuid(), $1, 'USDT', 'bsc', 'payment', 5, 0, $2)`,
            [integratorId, transfer.rows[0]!.id],
          ),
        ),
        /duplicate key|unique/i,
      );
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '5.000000', pending: '0.000000' });
      await assertLedgerMatches(t.db, integratorId);
    });

    it('records each kind of change with its deltas', async () => {
      const { key, integratorId } = await t.newKey();
      await fund(t.url, key, '10');
      const ok = await call(t.url, 'POST', '/v1/withdrawal', { key, body: { amount: '3', address: GOOD_ADDRESS, blockchainId: 'bsc', assetId: 'USDT' } });
      const bad = await call(t.url, 'POST', '/v1/withdrawal', {
        key,
        body: { amount: '2', address: SANDBOX_FAILING_ADDRESS, blockchainId: 'bsc', assetId: 'USDT' },
      });
      assert.equal(ok.status, 200);
      assert.equal(bad.status, 200);
      await processPayouts({ db: t.db, chain, now: () => new Date() });
      const { rows } = await t.db.query<{ kind: string; available_delta: string; pending_delta: string; withdrawal_id: string | null }>(
        'SELECT kind, available_delta::text, pending_delta::text, withdrawal_id FROM ledger_entries WHERE integrator_id = $1',
        [integratorId],
      );
      const summary = rows
        .map(
          (r) =>
            `${r.kind} ${Number(r.available_delta)} ${Number(r.pending_delta)} ${r.withdrawal_id === ok.body.id ? 'ok' : r.withdrawal_id === bad.body.id ? 'bad' : '-'}`,
        )
        .sort();
      assert.deepEqual(summary, [
        'payment 10 0 -',
        'withdrawal_payout 0 -3 ok',
        'withdrawal_release 2 -2 bad',
        'withdrawal_reserve -2 2 bad',
        'withdrawal_reserve -3 3 ok',
      ]);
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '7.000000', pending: '0.000000' });
    });
  });
}
