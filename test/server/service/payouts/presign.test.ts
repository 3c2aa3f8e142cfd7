/**
 * A batch of payouts is signed while its transfers' gas is estimated (anvil, instant mining, 1
 * confirmation): each draft priced with the gas its token's transfers needed in the batch before,
 * with the nonce the batch will most likely take. What is stored is still exactly what signing under
 * the nonce lock would make: a signature made ahead is kept only for the very transaction and nonce
 * it was made with. Another sender taking a nonce first, a transfer of the batch that would revert,
 * and a transfer that needs more gas than its draft each get a signature of their own, and nobody is
 * paid twice.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseTransaction, parseUnits, type Address, type Hex } from 'viem';
import type { RealChainAdapter } from '../../../../src/server/chain/types.js';
import { sendStoredGasTopUp } from '../../../../src/server/service/payouts/index.js';
import { assertLedgerMatches, balanceOf } from '../../../support/money.js';
import { backends, call, type TestService } from '../../../support/service.js';
import {
  COSTLIEST_AMOUNT,
  costliestAddress,
  creditDirectly,
  payoutChecks,
  randomAddress,
  spied,
  startPayoutService,
  type EvmFixture,
  type PayoutChecks,
  type PayoutService,
} from '../../../support/evm-service.js';

for (const backend of backends()) {
  describe(`EVM payouts signed while they are estimated (${backend})`, () => {
    let setup: PayoutService;
    let f: EvmFixture;
    let base: RealChainAdapter;
    let hot: Address;
    let t: TestService;
    let key: string;
    let integratorId: string;
    /** An address that holds USDT already: a transfer to it needs less gas than one to a fresh address. */
    let holder: Address;
    let { withdraw, stored, payUntilDone, transfersFromHot, expected, assertNonces } = {} as PayoutChecks;

    before(async () => {
      setup = await startPayoutService(backend);
      ({ f, chain: base, hot, t, key, integratorId } = setup);
      ({ withdraw, stored, payUntilDone, transfersFromHot, expected, assertNonces } = payoutChecks(setup));
      await f.t.mint(f.cngn, hot, parseUnits('1000000', 6));
      holder = f.t.accounts[7]!;
      await f.t.mint(f.usdt, holder, parseUnits('1', 18));
      await creditDirectly(t, base, key, '100', 'CNGN');
    });
    after(() => setup?.close());

    const statusOf = async (id: string) => (await call(t.url, 'GET', `/v1/withdrawal/${id}`, { key })).body as { status: string; failureReason?: string };
    /**
     * A first batch on `chain`, so that its adapter knows the gas of a USDT transfer to a fresh address:
     * the costliest one (no zero byte in its address or amount), so every later draft's gas covers its own.
     */
    const warmUp = async (chain: RealChainAdapter) => {
      const ids = [await withdraw(COSTLIEST_AMOUNT, costliestAddress()), await withdraw(COSTLIEST_AMOUNT, costliestAddress())];
      await payUntilDone(chain, ids);
    };

    it('signs a batch while its gas is estimated: each payout signed once, with the nonce it took, and paid once', async () => {
      const { chain, spy } = spied(await f.adapter({ confirmations: 1 }));
      try {
        await warmUp(chain);
        spy.signed.length = 0;
        spy.drafts.length = 0;
        const from = (await f.t.client.getBlockNumber()) + 1n;
        const start = await f.t.client.getTransactionCount({ address: hot });
        const paid = Array.from({ length: 6 }, (_, i) => ({ to: randomAddress(), amount: `${i + 1}.5` }));
        const ids: string[] = [];
        for (const { to, amount } of paid) ids.push(await withdraw(amount, to));
        await payUntilDone(chain, ids);

        assert.equal(spy.drafts.length, 1, 'the batch was drafted once, ahead of its estimates');
        assert.equal(spy.drafts[0]!.filter(Boolean).length, 6);
        const rows = await stored(ids);
        assertNonces(rows, start);
        assert.deepEqual(
          spy.signed.map(([, nonce]) => nonce),
          rows.map((row) => row.nonce),
          'each payout signed once, ahead, with the nonce it took: nothing signed again under the lock',
        );
        assert.deepEqual(
          spy.signed.map(([prepared]) => prepared),
          spy.drafts[0],
          'the drafts themselves were signed',
        );
        assert.ok(rows.every((row) => row.status === 'success'));
        assert.deepEqual(await transfersFromHot(from), expected(paid), 'one transfer per withdrawal, of its amount, and no other');
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 6);
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        await chain.close();
      }
    });

    it('another sender takes a nonce between the guess and the lock: the batch is signed again with the nonces it takes, and nobody is paid twice', async () => {
      const { chain, spy } = spied(await f.adapter({ confirmations: 1 }));
      try {
        await warmUp(chain);
        spy.signed.length = 0;
        const from = (await f.t.client.getBlockNumber()) + 1n;
        const start = await f.t.client.getTransactionCount({ address: hot });
        const paid = Array.from({ length: 4 }, (_, i) => ({ to: randomAddress(), amount: `${i + 2}` }));
        const ids: string[] = [];
        for (const { to, amount } of paid) ids.push(await withdraw(amount, to));
        // A gas top-up (`paylink sweep`) takes the next nonce once the batch has read it as its guess.
        const topUpTo = randomAddress();
        let topUp: string | undefined;
        spy.beforePrepare = async () => {
          spy.beforePrepare = null;
          topUp = await sendStoredGasTopUp({ db: t.db, chain, now: () => new Date() }, 'bsc', topUpTo, 1_000n);
        };
        await payUntilDone(chain, ids);

        assert.ok(topUp, 'the top-up went first');
        const topUpRow = await t.db.query<{ nonce: number }>(
          "SELECT nonce::int AS nonce FROM payout_transactions WHERE tx_hash = $1 AND purpose = 'gas_top_up'",
          [topUp],
        );
        assert.deepEqual(topUpRow.rows, [{ nonce: start }], 'the top-up took the nonce the batch had guessed first');
        const rows = await stored(ids);
        assertNonces(rows, start + 1);
        const transfers = spy.signed.filter(([prepared]) => prepared.description.startsWith('transfer')).map(([, nonce]) => nonce);
        assert.deepEqual(
          transfers,
          [...rows.map((_, i) => start + i), ...rows.map((row) => row.nonce)],
          'signed ahead with the nonces the batch guessed, then again, each with the nonce it took',
        );
        assert.ok(rows.every((row) => row.status === 'success'));
        assert.deepEqual(await transfersFromHot(from), expected(paid), 'one transfer per withdrawal, of its amount, and no other');
        assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 5, 'the top-up and the four payouts, no nonce used twice');
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        await chain.close();
      }
    });

    it('a transfer of a batch signed ahead would revert: it fails at once with the funds back and no nonce, the others are paid once', async () => {
      const { chain, spy } = spied(await f.adapter({ confirmations: 1 }));
      try {
        // The adapter knows the gas of both tokens' transfers: every payout of the next batch is drafted.
        const warm = [await withdraw('1', randomAddress()), await withdraw('1', randomAddress(), 'CNGN')];
        await payUntilDone(chain, warm);
        spy.drafts.length = 0;
        const from = (await f.t.client.getBlockNumber()) + 1n;
        const start = await f.t.client.getTransactionCount({ address: hot });
        const cngnBefore = (await balanceOf(t.url, key, 'CNGN')).available;
        await f.t.setTokenPaused(f.cngn, true);
        try {
          const paid = [
            { to: randomAddress(), amount: '1.25' },
            { to: randomAddress(), amount: '2.25' },
            { to: randomAddress(), amount: '3.25' },
          ];
          // The CNGN payout second in the batch: the ones after it take a nonce lower than they guessed.
          const ids = [
            await withdraw(paid[0]!.amount, paid[0]!.to),
            await withdraw('2', randomAddress(), 'CNGN'),
            await withdraw(paid[1]!.amount, paid[1]!.to),
            await withdraw(paid[2]!.amount, paid[2]!.to),
          ];
          await payUntilDone(chain, ids);

          assert.equal(spy.drafts[0]?.filter(Boolean).length, 4, 'all four were drafted and signed ahead');
          const failed = await statusOf(ids[1]!);
          assert.equal(failed.status, 'failed');
          assert.match(failed.failureReason ?? '', /cannot be sent.*revert/i);
          assert.equal((await balanceOf(t.url, key, 'CNGN')).available, cngnBefore, 'its funds are back');
          const rows = await stored(ids);
          assert.deepEqual(
            rows.map((row) => row.withdrawal_id).sort(),
            [ids[0], ids[2], ids[3]].sort(),
            'no transaction stored for the transfer that would revert',
          );
          assertNonces(rows, start);
          assert.ok(rows.every((row) => row.status === 'success'));
          assert.deepEqual(await transfersFromHot(from), expected(paid), 'one transfer per USDT withdrawal, of its amount, and no other');
          assert.deepEqual(await transfersFromHot(from, f.cngn), [], 'no CNGN moved');
          assert.equal(await f.t.client.getTransactionCount({ address: hot }), start + 3, 'no nonce taken by the failed one');
          await assertLedgerMatches(t.db, integratorId);
        } finally {
          await f.t.setTokenPaused(f.cngn, false);
        }
      } finally {
        await chain.close();
      }
    });

    it('a transfer that needs more gas than its draft gets a transaction of its own, with the gas of its estimate', async () => {
      const { chain, spy } = spied(await f.adapter({ confirmations: 1 }));
      try {
        // A batch of transfers to a holder: the gas remembered for USDT is that of the cheaper transfer.
        await payUntilDone(chain, [await withdraw('1', holder), await withdraw('1', holder)]);
        spy.drafts.length = 0;
        spy.signed.length = 0;
        const from = (await f.t.client.getBlockNumber()) + 1n;
        const fresh = randomAddress();
        const paid = [
          { to: holder, amount: '1.5' },
          { to: fresh, amount: '2.5' },
        ];
        const ids = [await withdraw(paid[0]!.amount, paid[0]!.to), await withdraw(paid[1]!.amount, paid[1]!.to)];
        await payUntilDone(chain, ids);

        const drafts = spy.drafts[0]!;
        assert.equal(drafts.filter(Boolean).length, 2, 'both were drafted');
        const rows = await stored(ids);
        const [toHolder, toFresh] = ids.map((id) => parseTransaction(rows.find((row) => row.withdrawal_id === id)!.raw_transaction as Hex));
        assert.equal(spy.signed.length, 3, 'both signed ahead, the one to the fresh address signed again');
        assert.ok(toFresh!.gas! > toHolder!.gas!, `the fresh address's transfer has the gas of its own estimate (${toFresh!.gas} > ${toHolder!.gas})`);
        const receipt = await f.t.client.getTransactionReceipt({
          hash: (await t.db.query<{ tx_hash: Hex }>('SELECT tx_hash FROM payout_transactions WHERE withdrawal_id = $1', [ids[1]])).rows[0]!.tx_hash,
        });
        assert.equal(receipt.status, 'success');
        assert.ok(receipt.gasUsed > toHolder!.gas!, 'the draft would not have had gas enough');
        assert.deepEqual(await transfersFromHot(from), expected(paid));
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        await chain.close();
      }
    });
  });
}
