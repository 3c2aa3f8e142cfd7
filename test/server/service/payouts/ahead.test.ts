/**
 * Payouts prepared ahead (anvil, instant mining, 1 confirmation): the intake hands each turn of
 * withdrawals to the payouts as its statement starts, and their dry runs and signatures are made
 * meanwhile; the worker that claims them goes straight to the nonce lock. What is stored is still
 * exactly what signing under the lock would make: a signature made ahead is kept only for the very
 * nonce it was made with. A request the intake refused, a preparation too old, one the node did not
 * answer: each costs a second signature or estimate, never a second payment.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Address } from 'viem';
import type { PayoutRequest, RealChainAdapter } from '../../../../src/server/chain/types.js';
import { createPayoutsAhead, processPayouts } from '../../../../src/server/service/payouts/index.js';
import { startService } from '../../../../src/server/service/serve.js';
import { assertLedgerMatches, countRows } from '../../../support/money.js';
import { backends, call, type TestService } from '../../../support/service.js';
import { sleep } from '../../../support/wait.js';
import {
  COSTLIEST_AMOUNT,
  costliestAddress,
  payoutChecks,
  randomAddress,
  spied,
  startPayoutService,
  waitForPayouts,
  type EvmFixture,
  type PayoutChecks,
  type PayoutService,
  type Spy,
} from '../../../support/evm-service.js';

for (const backend of backends()) {
  describe(`EVM payouts prepared while their withdrawals are recorded (${backend})`, () => {
    let setup: PayoutService;
    let f: EvmFixture;
    let hot: Address;
    let t: TestService;
    let key: string;
    let integratorId: string;
    let { withdraw, stored, payUntilDone, transfersFromHot, expected, assertNonces } = {} as PayoutChecks;

    before(async () => {
      setup = await startPayoutService(backend);
      ({ f, hot, t, key, integratorId } = setup);
      ({ withdraw, stored, payUntilDone, transfersFromHot, expected, assertNonces } = payoutChecks(setup));
    });
    after(() => setup?.close());

    /** The payout requests of withdrawals `ids`, in that order, as the intake hands them over. */
    const requestsOf = async (ids: string[]): Promise<PayoutRequest[]> => {
      const { rows } = await t.db.query<{ id: string; address: string; amount: string }>(
        'SELECT id, address, amount::text AS amount FROM withdrawals WHERE id = ANY($1)',
        [ids],
      );
      return ids.map((id) => {
        const row = rows.find((r) => r.id === id)!;
        return { withdrawalId: id, blockchainId: 'bsc', assetId: 'USDT', address: row.address, amount: row.amount };
      });
    };
    /**
     * A spied adapter that has paid a first batch (so it knows a transfer's gas and drafts ahead: the
     * costliest transfer's, so every later draft's gas covers its own), its spy then cleared.
     */
    const warmChain = async (): Promise<{ chain: RealChainAdapter; spy: Spy }> => {
      const { chain, spy } = spied(await f.adapter({ confirmations: 1 }));
      await payUntilDone(chain, [await withdraw(COSTLIEST_AMOUNT, costliestAddress()), await withdraw(COSTLIEST_AMOUNT, costliestAddress())]);
      spy.signed.length = 0;
      spy.drafts.length = 0;
      spy.prepared.length = 0;
      return { chain, spy };
    };
    /** `count` withdrawals recorded through the API, each to a fresh address. */
    const recordMany = async (count: number) => {
      const paid = Array.from({ length: count }, (_, i) => ({ to: randomAddress(), amount: `${i + 1}.25` }));
      const ids: string[] = [];
      for (const { to, amount } of paid) ids.push(await withdraw(amount, to));
      return { paid, ids };
    };

    it('what was prepared ahead is what the worker stores: no second estimate, each payout signed once with the nonce it took, and paid once', async () => {
      const { chain, spy } = await warmChain();
      try {
        const from = (await f.t.client.getBlockNumber()) + 1n;
        const start = await f.t.client.getTransactionCount({ address: hot });
        const { paid, ids } = await recordMany(6);
        const ahead = createPayoutsAhead({ db: t.db, chain });
        ahead.anticipate(await requestsOf(ids));
        await payUntilDone(chain, ids, ahead);

        assert.deepEqual(
          spy.prepared.map((batch) => batch.map((r) => r.withdrawalId)),
          [ids],
          'estimated once, ahead: the worker did not estimate them again',
        );
        const rows = await stored(ids);
        assertNonces(rows, start);
        assert.deepEqual(
          rows.map((row) => row.withdrawal_id),
          ids,
          'stored in the order they were prepared, so their signatures stand',
        );
        assert.deepEqual(
          spy.signed.map(([, nonce]) => nonce),
          rows.map((row) => row.nonce),
          'each signed once, ahead, with the nonce it took',
        );
        assert.ok(rows.every((row) => row.status === 'success'));
        assert.deepEqual(await transfersFromHot(from), expected(paid), 'one transfer per withdrawal, of its amount, and no other');
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 6);
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        await chain.close();
      }
    });

    it('a request the intake refused was prepared too: the payouts after it are signed again under the lock, each paid once, without a nonce gap', async () => {
      const { chain, spy } = await warmChain();
      try {
        const from = (await f.t.client.getBlockNumber()) + 1n;
        const start = await f.t.client.getTransactionCount({ address: hot });
        const { paid, ids } = await recordMany(3);
        const [first, ...others] = await requestsOf(ids);
        // Second in the turn: a request refused by the statement (no withdrawal was recorded for it).
        const refused: PayoutRequest = { withdrawalId: randomUUID(), blockchainId: 'bsc', assetId: 'USDT', address: randomAddress(), amount: '5' };
        const ahead = createPayoutsAhead({ db: t.db, chain });
        ahead.anticipate([first!, refused, ...others]);
        await payUntilDone(chain, ids, ahead);

        const rows = await stored(ids);
        assertNonces(rows, start);
        assert.equal(await countRows(t.db, 'payout_transactions', 'withdrawal_id = $1', [refused.withdrawalId]), 0);
        assert.deepEqual(
          spy.signed.map(([, nonce]) => nonce),
          [start, start + 1, start + 2, start + 3, start + 1, start + 2],
          'all four signed ahead (the refused one at start + 1); the two after it signed again with the nonces they took',
        );
        assert.deepEqual(await transfersFromHot(from), expected(paid), 'the refused request paid nothing, the others once');
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 3);
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        await chain.close();
      }
    });

    it('a preparation older than its time is not used, nor one the node did not answer: the worker estimates those afresh, and each is paid once', async () => {
      const { chain, spy } = await warmChain();
      try {
        const from = (await f.t.client.getBlockNumber()) + 1n;
        const start = await f.t.client.getTransactionCount({ address: hot });
        const old = await recordMany(2);
        const failed = await recordMany(2);
        const ahead = createPayoutsAhead({ db: t.db, chain }, { ttlMs: 200 });
        ahead.anticipate(await requestsOf(old.ids));
        await sleep(300); // the preparations' 200 ms run out (their age is read from the process's clock)
        // The node does not answer the second preparation.
        spy.beforePrepare = async () => {
          spy.beforePrepare = null;
          throw new Error('the node did not answer');
        };
        ahead.anticipate(await requestsOf(failed.ids));
        const ids = [...old.ids, ...failed.ids];
        await payUntilDone(chain, ids, ahead);

        const preparedIds = spy.prepared.flat().map((r) => r.withdrawalId);
        for (const id of ids) assert.equal(preparedIds.filter((x) => x === id).length, 2, 'prepared ahead, then again by the worker');
        const rows = await stored(ids);
        assertNonces(rows, start);
        assert.ok(rows.every((row) => row.status === 'success'));
        assert.deepEqual(await transfersFromHot(from), expected([...old.paid, ...failed.paid]), 'one transfer per withdrawal');
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 4);
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        await chain.close();
      }
    });

    it('a preparation that hangs (a node that does not answer) holds the worker up for no longer than its time: the worker prepares those itself, each paid once', async () => {
      const { chain, spy } = await warmChain();
      let release: () => void = () => {};
      try {
        const from = (await f.t.client.getBlockNumber()) + 1n;
        const start = await f.t.client.getTransactionCount({ address: hot });
        const { paid, ids } = await recordMany(3);
        const ahead = createPayoutsAhead({ db: t.db, chain }, { ttlMs: 400 });
        spy.beforePrepare = () => {
          spy.beforePrepare = null;
          return new Promise<void>((resolve) => (release = resolve)); // answered only after the test
        };
        ahead.anticipate(await requestsOf(ids));
        // Bounded here so that a worker waiting for ever fails the test rather than hang it.
        const handled = await Promise.race([
          processPayouts({ db: t.db, chain, now: () => new Date(), ahead }, { checkMs: 0 }),
          new Promise<'hung'>((resolve) => setTimeout(resolve, 15_000, 'hung').unref()),
        ]);
        assert.equal(handled, 3, 'the first round stored all three, although the preparation never ended');
        await payUntilDone(chain, ids, ahead);

        const preparedIds = spy.prepared.flat().map((r) => r.withdrawalId);
        for (const id of ids) assert.equal(preparedIds.filter((x) => x === id).length, 2, 'prepared ahead (hung), then by the worker');
        const rows = await stored(ids);
        assertNonces(rows, start);
        assert.ok(rows.every((row) => row.status === 'success'));
        assert.deepEqual(await transfersFromHot(from), expected(paid), 'one transfer per withdrawal');
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 3);
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        release();
        await chain.close();
      }
    });

    it('a running service: a burst of POSTs is prepared by its intake and paid by its worker, each estimated once and paid once', async () => {
      const { chain, spy } = await warmChain();
      const service = await startService({
        db: t.db,
        chain,
        rateSettings: { sources: ['static'] },
        scanner: false,
        webhookWorker: false,
        payouts: { checkMs: 20 },
      });
      try {
        const from = (await f.t.client.getBlockNumber()) + 1n;
        const start = await f.t.client.getTransactionCount({ address: hot });
        const paid = Array.from({ length: 12 }, (_, i) => ({ to: randomAddress(), amount: `${i + 1}.5` }));
        const ids = await Promise.all(
          paid.map(async ({ to, amount }) => {
            const res = await call(service.url, 'POST', '/v1/withdrawal', { key, body: { amount, address: to, blockchainId: 'bsc', assetId: 'USDT' } });
            assert.equal(res.status, 200, JSON.stringify(res.body));
            return res.body.id as string;
          }),
        );
        await waitForPayouts(
          setup,
          async () => (await countRows(t.db, 'withdrawals', "id = ANY($1) AND status = 'success'", [ids])) === ids.length,
          'the burst paid',
          { ids },
        );

        const preparedIds = spy.prepared.flat().map((r) => r.withdrawalId);
        for (const id of ids) assert.equal(preparedIds.filter((x) => x === id).length, 1, 'estimated once, while it was recorded');
        assertNonces(await stored(ids), start);
        assert.deepEqual(await transfersFromHot(from), expected(paid), 'one transfer per withdrawal, of its amount, and no other');
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 12);
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        await service.close();
        await chain.close();
      }
    });
  });
}
