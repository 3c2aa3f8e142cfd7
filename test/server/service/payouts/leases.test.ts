/**
 * The payout worker when a chain call goes wrong in ways that do not say whether the funds left:
 * only a `PayoutError` (the chain's definitive refusal) fails a withdrawal and returns its funds;
 * any other error, or a call that hangs past `payoutTimeoutMs`, leaves it `processing` to be paid
 * (idempotently) after the lease; and a stale attempt whose lease was taken over can never fail a
 * withdrawal that a newer attempt is paying out.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createSandboxChain, sandboxPayoutHash } from '../../../../src/server/chain/sandbox/index.js';
import { PayoutError, type ChainAdapter, type PayoutRequest, type PayoutResult } from '../../../../src/server/chain/types.js';
import { createLogger } from '../../../../src/server/log.js';
import { processPayouts, startPayoutWorker } from '../../../../src/server/service/payouts/index.js';
import { GOOD_ADDRESS, assertLedgerMatches, balanceOf, countRows, fund } from '../../../support/money.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';
import { sleep } from '../../../support/wait.js';

/**
 * A lease runs out on the database's clock (`claimed_at < now() - lease`): the tests that need one to
 * run out let that time pass, with leases as short as each test allows.
 */
const PAST_THE_LEASE_MS = 50;

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The sandbox, except that payouts of `target` go through `send` (the n-th call gets n, from 1). */
function scriptedChain(target: () => string, send: (call: number, request: PayoutRequest) => Promise<PayoutResult>): ChainAdapter {
  const sandbox = createSandboxChain();
  let calls = 0;
  return {
    ...sandbox,
    sendPayout: (request) => (request.withdrawalId === target() ? send(++calls, request) : sandbox.sendPayout(request)),
  };
}

