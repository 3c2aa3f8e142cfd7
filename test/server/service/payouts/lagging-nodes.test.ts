/**
 * A payout is never signed twice because a node lags (anvil, two node URLs for one network, each
 * behind a JSON-RPC proxy that can lag, fail one method, or not know a transaction). The node says
 * "nonce too low" to a payout that is mined already (its first broadcast reached the chain, the
 * answer did not reach the service), and the node asked for its receipt has none: one that has the
 * new nonce but not the receipt, or, after a failover, one that lags. The stored transaction stays
 * as it is, the operator is told once, and its receipt finishes it: paid once, with its own hash.
 * Only a nonce used for good (at the finalized block) by another transaction, with no node holding
 * a receipt of ours, has the withdrawal signed again, and then it is paid once. Nor does one node's
 * refusal for good fail a payout that another node took, nor a receipt in a block the chain does not
 * have end one.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createWalletClient, http, parseUnits, type Address, type Hex } from 'viem';
import { TEST_TOKEN_ABI } from '../../../../src/server/chain/evm/test-token.js';
import { networkChain, PayoutError, type RealChainAdapter } from '../../../../src/server/chain/types.js';
import { createLogger } from '../../../../src/server/log.js';
import { processPayouts } from '../../../../src/server/service/payouts/index.js';
import { assertLedgerMatches } from '../../../support/money.js';
import { startRpcProxy, type RpcProxy } from '../../../support/rpc-proxy.js';
import { backends, call, startTestService, type TestService } from '../../../support/service.js';
import {
  creditDirectly,
  hookPayouts,
  outgoingOf,
  randomAddress,
  readWithdrawal,
  startEvmFixture,
  waitForPayouts,
  withdrawOnBsc,
  type EvmFixture,
  type PayoutHooks,
} from '../../../support/evm-service.js';

/** Blocks past which anvil's `finalized` block (64 below its head) has passed a transaction just mined. */
const PAST_FINALITY = 70;

