/**
 * A transaction anvil queues for ever (filed under a transaction mined before it was filed): sending
 * it again answers "already known" for good, and every later payout would wait behind it. The
 * adapter has anvil drop the hot wallet's queue and sends the same bytes again (on its own, once it has
 * seen a payout in no block for 2 s while the payouts read their states); a queue that waits for a
 * real gap is left as it is. Built here as anvil's race leaves it: a queued transaction whose nonce
 * becomes the account's next without the transaction before it being filed (`anvil_setNonce`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { erc20Abi, parseUnits, type Address, type Hex } from 'viem';
import type { EvmChain } from '../../../../src/server/chain/evm/chain.js';
import { connectEvmChain } from '../../../../src/server/chain/evm/connect.js';
import { HELD_AFTER_MS, watchHeld } from '../../../../src/server/chain/evm/dev-node.js';
import { processPayouts } from '../../../../src/server/service/payouts/index.js';
import { seedNonce } from '../../../../src/server/service/payouts/repository.js';
import { assertLedgerMatches, eventually } from '../../../support/money.js';
import { backends } from '../../../support/service.js';
import { payoutChecks, payoutState, randomAddress, startEvmFixture, startPayoutService, type EvmFixture } from '../../../support/evm-service.js';

/** A JSON-RPC call to the fixture's node. */
const rpc = (f: EvmFixture, method: string, params: unknown[]) => f.t.rpc(method, params);

/** The nonces of `sender`'s transactions in the node's queue (waiting for an earlier one). */
async function queuedNonces(f: EvmFixture, sender: Address): Promise<number[]> {
  const { queued } = (await rpc(f, 'txpool_content', [])) as { queued: Record<string, Record<string, { nonce: Hex }>> };
  const mine = Object.entries(queued).find(([address]) => address.toLowerCase() === sender.toLowerCase())?.[1] ?? {};
  return Object.values(mine)
    .map((tx) => Number(tx.nonce))
    .sort((a, b) => a - b);
}

/** Queues `signed` (nonce `next + 1`) behind a gap, then moves the account's nonce past the gap: anvil's stuck state. */
async function strand(f: EvmFixture, hot: Address, next: number, send: () => Promise<unknown>): Promise<void> {
  await send();
  assert.deepEqual(await queuedNonces(f, hot), [next + 1], 'queued behind the gap');
  await rpc(f, 'anvil_setNonce', [hot, `0x${(next + 1).toString(16)}`]);
  // A block mined since: the node had its chance to take the transaction, and left it queued.
  await f.t.mine(1);
  assert.equal(await f.t.client.getTransactionCount({ address: hot }), next + 1, 'nothing mined: the nonce is only set');
  assert.deepEqual(await queuedNonces(f, hot), [next + 1], 'still queued, although its nonce is the next: stuck');
}

describe("the adapter's watch on transactions in no block", () => {
  it('releases once a transaction has been seen in no block for 2 s, at most once per 2 s, never for one mined', async () => {
    let clock = 0;
    const released: number[] = [];
    const failures: unknown[] = [];
    let fail = false;
    const seen = watchHeld(
      async () => {
        released.push(clock);
        if (fail) throw new Error('node down');
      },
      (error) => failures.push(error),
      () => clock,
    );
    await seen(['0xa'], []);
    clock = HELD_AFTER_MS - 1;
    await seen(['0xa'], []);
    assert.deepEqual(released, [], 'not yet 2 s in no block');
    clock = HELD_AFTER_MS;
    await seen(['0xa'], []);
    assert.deepEqual(released, [HELD_AFTER_MS], 'released once it stayed in no block for 2 s');
    clock += 1;
    await seen(['0xa'], []);
    assert.deepEqual(released, [HELD_AFTER_MS], 'at most once per 2 s');
    await seen(['0xb'], ['0xa']);
    clock += 2 * HELD_AFTER_MS;
    await seen([], ['0xb']);
    assert.deepEqual(released, [HELD_AFTER_MS], 'mined: nothing to release');
    fail = true;
    await seen(['0xc'], []);
    clock += HELD_AFTER_MS;
    await seen(['0xc'], []);
    assert.equal(released.length, 2);
    assert.equal((failures[0] as Error).message, 'node down', 'a failed release is told, not thrown');
  });
});