for (const backend of backends()) {
  describe(`payout leases and unclear chain errors (${backend})`, () => {
    let t: TestService;
    const sandbox = createSandboxChain();
    before(async () => {
      t = await startTestService(backend, { payoutWorker: false, chain: sandbox });
    });
    after(() => t.close());

    /** A fresh integrator holding 10 USDT with one pending withdrawal of 4 USDT. */
    async function pendingWithdrawal() {
      const { key, integratorId } = await t.newKey();
      await fund(t.url, key, '10');
      const response = await call(t.url, 'POST', '/v1/withdrawal', {
        key,
        body: { amount: '4', address: GOOD_ADDRESS, blockchainId: 'bsc', assetId: 'USDT' },
      });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return { key, integratorId, id: response.body.id as string };
    }
    const withdrawalRow = async (id: string) =>
      (await t.db.query<{ status: string; attempts: number; tx_hash: string | null }>('SELECT status, attempts, tx_hash FROM withdrawals WHERE id = $1', [id]))
        .rows[0]!;
    const entries = (id: string, kind: string) => countRows(t.db, 'ledger_entries', 'withdrawal_id = $1 AND kind = $2', [id, kind]);
    /** What the worker logged, kept here (not printed): the lines a test expects are part of what it checks. */
    let logged: Array<{ level: string; code: string; withdrawalId?: string; error?: { message?: string } }> = [];
    const log = createLogger((line) => logged.push(JSON.parse(line)));
    const deps = (chain: ChainAdapter) => ({ db: t.db, chain, now: () => new Date(), log });
    beforeEach(() => {
      logged = [];
    });

    async function assertPaidOnce(w: { key: string; integratorId: string; id: string }) {
      const row = await withdrawalRow(w.id);
      assert.equal(row.status, 'success');
      assert.equal(row.tx_hash, sandboxPayoutHash(w.id));
      assert.equal(await entries(w.id, 'withdrawal_payout'), 1);
      assert.equal(await entries(w.id, 'withdrawal_release'), 0);
      assert.deepEqual(await balanceOf(t.url, w.key), { assetId: 'USDT', blockchainId: 'bsc', available: '6.000000', pending: '0.000000' });
      await assertLedgerMatches(t.db, w.integratorId);
    }

    for (const [label, staleError] of [
      ['a non-PayoutError', () => new Error('RPC connection reset')],
      ['a PayoutError', () => new PayoutError('nonce too low')],
    ] as const) {
      it(`a stale attempt failing with ${label} after its lease was taken over neither fails nor releases`, async () => {
        const w = await pendingWithdrawal();
        const leaseMs = 100;
        const firstStarted = deferred();
        const firstGate = deferred();
        const secondStarted = deferred();
        const secondGate = deferred();
        const chain = scriptedChain(
          () => w.id,
          async (n, request) => {
            if (n === 1) {
              firstStarted.resolve();
              await firstGate.promise;
              throw staleError();
            }
            secondStarted.resolve();
            await secondGate.promise;
            return sandbox.sendPayout(request);
          },
        );
        // Worker A claims (attempt 1) and its chain call hangs past the lease.
        const workerA = processPayouts(deps(chain), { leaseMs, payoutTimeoutMs: 10_000 });
        await firstStarted.promise;
        await sleep(leaseMs + PAST_THE_LEASE_MS); // A's lease runs out while its call hangs
        // Worker B takes the withdrawal over (attempt 2) and starts paying it out.
        const workerB = processPayouts(deps(chain), { leaseMs, payoutTimeoutMs: 10_000 });
        await secondStarted.promise;
        assert.equal((await withdrawalRow(w.id)).attempts, 2);
        // A's error comes back while B is still paying: it must change nothing.
        firstGate.resolve();
        await workerA;
        assert.equal((await withdrawalRow(w.id)).status, 'processing');
        // An unclear error is said once, as such; a stale refusal is dropped without a word.
        assert.deepEqual(
          logged.map((line) => [line.level, line.code, line.withdrawalId]),
          staleError() instanceof PayoutError ? [] : [['error', 'payout_outcome_unknown', w.id]],
        );
        assert.equal(await entries(w.id, 'withdrawal_release'), 0);
        // B succeeds and is recorded.
        secondGate.resolve();
        await workerB;
        await assertPaidOnce(w);
      });
    }

    it('a non-PayoutError leaves the withdrawal processing; an attempt after the lease completes it', async () => {
      const w = await pendingWithdrawal();
      const leaseMs = 100;
      const chain = scriptedChain(
        () => w.id,
        async (n, request) => {
          if (n === 1) throw new Error('socket hang up');
          return sandbox.sendPayout(request);
        },
      );
      assert.ok((await processPayouts(deps(chain), { leaseMs })) >= 1);
      assert.deepEqual(
        logged.map((line) => [line.code, line.withdrawalId, line.error?.message]),
        [['payout_outcome_unknown', w.id, 'socket hang up']],
      );
      const after = await withdrawalRow(w.id);
      assert.equal(after.status, 'processing');
      assert.equal(after.attempts, 1);
      assert.equal(await entries(w.id, 'withdrawal_release'), 0);
      assert.equal(await entries(w.id, 'withdrawal_payout'), 0);
      assert.deepEqual(await balanceOf(t.url, w.key), { assetId: 'USDT', blockchainId: 'bsc', available: '6.000000', pending: '4.000000' });
      await assertLedgerMatches(t.db, w.integratorId);

      // Within the lease nobody claims it again (a lease of a minute: however slow the machine, this look is within it).
      assert.equal(await processPayouts(deps(chain), { leaseMs: 60_000 }), 0);
      assert.equal((await withdrawalRow(w.id)).attempts, 1);
      await sleep(leaseMs + PAST_THE_LEASE_MS); // the lease runs out
      assert.ok((await processPayouts(deps(chain), { leaseMs })) >= 1);
      assert.equal((await withdrawalRow(w.id)).attempts, 2);
      await assertPaidOnce(w);
    });

    it('a PayoutError still fails the withdrawal and returns the funds', async () => {
      const w = await pendingWithdrawal();
      const chain = scriptedChain(
        () => w.id,
        async () => {
          throw new PayoutError('insufficient hot wallet funds');
        },
      );
      await processPayouts(deps(chain));
      const row = await t.db.query<{ status: string; failure_reason: string }>('SELECT status, failure_reason FROM withdrawals WHERE id = $1', [w.id]);
      assert.deepEqual(row.rows[0], { status: 'failed', failure_reason: 'insufficient hot wallet funds' });
      assert.equal(await entries(w.id, 'withdrawal_release'), 1);
      assert.deepEqual(await balanceOf(t.url, w.key), { assetId: 'USDT', blockchainId: 'bsc', available: '10.000000', pending: '0.000000' });
      await assertLedgerMatches(t.db, w.integratorId);
    });

    it('a hung chain call times out (left processing) and does not hold worker.stop()', { timeout: 15_000 }, async () => {
      const w = await pendingWithdrawal();
      // Its default chain-call timeout is a fifth of it (200 ms), well past the 100 ms one asked for below.
      const leaseMs = 1000;
      const hang = new Promise<PayoutResult>(() => {});
      let started = deferred();
      const chain = scriptedChain(
        () => w.id,
        () => {
          started.resolve();
          return hang;
        },
      );
      const t0 = Date.now();
      await processPayouts(deps(chain), { leaseMs, payoutTimeoutMs: 100 });
      assert.ok(Date.now() - t0 < 1500, `processPayouts took ${Date.now() - t0} ms`);
      assert.deepEqual(
        logged.map((line) => [line.code, line.error?.message]),
        [['payout_outcome_unknown', 'The payout did not complete within 100 ms']],
      );
      assert.equal((await withdrawalRow(w.id)).status, 'processing');
      assert.equal(await entries(w.id, 'withdrawal_release'), 0);

      // A worker stuck in the same hang stops promptly (its default timeout is a fifth of the lease).
      await sleep(leaseMs + PAST_THE_LEASE_MS); // the first attempt's lease runs out
      started = deferred();
      const worker = startPayoutWorker(deps(chain), { leaseMs, pollIntervalMs: 20 });
      await started.promise;
      const t1 = Date.now();
      await worker.stop();
      assert.ok(Date.now() - t1 < leaseMs / 5 + 1000, `stop() took ${Date.now() - t1} ms`);
      assert.equal(logged.at(-1)?.error?.message, 'The payout did not complete within 200 ms', 'the worker gave up after its default timeout');
      assert.equal((await withdrawalRow(w.id)).status, 'processing');

      // The chain recovers: the next attempt after the lease pays it out once.
      await sleep(leaseMs + PAST_THE_LEASE_MS); // the worker's lease runs out
      await processPayouts(deps(sandbox), { leaseMs });
      await assertPaidOnce(w);
    });
  });
}