for (const backend of backends()) {
  describe(`EVM payouts when a node lags (${backend})`, () => {
    let f: EvmFixture;
    let first: RpcProxy;
    let second: RpcProxy;
    /** A single node URL, for a network configured with one (a provider that balances it over backends). */
    let lone: RpcProxy;
    let loneChain: RealChainAdapter;
    let loneHooks: PayoutHooks;
    let base: RealChainAdapter;
    let chain: RealChainAdapter;
    let hooks: PayoutHooks;
    let hot: Address;
    let t: TestService;
    let key: string;
    let integratorId: string;
    const logged: Array<{ code: string; [field: string]: unknown }> = [];
    const logger = createLogger((line) => logged.push(JSON.parse(line)));

    before(async () => {
      f = await startEvmFixture();
      first = await startRpcProxy(f.t.url);
      second = await startRpcProxy(f.t.url);
      base = await f.adapter({ confirmations: 1, rpcUrl: `${first.url},${second.url}`, timeoutMs: 2_000, retries: 1, replaceAfterMs: 0 });
      ({ chain, hooks } = hookPayouts(base));
      lone = await startRpcProxy(f.t.url);
      ({ chain: loneChain, hooks: loneHooks } = hookPayouts(
        await f.adapter({ confirmations: 1, rpcUrl: lone.url, timeoutMs: 2_000, retries: 1, replaceAfterMs: 0 }),
      ));
      hot = outgoingOf(base).hotWallet as Address;
      await f.t.mint(f.usdt, hot, parseUnits('1000', 18));
      t = await startTestService(backend, { chain, payoutWorker: false, scanner: false, webhookWorker: false, sseHeartbeatMs: 60_000 });
      ({ key, integratorId } = await t.newKey());
      await creditDirectly(t, chain, key, '100');
    });
    afterEach(() => {
      for (const proxy of [first, second, lone]) {
        proxy.lag(null);
        proxy.hideTransactions(null);
        proxy.forkReceipts(null);
        proxy.failMethod(null);
        proxy.override(null);
      }
      hooks.broadcast = null;
      hooks.broadcastMany = null;
      loneHooks.broadcast = null;
      loneHooks.broadcastMany = null;
    });
    after(async () => {
      await t?.close();
      await base?.close();
      await first?.close();
      await second?.close();
      await loneChain?.close();
      await lone?.close();
      await f?.stop();
    });

    const withdraw = (amount: string, to: string) => withdrawOnBsc(t.url, key, amount, to);
    const record = (id: string) => readWithdrawal(t.url, key, id);
    const stored = async (id: string) =>
      (
        await t.db.query<{ nonce: number; tx_hash: string; status: string }>(
          'SELECT nonce::int AS nonce, tx_hash, status FROM payout_transactions WHERE withdrawal_id = $1 ORDER BY created_at',
          [id],
        )
      ).rows;
    const ledgerKinds = async (id: string) =>
      (await t.db.query<{ kind: string }>('SELECT kind FROM ledger_entries WHERE withdrawal_id = $1 ORDER BY created_at, kind', [id])).rows.map(
        (row) => row.kind,
      );
    const tokenUnits = (address: string) =>
      f.t.client.readContract({ address: f.usdt, abi: TEST_TOKEN_ABI, functionName: 'balanceOf', args: [address as Address] });
    /** One payout round (with `using`'s nodes); the first of a payout leaves what it stored to its own broadcast (`checkMs`). */
    const round = (checkMs = 0, using = chain) => processPayouts({ db: t.db, chain: using, now: () => new Date(), log: logger }, { checkMs, rebroadcastMs: 0 });
    const roundsUntil = (done: () => Promise<boolean>, what: string, using = chain) =>
      waitForPayouts(
        { db: t.db, f, hot },
        async () => {
          await round(0, using);
          return done();
        },
        what,
      );
    const codes = (code: string, txHash: string) => logged.filter((line) => line.code === code && line.txHash === txHash).length;
    const told = (code: string, txHash: string) => logged.find((line) => line.code === code && line.txHash === txHash);
    const lastTold = (code: string, txHash: string) => logged.findLast((line) => line.code === code && line.txHash === txHash);

    /**
     * Stores and broadcasts a payout whose broadcast reaches the chain (instant mining: it is mined)
     * while its answer is lost: the row stays `signed`, as after a crash between sending and recording.
     */
    const payOutAnswerLost = async (amount: string, to: string, using: { chain: RealChainAdapter; hooks: PayoutHooks } = { chain, hooks }) => {
      const id = await withdraw(amount, to);
      using.hooks.broadcastMany = async (raws, send) => {
        using.hooks.broadcastMany = null;
        await send(raws);
        return raws.map((): PromiseRejectedResult => ({ status: 'rejected', reason: new Error('connection reset after the node took the transaction') }));
      };
      await round(60_000, using.chain);
      const [row] = await stored(id);
      assert.equal(row?.status, 'signed', 'the service did not hear that the node took it');
      const receipt = await f.t.client.getTransactionReceipt({ hash: row.tx_hash as Hex });
      assert.equal(receipt.status, 'success', 'but it is mined');
      assert.equal(await tokenUnits(to), parseUnits(amount, 18));
      return { id, row, block: Number(receipt.blockNumber) };
    };

    /** Asserts the payout went out once, with the transaction first signed, and the balance moved once. */
    const assertPaidOnceWith = async (id: string, to: string, amount: string, txHash: string) => {
      assert.equal(await tokenUnits(to), parseUnits(amount, 18), 'the recipient received the amount once');
      const done = await record(id);
      assert.equal(done.status, 'success');
      assert.equal(done.txHash, txHash, 'the withdrawal shows the transaction that paid it');
      assert.deepEqual(
        (await stored(id)).map((row) => [row.tx_hash, row.status]),
        [[txHash, 'success']],
        'one stored transaction, never marked replaced, never signed again',
      );
      assert.deepEqual(await ledgerKinds(id), ['withdrawal_reserve', 'withdrawal_payout'], 'one debit');
      await assertLedgerMatches(t.db, integratorId);
    };

    it('"nonce too low" for a mined payout while the node asked has the new nonce but not the receipt: not signed again, paid once with its own hash', async () => {
      const to = randomAddress();
      const sentBefore = await f.t.client.getTransactionCount({ address: hot });
      const { id, row } = await payOutAnswerLost('7', to);
      // The preferred node's view has the nonce moved on but not this transaction, even past finality.
      first.hideTransactions([row.tx_hash]);
      await f.t.mine(PAST_FINALITY);

      await roundsUntil(async () => (await record(id)).status === 'success', 'the payout succeeded');
      await assertPaidOnceWith(id, to, '7', row.tx_hash);
      assert.equal(await f.t.client.getTransactionCount({ address: hot }), sentBefore + 1, 'the hot wallet sent one transaction');
      assert.equal(codes('payout_replaced', row.tx_hash), 0);
      // Its receipt, asked of every node when the first has none, showed it mined: our own payout used its nonce.
      assert.equal(codes('payout_nonce_unsettled', row.tx_hash), 0, 'the other node spoke for the transaction: nothing for the operator to look into');
    });

    it('a receipt in a block the chain does not have (a node on a fork that lost, the payout reverted there) ends nothing: paid once, finished by its canonical receipt', async () => {
      const to = randomAddress();
      const { id, row, block } = await payOutAnswerLost('6', to);
      // The preferred node's index points into a fork that lost; the other node lags behind the payout.
      first.forkReceipts([row.tx_hash]);
      second.lag(block - 1);
      await f.t.mine(PAST_FINALITY);

      for (let i = 0; i < 4; i++) await round();
      assert.equal((await record(id)).status, 'processing', 'not failed by a reverted receipt in a block that is not canonical');
      assert.deepEqual(
        (await stored(id)).map((r) => [r.tx_hash, r.status]),
        [[row.tx_hash, 'sent']],
      );
      assert.match(String(told('payout_nonce_unsettled', row.tx_hash)?.reason), /node 1 of 2 has its receipt/);

      first.forkReceipts(null);
      await roundsUntil(async () => (await record(id)).status === 'success', 'the payout succeeded');
      await assertPaidOnceWith(id, to, '6', row.tx_hash);
    });
    it('"nonce too low" for a mined payout while the receipt read fails over to a node that lags: it waits, told once, and is paid once when a node shows the receipt', async () => {
      const to = randomAddress();
      const sentBefore = await f.t.client.getTransactionCount({ address: hot });
      const { id, row, block } = await payOutAnswerLost('3', to);
      // The first node answers everything but receipts; the second is stuck before the payout's block.
      first.failMethod('eth_getTransactionReceipt');
      second.lag(block - 1);
      await f.t.mine(PAST_FINALITY);

      for (let i = 0; i < 5; i++) await round();
      assert.equal(await tokenUnits(to), parseUnits('3', 18), 'paid once, not twice');
      assert.equal((await record(id)).status, 'processing', 'not finished while no node shows its receipt');
      assert.deepEqual(
        (await stored(id)).map((r) => [r.tx_hash, r.status]),
        [[row.tx_hash, 'sent']],
        'left as it is: taken by a node, never replaced',
      );
      assert.equal(await f.t.client.getTransactionCount({ address: hot }), sentBefore + 1, 'nothing else was sent');
      assert.equal(codes('payout_nonce_unsettled', row.tx_hash), 1, 'the operator is told once, not every round');
      assert.match(String(told('payout_nonce_unsettled', row.tx_hash)?.reason), /node 1 of 2 did not answer: \S/);

      first.failMethod(null);
      await roundsUntil(async () => (await record(id)).status === 'success', 'the payout succeeded');
      await assertPaidOnceWith(id, to, '3', row.tx_hash);
    });

    it('a nonce another transaction of the hot wallet used is replaced only once that is final, and the payout is signed again and paid once', async () => {
      let open = false;
      hooks.broadcast = async () => {
        if (!open) throw new Error('node unreachable');
      };
      const to = randomAddress();
      const id = await withdraw('4', to);
      await round(60_000);
      const [original] = await stored(id);
      assert.equal(original?.status, 'signed');
      // Someone uses the hot wallet's key elsewhere: that nonce is gone; the second node has not seen it yet.
      second.lag(Number(await f.t.client.getBlockNumber()));
      const foreign = createWalletClient({ account: hot, transport: http(f.t.url) });
      await f.t.mined(await foreign.sendTransaction({ to: hot, value: 1n, nonce: original.nonce, chain: null }));
      open = true;

      for (let i = 0; i < 3; i++) await round();
      assert.deepEqual(
        (await stored(id)).map((r) => r.status),
        ['sent'],
        'not replaced while the other transaction could still be reorged away',
      );
      assert.match(String(told('payout_nonce_unsettled', original.tx_hash)?.reason), /used at block \d+ by a transaction no node has, which is not final yet/);
      assert.equal((await record(id)).status, 'processing');
      assert.equal(await tokenUnits(to), 0n);

      await f.t.mine(PAST_FINALITY);
      // Proven once, it is believed only when seen again at a newer finalized block.
      await roundsUntil(async () => {
        await f.t.mine(1);
        return (await record(id)).status === 'success';
      }, 'the payout succeeded');
      const rows = await stored(id);
      assert.deepEqual(
        rows.map((r) => r.status),
        ['replaced', 'success'],
      );
      assert.equal(rows[0]!.tx_hash, original.tx_hash);
      assert.ok(rows[1]!.nonce > original.nonce, 'signed again with a fresh nonce');
      assert.equal((await record(id)).txHash, rows[1]!.tx_hash);
      assert.equal(await tokenUnits(to), parseUnits('4', 18), 'paid once');
      assert.deepEqual(await ledgerKinds(id), ['withdrawal_reserve', 'withdrawal_payout'], 'one debit');
      assert.equal(codes('payout_replaced', original.tx_hash), 1, 'the operator is told');
      assert.equal(told('payout_replaced', original.tx_hash)?.level, 'error', 'someone else used the hot wallet key: an error');
      await assertLedgerMatches(t.db, integratorId);
    });

    it('a payout a node took, refused for good by the node it is sent to again: never failed nor its nonce filled, paid once when mined', async () => {
      await f.t.setAutomine(false);
      const to = randomAddress();
      let id = '';
      let row: Awaited<ReturnType<typeof stored>>[number] | undefined;
      try {
        id = await withdraw('5', to);
        await round(60_000);
        [row] = await stored(id);
        assert.equal(row?.status, 'sent', 'a node took it; it waits in the mempool');
        // Sent again while it waits, it meets a node that refuses it for good (a provider plan without
        // eth_sendRawTransaction, a stricter node): that says nothing of the node that has it.
        hooks.broadcast = async () => {
          throw new PayoutError('The node refused the transaction: HTTP 403');
        };
        for (let i = 0; i < 3; i++) await round();
        assert.equal((await record(id)).status, 'processing', 'not failed: its funds are not handed back while it may still be mined');
        assert.deepEqual(
          (await stored(id)).map((r) => [r.tx_hash, r.status]),
          [[row.tx_hash, 'sent']],
        );
        assert.equal(
          (await t.db.query("SELECT 1 FROM payout_transactions WHERE purpose = 'nonce_filler' AND nonce = $1", [row.nonce])).rows.length,
          0,
          'its nonce is not filled',
        );
        assert.equal(codes('payout_refusal_unsettled', row.tx_hash), 1, 'the operator is told once');
        hooks.broadcast = null;
        await f.t.mine(1);
      } finally {
        hooks.broadcast = null;
        await f.t.setAutomine(true);
      }
      await roundsUntil(async () => (await record(id)).status === 'success', 'the payout succeeded');
      await assertPaidOnceWith(id, to, '5', row!.tx_hash);
    });

    it('one URL whose backends disagree (one has the mined payout, one a block behind has not): a first proof that its nonce went elsewhere is not believed, never paid twice', async () => {
      const to = randomAddress();
      const { id, row } = await payOutAnswerLost('2', to, { chain: loneChain, hooks: loneHooks });
      // The URL's balancer hands the receipt and transaction reads to a backend without them, the
      // nonce count to one that has them: the nonce looks used by a transaction nobody has.
      let behind = true;
      lone.override(({ method, params }) =>
        behind && (method === 'eth_getTransactionReceipt' || method === 'eth_getTransactionByHash') && String(params[0]).toLowerCase() === row.tx_hash
          ? { result: null }
          : undefined,
      );
      await waitForPayouts(
        { db: t.db, f, hot },
        async () => {
          await f.t.mine(PAST_FINALITY);
          await round(0, loneChain);
          return (await stored(id)).length > 1 || /to be confirmed/.test(String(lastTold('payout_nonce_unsettled', row.tx_hash)?.reason));
        },
        'a first proof',
        { ids: [id] },
      );
      assert.deepEqual(
        (await stored(id)).map((r) => [r.tx_hash, r.status]),
        [[row.tx_hash, 'sent']],
        'not replaced on one proof',
      );
      assert.equal(lastTold('payout_nonce_unsettled', row.tx_hash)?.level, 'warn');

      // The next read lands on a backend that has it.
      behind = false;
      await roundsUntil(
        async () => {
          await f.t.mine(1);
          return (await record(id)).status !== 'processing';
        },
        'the payout ended',
        loneChain,
      );
      await assertPaidOnceWith(id, to, '2', row.tx_hash);
      assert.equal(codes('payout_replaced', row.tx_hash), 0);
    });

    it('a node that keeps only recent state and refuses a count by block hash still lets a nonce used for good elsewhere be proven: the payout is signed again and paid once', async () => {
      let open = false;
      loneHooks.broadcast = async () => {
        if (!open) throw new Error('node unreachable');
      };
      const to = randomAddress();
      const id = await withdraw('8', to);
      await round(60_000, loneChain);
      const [original] = await stored(id);
      assert.equal(original?.status, 'signed');
      const foreign = createWalletClient({ account: hot, transport: http(f.t.url) });
      await f.t.mined(await foreign.sendTransaction({ to: hot, value: 1n, nonce: original.nonce, chain: null }));
      open = true;
      // State only at the newest block (a full node keeps ~128; the finalized block on an L2 is far older),
      // and no {blockHash} form of eth_getTransactionCount (some providers refuse it).
      let newest = Number(await f.t.client.getBlockNumber());
      lone.override(({ method, params }) => {
        if (method !== 'eth_getTransactionCount') return undefined;
        const at = params[1];
        if (at !== null && typeof at === 'object') return { error: { code: -32602, message: 'invalid argument 1: unknown field "blockHash"' } };
        if (typeof at === 'string' && at.startsWith('0x') && Number(at) < newest)
          return { error: { code: -32000, message: `missing trie node ${'ab'.repeat(32)} (path ) state ${at} is not available` } };
        return undefined;
      });

      await roundsUntil(
        async () => {
          await f.t.mine(20);
          newest = Number(await f.t.client.getBlockNumber());
          return (await record(id)).status === 'success';
        },
        'the payout succeeded',
        loneChain,
      );
      const rows = await stored(id);
      assert.deepEqual(
        rows.map((r) => r.status),
        ['replaced', 'success'],
      );
      assert.equal(rows[0]!.tx_hash, original.tx_hash);
      assert.equal(await tokenUnits(to), parseUnits('8', 18), 'paid once');
      assert.deepEqual(await ledgerKinds(id), ['withdrawal_reserve', 'withdrawal_payout'], 'one debit');
      await assertLedgerMatches(t.db, integratorId);
    });

    it("one node refusing the finalized tag (HTTP 403) does not turn the tag off: the final block stays the nodes' finalized one, not a depth below the head", async () => {
      const incoming = networkChain(base, 'bsc')!.incoming;
      await f.t.mine(150);
      const head = Number(await f.t.client.getBlockNumber());
      const older = await f.t.client.getBlock({ blockNumber: BigInt(head - 120) });
      const isFinalizedTag = (method: string, params: unknown[]) => method === 'eth_getBlockByNumber' && params[0] === 'finalized';
      // Whichever node is asked first refuses (an access rule of a provider's plan).
      for (const proxy of [first, second]) proxy.override(({ method, params }) => (isFinalizedTag(method, params) ? { http: 403 } : undefined));
      await incoming.finalizedBlock(head).catch(() => undefined);
      // The nodes' finalized block: one 120 below the head, not the 64 a depth count would give.
      const rpcBlock = await f.t.client.request({ method: 'eth_getBlockByNumber', params: [`0x${(head - 120).toString(16)}`, false] });
      for (const proxy of [first, second]) proxy.override(({ method, params }) => (isFinalizedTag(method, params) ? { result: rpcBlock } : undefined));
      const final = await incoming.finalizedBlock(head);
      assert.equal(final.number, head - 120);
      assert.equal(final.hash, older.hash);
    });

    it('a node that knows the finalized tag but has no finalized block (answers null) has its final block counted by depth, not failed for ever', async () => {
      const fresh = networkChain(await f.adapter({ confirmations: 1, rpcUrl: lone.url, timeoutMs: 2_000, retries: 1, finalityDepth: 12 }), 'bsc')!.incoming;
      await f.t.mine(20);
      const head = Number(await f.t.client.getBlockNumber());
      lone.override(({ method, params }) => (method === 'eth_getBlockByNumber' && params[0] === 'finalized' ? { result: null } : undefined));
      const final = await fresh.finalizedBlock(head);
      assert.equal(final.number, head - 12);
      assert.equal(final.hash, (await f.t.client.getBlock({ blockNumber: BigInt(head - 12) })).hash);
      // The tag is asked again next time: once the node has a finalized block, it is the one used.
      lone.override(null);
      const tagged = await fresh.finalizedBlock(head);
      assert.equal(tagged.number, Math.max(0, head - 64), "anvil's finalized block, 64 below its head");
    });

    it('one URL that refuses eth_sendRawTransaction as a call (HTTP 403, a plan without it) fails no payout: another URL sends it, paid once', async () => {
      let refuser: RpcProxy | null = null;
      for (const proxy of [first, second]) {
        proxy.override(({ method }) => {
          if (method !== 'eth_sendRawTransaction') return undefined;
          refuser ??= proxy;
          return refuser === proxy ? { http: 403 } : undefined;
        });
      }
      const to = randomAddress();
      const id = await withdraw('1', to);
      await roundsUntil(async () => (await record(id)).status !== 'processing', 'the payout ended');
      assert.ok(refuser, 'the URL asked first refused');
      const [row] = await stored(id);
      await assertPaidOnceWith(id, to, '1', row!.tx_hash);
    });
  });
}
