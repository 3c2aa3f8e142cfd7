/**
 * Money in through the service on a real chain: a customer's ERC-20 transfer to a
 * session's deposit address makes it `confirming` with its confirmations in the public read (and an
 * SSE event per change), and is credited once at N confirmations through the usual settlement:
 * paid, underpaid then paid, overpaid, paid in time though confirmed after expiry, late after it.
 * Two payments in one block and one transaction paying two sessions are each credited; another
 * token, another address or another asset are not; a transfer a reorg removes is never credited,
 * one a reorg moves is credited once; a scanner that stops mid-scan (or whose commit fails) misses
 * nothing and counts nothing twice; an unpaid session does not expire before the scanner has read
 * the chain up to its expiry. The scanner is driven round by round here; the running loop is
 * covered by the fault tests (evm-service-faults.test.ts).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { encodeFunctionData, parseUnits, type Address, type Hex } from 'viem';
import type { ChainAdapter } from '../../../../src/server/chain/types.js';
import type { Database } from '../../../../src/server/db/index.js';
import { TEST_TOKEN_ABI } from '../../../../src/server/chain/evm/test-token.js';
import { applyRetention } from '../../../../src/server/service/retention.js';
import { assertLedgerMatches, balanceOf, countRows, createUsdLink, openEventStream, startSession, testClock } from '../../../support/money.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';
import { manualScanner, readSession, startEvmFixture, type EvmFixture } from '../../../support/evm-service.js';

const MINUTE = 60_000;

for (const backend of backends()) {
  describe(`EVM money in through the service (${backend})`, () => {
    let f: EvmFixture;
    let chain: ChainAdapter;
    let t: TestService;
    let key: string;
    let integratorId: string;
    // Moves forward only (the scanner's coverage of the chain follows it, and never goes back).
    const clock = testClock();
    let scanner: ReturnType<typeof manualScanner>;
    /** One scanner round per call, as many as asked. */
    const scan = async (rounds = 1) => {
      for (let i = 0; i < rounds; i++) await scanner.runOnce();
    };

    before(async () => {
      f = await startEvmFixture();
      chain = await f.adapter({ confirmations: 3 });
      t = await startTestService(backend, { chain, now: clock.now, payoutWorker: false, scanner: false, webhookWorker: false, sseHeartbeatMs: 60_000 });
      ({ key, integratorId } = await t.newKey());
      // An endpoint that listens (its deliveries are not sent here: the worker is off), so the webhook outbox is written.
      await t.db.query(
        `INSERT INTO webhook_endpoints (id, integrator_id, url, events, secret, created_at, updated_at) VALUES ($1, $2, 'https://merchant.example/hook', $3, 'whsec_test', now(), now())`,
        [randomUUID(), integratorId, ['checkout.session.paid', 'checkout.session.underpaid', 'payment.late']],
      );
      scanner = manualScanner({ db: t.db, chain, now: clock.now });
    });
    after(async () => {
      await t?.close();
      await chain?.close?.();
      await f?.stop();
    });

    const newSession = async (amount: string, assetId: 'USDT' | 'CNGN' = 'USDT') => {
      const slug = await createUsdLink(t.url, key, amount);
      const session = await startSession(t.url, slug, { assetId });
      return { ...session, slug } as { id: string; payAddress: string; cryptoAmount: string; slug: string; expiresAt: string };
    };
    const credited = async (sessionId: string) => countRows(t.db, 'chain_transfers', 'session_id = $1', [sessionId]);

    it('derives each session its own deposit address from the xpub, index by index from a database sequence', async () => {
      const a = await newSession('1');
      const b = await newSession('1');
      const rows = (
        await t.db.query<{ id: string; deposit_index: string }>('SELECT id, deposit_index::text FROM checkout_sessions WHERE id = ANY($1)', [[a.id, b.id]])
      ).rows;
      const index = (id: string) => Number(rows.find((r) => r.id === id)!.deposit_index);
      assert.equal(index(b.id), index(a.id) + 1);
      const evm = (await import('../../../../src/server/chain/evm/addresses.js')).depositAddresses((await import('../../../support/anvil.js')).DEPOSIT_XPUB);
      assert.equal(a.payAddress, evm.address(index(a.id)));
      assert.equal(b.payAddress, evm.address(index(b.id)));
      const view = await readSession(t.url, a.id);
      assert.equal(view.sandbox, false);
      assert.equal(view.chainId, 31337);
      assert.equal(view.tokenAddress, f.usdt);
      assert.equal(view.tokenDecimals, 18);
      assert.equal(
        (await call(t.url, 'POST', `/v1/checkout/sessions/${a.id}/simulate-payment`, { body: {} })).status,
        404,
        'no simulated payments on a real chain',
      );
    });

    it('a payment of exactly the amount is confirming with its count, then paid at 3 confirmations, credited once', async () => {
      const session = await newSession('5');
      const stream = await openEventStream(`${t.url}/v1/checkout/sessions/${session.id}/events`);
      try {
        assert.equal(JSON.parse((await stream.next()).data).status, 'awaiting_payment');
        // The stream's events, read as each change is made: the stream tells the state it reads when told
        // of a change, so two changes made faster than it reads may reach it as one (the latest).
        const seen: Array<[string, number | null]> = [];
        const nextEvent = async () => {
          const event = JSON.parse((await stream.next()).data);
          seen.push([event.status, event.confirmations]);
        };
        const before = await balanceOf(t.url, key);
        const hash = await f.pay(session.payAddress, 'USDT', '5');
        await scan();
        let view = await readSession(t.url, session.id);
        assert.equal(view.status, 'confirming');
        assert.equal(view.confirmations, 1);
        assert.equal(view.requiredConfirmations, 3);
        assert.equal(view.txHash, hash, 'the transfer being confirmed is shown while confirming');
        assert.equal(view.paidAmount, '0.000000', 'nothing counts before its confirmations');
        assert.equal((await balanceOf(t.url, key)).available, before?.available ?? undefined);
        await nextEvent();

        await f.t.mine(1);
        await scan();
        view = await readSession(t.url, session.id);
        assert.deepEqual([view.status, view.confirmations], ['confirming', 2]);
        await nextEvent();

        await f.t.mine(1);
        await scan(3);
        view = await readSession(t.url, session.id);
        assert.equal(view.status, 'paid');
        assert.equal(view.paidAmount, '5.000000');
        assert.equal(view.txHash, hash);
        assert.equal(view.confirmations, null);
        assert.equal(await credited(session.id), 1);
        // Credited, and pending until its block is final.
        assert.equal((await balanceOf(t.url, key)).pending, (Number(before?.pending ?? 0) + 5).toFixed(6));

        await nextEvent();
        assert.deepEqual(
          seen,
          [
            ['confirming', 1],
            ['confirming', 2],
            ['paid', null],
          ],
          'one SSE status event per change',
        );
        const webhooks = await t.db.query<{ type: string; body: string }>(
          "SELECT type, body FROM webhook_events WHERE body::jsonb -> 'data' -> 'object' ->> 'id' = $1",
          [session.id],
        );
        assert.deepEqual(
          webhooks.rows.map((row) => row.type),
          ['checkout.session.paid'],
          'the merchant hears of it once, when it is paid',
        );
        const object = JSON.parse(webhooks.rows[0]!.body).data.object;
        assert.deepEqual([object.status, object.paidAmount], ['paid', '5.000000']);
        const count = await t.db.query<{ n: number }>('SELECT payment_count::int AS n FROM payment_links WHERE slug = $1', [session.slug]);
        assert.equal(count.rows[0]!.n, 1);
      } finally {
        stream.close();
      }
    });

    it('less, then the rest: underpaid, then paid; more: overpaid', async () => {
      const short = await newSession('5');
      await f.pay(short.payAddress, 'USDT', '2');
      await f.t.mine(2);
      await scan(2);
      let view = await readSession(t.url, short.id);
      assert.deepEqual([view.status, view.paidAmount, view.remainingAmount], ['underpaid', '2.000000', '3.000000']);
      await f.pay(short.payAddress, 'USDT', '3');
      await scan();
      assert.equal((await readSession(t.url, short.id)).status, 'confirming');
      await f.t.mine(2);
      await scan(2);
      view = await readSession(t.url, short.id);
      assert.deepEqual([view.status, view.paidAmount], ['paid', '5.000000']);

      const over = await newSession('5', 'CNGN');
      await f.pay(over.payAddress, 'CNGN', '8000');
      await f.t.mine(2);
      await scan(2);
      view = await readSession(t.url, over.id);
      assert.equal(view.cryptoAmount, '7750.000000');
      assert.deepEqual([view.status, view.paidAmount], ['overpaid', '8000.000000']);
      await assertLedgerMatches(t.db, integratorId);
    });

    it('credits an 18-decimal amount rounded down to 0.000001, never more; a transfer below 0.000001 credits nothing', async () => {
      const session = await newSession('5');
      // 5 USDT and 1 wei: the wei is dust the ledger cannot hold.
      await f.t.sendToken(f.payers[0]!, f.usdt, session.payAddress as Address, parseUnits('5', 18) + 1n);
      await f.t.mine(2);
      await scan(2);
      const view = await readSession(t.url, session.id);
      assert.deepEqual([view.status, view.paidAmount], ['paid', '5.000000']);
      const stored = await t.db.query<{ amount: string }>('SELECT amount::text FROM incoming_transfers WHERE session_id = $1', [session.id]);
      assert.equal(stored.rows[0]!.amount, '5.000000000000000001', 'the exact amount received is kept');

      const dust = await newSession('5');
      await f.t.sendToken(f.payers[0]!, f.usdt, dust.payAddress as Address, 999_999_999_999n); // 0.000000999… USDT
      await scan();
      assert.equal((await readSession(t.url, dust.id)).status, 'confirming');
      await f.t.mine(2);
      await scan(2);
      const after = await readSession(t.url, dust.id);
      assert.deepEqual([after.status, after.paidAmount], ['awaiting_payment', '0.000000']);
      assert.equal(await credited(dust.id), 0);
      assert.equal(await countRows(t.db, 'incoming_transfers', "session_id = $1 AND status = 'ignored'", [dust.id]), 1);

      // Retention deletes never-paid sessions, but not one an on-chain transfer reached:
      // its transfer record stays, and so does the session it points to.
      const unpaid = await newSession('5');
      await t.db.query(`UPDATE checkout_sessions SET status = 'expired', expires_at = $2 WHERE id = ANY($1)`, [
        [dust.id, unpaid.id],
        new Date(clock.now().getTime() - MINUTE),
      ]);
      await applyRetention(t.db, new Date(clock.now().getTime() + 31 * 24 * 60 * MINUTE), 30);
      assert.equal(await countRows(t.db, 'checkout_sessions', 'id = $1', [unpaid.id]), 0, 'a session nothing reached is deleted');
      assert.equal(await countRows(t.db, 'checkout_sessions', 'id = $1', [dust.id]), 1, 'the dust-paid session stays');
      assert.equal(await countRows(t.db, 'incoming_transfers', 'session_id = $1', [dust.id]), 1);
    });

    it('a transfer made before expiry and confirmed after it is paid in time; one made after expiry is late', async () => {
      const session = await newSession('5');
      await f.pay(session.payAddress, 'USDT', '5');
      await scan();
      assert.equal((await readSession(t.url, session.id)).status, 'confirming');
      clock.advance(20 * MINUTE); // the quote runs out while the transfer confirms
      assert.equal((await readSession(t.url, session.id)).status, 'confirming', 'a confirming session does not expire');
      await f.t.mine(2);
      await scan(2);
      const view = await readSession(t.url, session.id);
      assert.deepEqual([view.status, view.paidAmount], ['paid', '5.000000']);

      // A session whose quote ran out a minute before the customer paid (block times are the chain's own clock).
      const old = await newSession('5');
      await t.db.query('UPDATE checkout_sessions SET expires_at = $2 WHERE id = $1', [old.id, new Date(Date.now() - MINUTE)]);
      await f.pay(old.payAddress, 'USDT', '5');
      await scan();
      assert.equal((await readSession(t.url, old.id)).status, 'expired', 'a late transfer does not make an expired session confirming');
      await f.t.mine(2);
      await scan(2);
      const late = await readSession(t.url, old.id);
      assert.deepEqual([late.status, late.paidAmount], ['expired', '0.000000']);
      const row = await t.db.query<{ kind: string; amount: string }>('SELECT kind, amount::text FROM chain_transfers WHERE session_id = $1', [old.id]);
      assert.deepEqual(row.rows, [{ kind: 'late_payment', amount: '5.000000' }], 'the money is credited, as a late payment');
      await assertLedgerMatches(t.db, integratorId);
    });

    it('an unpaid session expires only once the scanner has read the chain past its expiry', async () => {
      const session = await newSession('5');
      await scan();
      clock.advance(20 * MINUTE);
      assert.equal((await readSession(t.url, session.id)).status, 'awaiting_payment', 'not read up to its expiry yet: a transfer may be unseen');
      await scan();
      assert.equal((await readSession(t.url, session.id)).status, 'expired');
    });

    it('credits two payments mined in one block, and one transaction that pays two sessions', async () => {
      const a = await newSession('5');
      const b = await newSession('7');
      await f.t.setAutomine(false);
      try {
        await f.t.sendToken(f.payers[0]!, f.usdt, a.payAddress as Address, f.units('USDT', '5'), { mined: false });
        await f.t.sendToken(f.payers[1]!, f.usdt, b.payAddress as Address, f.units('USDT', '7'), { mined: false });
        await f.t.mine(1);
      } finally {
        await f.t.setAutomine(true);
      }
      const blocks = await t.db.query<{ block_number: number }>('SELECT DISTINCT block_number FROM incoming_transfers WHERE session_id = ANY($1)', [
        [a.id, b.id],
      ]);
      assert.equal(blocks.rows.length, 0, 'not scanned yet');
      await f.t.mine(2);
      await scan(2);
      assert.equal(
        (await t.db.query('SELECT DISTINCT block_number FROM incoming_transfers WHERE session_id = ANY($1)', [[a.id, b.id]])).rows.length,
        1,
        'one block',
      );
      assert.equal((await readSession(t.url, a.id)).status, 'paid');
      assert.equal((await readSession(t.url, b.id)).status, 'paid');

      const c = await newSession('2');
      const d = await newSession('3');
      const wallet = (await import('viem')).createWalletClient({ account: f.payers[2]!, transport: (await import('viem')).http(f.t.url) });
      const batch = await wallet.sendTransaction({
        chain: null,
        to: f.usdt,
        data: encodeFunctionData({
          abi: TEST_TOKEN_ABI,
          functionName: 'transferBatch',
          args: [
            [c.payAddress as Address, d.payAddress as Address],
            [f.units('USDT', '2'), f.units('USDT', '3')],
          ],
        }),
      });
      await f.t.mined(batch);
      await f.t.mine(2);
      await scan(2);
      assert.equal((await readSession(t.url, c.id)).status, 'paid');
      assert.equal((await readSession(t.url, d.id)).status, 'paid');
      const rows = await t.db.query<{ tx_hash: string }>('SELECT tx_hash FROM chain_transfers WHERE session_id = ANY($1)', [[c.id, d.id]]);
      assert.deepEqual(
        rows.rows.map((r) => r.tx_hash),
        [batch, batch],
        'one transaction, two transfers, two credits',
      );
    });

    it('ignores another token, another address, and the other configured asset', async () => {
      const session = await newSession('5');
      await f.t.sendToken(f.payers[0]!, f.other, session.payAddress as Address, parseUnits('5', 18));
      await f.pay('0x00000000000000000000000000000000000000b0', 'USDT', '5');
      await f.pay(session.payAddress, 'CNGN', '7750');
      await f.t.mine(3);
      await scan(3);
      const view = await readSession(t.url, session.id);
      assert.deepEqual([view.status, view.paidAmount], ['awaiting_payment', '0.000000']);
      assert.equal(await credited(session.id), 0);
      assert.equal(await countRows(t.db, 'incoming_transfers', 'session_id = $1', [session.id]), 0);
    });

    it('never credits a transfer a reorg removes before its confirmations; the session goes back to awaiting payment', async () => {
      const session = await newSession('5');
      await f.t.mine(1);
      await f.pay(session.payAddress, 'USDT', '5');
      await scan();
      assert.equal((await readSession(t.url, session.id)).status, 'confirming');
      await f.t.reorg(1); // the block holding the transfer is replaced by an empty one; anvil drops the transaction
      await f.t.mine(3);
      await scan(3);
      const view = await readSession(t.url, session.id);
      assert.deepEqual([view.status, view.paidAmount, view.confirmations], ['awaiting_payment', '0.000000', null]);
      assert.equal(await credited(session.id), 0);
      assert.equal(await countRows(t.db, 'incoming_transfers', "session_id = $1 AND status = 'gone'", [session.id]), 1);
    });

    it('credits once a transfer a reorg moves to another block', async () => {
      const session = await newSession('5');
      await f.t.mine(2);
      const payer = f.t.devAccount(3);
      const nonce = await f.t.client.getTransactionCount({ address: payer.address });
      const raw: Hex = await f.t.signTokenTransfer(3, f.usdt, session.payAddress as Address, f.units('USDT', '5'), nonce);
      const hash = await f.t.client.sendRawTransaction({ serializedTransaction: raw });
      await f.t.mined(hash);
      await scan();
      const first = (
        await t.db.query<{ block_number: number; block_hash: string }>('SELECT block_number::int, block_hash FROM incoming_transfers WHERE session_id = $1', [
          session.id,
        ])
      ).rows[0]!;
      // Replace the last two blocks: the transfer lands one block lower, in a block with another hash.
      await f.t.reorg(2, [{ raw, blockOffset: 0 }]);
      await scan();
      const moved = (
        await t.db.query<{ block_number: number; block_hash: string; status: string }>(
          'SELECT block_number::int, block_hash, status FROM incoming_transfers WHERE session_id = $1',
          [session.id],
        )
      ).rows;
      assert.equal(moved.length, 1);
      assert.equal(moved[0]!.block_number, first.block_number - 1, 'followed to its new block');
      assert.notEqual(moved[0]!.block_hash, first.block_hash);
      await f.t.mine(2);
      await scan(3);
      const view = await readSession(t.url, session.id);
      assert.deepEqual([view.status, view.paidAmount, view.txHash], ['paid', '5.000000', hash]);
      assert.equal(await credited(session.id), 1);
      await assertLedgerMatches(t.db, integratorId);
    });

    it('a scanner stopped mid-scan, or whose commit fails, misses nothing and counts nothing twice', async () => {
      const sessions = [];
      for (let i = 0; i < 6; i++) sessions.push(await newSession(String(i + 1)));
      // Credited funds are pending until final, then available: their sum is what was credited.
      const held = async () => {
        const { available, pending } = await balanceOf(t.url, key);
        return Number(available) + Number(pending);
      };
      const balance = await held();
      for (const [i, session] of sessions.entries()) {
        await f.pay(session.payAddress, 'USDT', String(i + 1), f.payers[i % 3]!);
        await f.t.mine(2);
      }
      // A scanner that reads 3 blocks per round: two rounds, then it stops half way.
      const slow = manualScanner({ db: t.db, chain, now: clock.now }, { maxBlocksPerRound: 3 });
      await slow.runOnce();
      await slow.runOnce();
      const seenBefore = await countRows(t.db, 'incoming_transfers', 'session_id = ANY($1)', [sessions.map((s) => s.id)]);
      assert.ok(seenBefore > 0 && seenBefore < 6, `stopped mid-scan (${seenBefore} of 6 seen)`);
      // Another instance's round whose commit fails after all its work: nothing of it stays.
      const crashing: Database = {
        ...t.db,
        transaction: (work) =>
          t.db.transaction(async (tx) => {
            await work(tx);
            throw new Error('crash before commit');
          }),
      };
      await assert.rejects(manualScanner({ db: crashing, chain, now: clock.now }).runOnce(), /crash before commit/);
      assert.equal(await countRows(t.db, 'incoming_transfers', 'session_id = ANY($1)', [sessions.map((s) => s.id)]), seenBefore);
      // After the restart: all of them, once.
      await f.t.mine(3);
      await scan(4);
      for (const [i, session] of sessions.entries()) {
        const view = await readSession(t.url, session.id);
        assert.deepEqual([view.status, view.paidAmount], ['paid', `${i + 1}.000000`]);
        assert.equal(await credited(session.id), 1);
      }
      assert.equal(await held(), balance + 21);
      await assertLedgerMatches(t.db, integratorId);
    });
  });
}