describe('a transaction anvil queues for ever', () => {
  let f: EvmFixture;
  let chain: EvmChain;
  let hot: Address;

  before(async () => {
    f = await startEvmFixture();
    chain = await connectEvmChain(f.t.config({ tokens: { USDT: f.usdt }, confirmations: 1 }), { timeoutMs: 2_000 });
    hot = chain.hotWallet!;
    await f.t.mint(f.usdt, hot, parseUnits('1000', 18));
  });
  after(async () => {
    await chain?.close();
    await f?.stop();
  });

  it('released: its queue is dropped and the same bytes are mined, once', async () => {
    const to = randomAddress();
    const next = await chain.pendingNonce();
    const signed = await chain.signTokenTransfer({ nonce: next + 1, assetId: 'USDT', to, amount: '2.5' });
    await strand(f, hot, next, () => chain.broadcast(signed.rawTransaction));
    assert.equal((await chain.broadcast(signed.rawTransaction)).outcome, 'already_known', 'sending it again does nothing');
    assert.deepEqual(await queuedNonces(f, hot), [next + 1]);

    assert.equal(await chain.releaseQueued(), 1, 'sent again: one transaction');
    await eventually(async () => (await chain.receipt(signed.txHash)).status === 'success', 5_000, 'the stuck transfer mined');
    assert.equal(await f.t.client.getTransactionCount({ address: hot }), next + 2);
    const balance = await f.t.client.readContract({ address: f.usdt, abi: erc20Abi, functionName: 'balanceOf', args: [to] });
    assert.equal(balance, parseUnits('2.5', 18), 'paid once, by the very transaction signed');
    assert.deepEqual(await queuedNonces(f, hot), []);
  });

  it('a queue that waits for a real gap is left as it is', async () => {
    const next = await chain.pendingNonce();
    const later = await chain.signTokenTransfer({ nonce: next + 1, assetId: 'USDT', to: randomAddress(), amount: '1' });
    assert.equal((await chain.broadcast(later.rawTransaction)).outcome, 'sent');
    assert.equal(await chain.releaseQueued(), 0);
    assert.deepEqual(await queuedNonces(f, hot), [next + 1], 'still queued: the transaction before it has not come yet');
    const first = await chain.signTokenTransfer({ nonce: next, assetId: 'USDT', to: randomAddress(), amount: '1' });
    await chain.broadcast(first.rawTransaction);
    await eventually(async () => (await chain.receipt(later.txHash)).status === 'success', 5_000, 'both mined once the gap is filled');
    assert.equal(await f.t.client.getTransactionCount({ address: hot }), next + 2);
  });

  it("the test chain's own transfer that the node holds but does not mine: after a while a block is mined for it", async () => {
    const to = randomAddress();
    await f.t.setAutomine(false); // the node keeps what it is sent
    try {
      // Held past its wait (shortened from the 10 s every other transfer gets): a block is mined for it.
      await f.t.sendToken(f.payers[1]!, f.usdt, to, 2n, { heldAfterMs: 300 });
    } finally {
      await f.t.setAutomine(true);
    }
    const balance = await f.t.client.readContract({ address: f.usdt, abi: erc20Abi, functionName: 'balanceOf', args: [to] });
    assert.equal(balance, 2n, 'mined, once');
  });
});

for (const backend of backends()) {
  describe(`a payout anvil queues for ever (${backend})`, () => {
    it('is sent again once it has been in no block for 2 s, with the same bytes, and its withdrawal succeeds, paid once', async () => {
      const setup = await startPayoutService(backend);
      const { f, t, hot, chain, integratorId } = setup;
      try {
        const { withdraw, stored, transfersFromHot, expected } = payoutChecks(setup);
        const next = await f.t.client.getTransactionCount({ address: hot, blockTag: 'pending' });
        // The service's sequence one ahead of the chain: its payout is queued behind a gap, then stranded.
        await seedNonce(t.db, 'bsc', hot, next + 1, new Date());
        const to = randomAddress();
        const id = await withdraw('3.5', to);
        const from = (await f.t.client.getBlockNumber()) + 1n;
        await strand(f, hot, next, () => processPayouts({ db: t.db, chain, now: () => new Date() }, { checkMs: 0 }));
        const [row] = await stored([id]);
        assert.equal(row?.nonce, next + 1);

        // The service's own re-broadcast time (15 s) is not waited for: a payout in no block 2 s after it was sent is enough.
        const rounds = () => processPayouts({ db: t.db, chain, now: () => new Date() }, { checkMs: 0 });
        await eventually(
          async () => {
            await rounds();
            return (await stored([id]))[0]?.status === 'success';
          },
          8_000,
          'the stranded payout mined',
          () => payoutState(setup, [id]),
        );
        const rows = await stored([id]);
        assert.equal(rows.length, 1, 'one stored transaction: never signed again');
        assert.equal(rows[0]!.raw_transaction, row!.raw_transaction);
        assert.deepEqual(await transfersFromHot(from), expected([{ to, amount: '3.5' }]), 'paid once');
        await assertLedgerMatches(t.db, integratorId);
      } finally {
        await setup.close();
      }
    });
  });
}
