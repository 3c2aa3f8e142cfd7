/**
 * Withdrawals in bursts: concurrent `POST /v1/withdrawal` for one balance are recorded in turns, the
 * requests that arrive during a turn together in ONE statement (the intake's group commit), and each
 * still gets the answer it would have had alone: no overdraft, one debit per Idempotency-Key, the one
 * error shape, the ledger equal to the balances. Also: a burst announced to the payout workers once it
 * is recorded, keyed requests' API keys looked up together, and a payout worker on its own woken by the
 * NOTIFY that announces new withdrawals.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSandboxChain } from '../../../../src/server/chain/sandbox/index.js';
import type { Database } from '../../../../src/server/db/index.js';
import { WITHDRAWAL_CHANNEL } from '../../../../src/server/service/events/index.js';
import { startPayoutWorker } from '../../../../src/server/service/payouts/index.js';
import { createWithdrawalIntake, parseWithdrawalRequest } from '../../../../src/server/service/withdrawals/index.js';
import { assertLedgerMatches, balanceOf, countRows, eventually, fund } from '../../../support/money.js';
import { backends, call, type TestService } from '../../../support/service.js';
import { addressNumber, principalOf, validBody, withdrawalService } from '../../../support/withdrawals.js';

/**
 * `db`, whose next query after `hold()` waits until `open()`: a turn held in flight while more requests
 * arrive. `entered()` resolves once that query waits; `answered()` counts the queries answered.
 */
function holdNextQuery(db: Database) {
  let gate: Promise<void> | undefined;
  let open = () => {};
  let entered = () => {};
  let waiting = Promise.resolve();
  let answered = 0;
  const held: Database = {
    engine: db.engine,
    query: async <Row>(sql: string, params?: unknown[]) => {
      const closed = gate;
      gate = undefined;
      if (closed) {
        entered();
        await closed;
      }
      const result = await db.query<Row>(sql, params);
      answered++;
      return result;
    },
    transaction: (work) => db.transaction(work),
    listen: (channel, onPayload, onReconnect) => db.listen(channel, onPayload, onReconnect),
    close: () => db.close(),
  };
  return {
    db: held,
    hold() {
      gate = new Promise((resolve) => (open = resolve));
      waiting = new Promise((resolve) => (entered = resolve));
    },
    entered: () => waiting,
    open: () => open(),
    answered: () => answered,
  };
}

/** How many transactions wrote the integrator's withdrawals. */
async function transactionsOf(db: Database, integratorId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(DISTINCT xmin::text)::int AS n FROM withdrawals WHERE integrator_id = $1', [integratorId]);
  return rows[0]!.n;
}

for (const backend of backends()) {
  describe(`withdrawal bursts (${backend})`, () => {
    let t: TestService;
    const chain = createSandboxChain();
    const fundedKey = withdrawalService(backend, chain, (started) => (t = started));

    it('50 concurrent POSTs against a balance covering 37: exactly 37 accepted, 13 refused as insufficient, the ledger equal to the balance', async () => {
      const { key, integratorId } = await fundedKey('74');
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => call(t.url, 'POST', '/v1/withdrawal', { key, body: validBody({ amount: '2', address: addressNumber(i + 1) }) })),
      );
      const accepted = responses.filter((r) => r.status === 200);
      const refused = responses.filter((r) => r.status === 422);
      assert.equal(accepted.length, 37, JSON.stringify(responses.map((r) => r.status)));
      assert.equal(refused.length, 13);
      assert.equal(new Set(accepted.map((r) => r.body.id)).size, 37);
      for (const r of refused) {
        assert.deepEqual(Object.keys(r.body).sort(), ['code', 'message', 'status', 'statusCode']);
        assert.deepEqual([r.body.status, r.body.statusCode, r.body.code], ['error', 422, 'insufficient_balance']);
      }
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '0.000000', pending: '74.000000' });
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [integratorId]), 37);
      assert.equal(await countRows(t.db, 'ledger_entries', "integrator_id = $1 AND kind = 'withdrawal_reserve'", [integratorId]), 37);
      await assertLedgerMatches(t.db, integratorId);
    });

    it('a burst mixing twins of one Idempotency-Key, a replay of an earlier key, an own deposit address and plain requests answers each as if alone', async () => {
      const { key, integratorId } = await fundedKey('100');
      const earlier = await call(t.url, 'POST', '/v1/withdrawal', { key, body: validBody({ amount: '5' }), headers: { 'Idempotency-Key': 'earlier' } });
      assert.equal(earlier.status, 200);
      const sessionId = await fund(t.url, key, '1');
      const own = (await call(t.url, 'GET', `/v1/checkout/sessions/${sessionId}`)).body.payAddress as string;

      const twins = Array.from({ length: 10 }, () =>
        call(t.url, 'POST', '/v1/withdrawal', { key, body: validBody({ amount: '3' }), headers: { 'Idempotency-Key': 'twin' } }),
      );
      const replay = call(t.url, 'POST', '/v1/withdrawal', { key, body: validBody({ amount: '5' }), headers: { 'Idempotency-Key': 'earlier' } });
      const ownAddress = call(t.url, 'POST', '/v1/withdrawal', { key, body: validBody({ amount: '2', address: own }), headers: { 'Idempotency-Key': 'own' } });
      const plain = Array.from({ length: 20 }, (_, i) =>
        call(t.url, 'POST', '/v1/withdrawal', { key, body: validBody({ amount: '1', address: addressNumber(i + 1) }) }),
      );
      const [twinAnswers, replayed, refused, plainAnswers] = await Promise.all([Promise.all(twins), replay, ownAddress, Promise.all(plain)]);

      assert.ok(
        twinAnswers.every((r) => r.status === 200),
        JSON.stringify(twinAnswers.map((r) => r.body)),
      );
      assert.equal(new Set(twinAnswers.map((r) => r.body.id)).size, 1);
      assert.equal(twinAnswers.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 9);
      assert.equal(replayed.status, 200);
      assert.deepEqual(replayed.body, earlier.body);
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.equal(refused.status, 422);
      assert.equal(refused.body.code, 'own_deposit_address');
      assert.ok(plainAnswers.every((r) => r.status === 200));

      // 5 earlier, 3 once for the twins, 20 × 1: 28 reserved of the 101 funded.
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '73.000000', pending: '28.000000' });
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [integratorId]), 22);
      await assertLedgerMatches(t.db, integratorId);
      // The refusal is the answer to its key, like a success.
      const again = await call(t.url, 'POST', '/v1/withdrawal', { key, body: validBody({ amount: '2', address: own }), headers: { 'Idempotency-Key': 'own' } });
      assert.deepEqual(again.body, refused.body);
    });

    it('requests that reach an idle balance in one turn of the event loop go together in one statement', async () => {
      const created = await fundedKey('10');
      const intake = createWithdrawalIntake(t.db);
      const answers = await Promise.all(
        [1, 2, 3, 4].map((n) =>
          intake.submit(principalOf(created), parseWithdrawalRequest(validBody({ amount: '3', address: addressNumber(n) }), chain), undefined, new Date()),
        ),
      );
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        [200, 200, 200, 422],
      );
      assert.equal(await transactionsOf(t.db, created.integratorId), 1);
      await assertLedgerMatches(t.db, created.integratorId);
    });

    it('requests that arrive while a turn is in flight go together in one statement, walked in order: one that does not fit is refused and a smaller one after it still goes', async () => {
      const created = await fundedKey('10');
      const held = holdNextQuery(t.db);
      const intake = createWithdrawalIntake(held.db);
      const submit = (amount: string, n: number) =>
        intake.submit(principalOf(created), parseWithdrawalRequest(validBody({ amount, address: addressNumber(n) }), chain), undefined, new Date());
      held.hold();
      const first = submit('4', 1);
      await held.entered();
      const rest = [submit('7', 2), submit('5', 3), submit('1', 4), submit('0.5', 5)];
      held.open();
      const answers = await Promise.all([first, ...rest]);
      // 4 alone (6 left), then together: 7 refused, 5 fits (1 left), 1 fits (0 left), 0.5 refused: as if one by one.
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        [200, 422, 200, 200, 422],
      );
      assert.equal(answers[1]!.body.code, 'insufficient_balance');
      assert.equal(answers[4]!.body.code, 'insufficient_balance');
      assert.equal(await transactionsOf(t.db, created.integratorId), 2);
      assert.deepEqual(await balanceOf(t.url, created.key), { assetId: 'USDT', blockchainId: 'bsc', available: '0.000000', pending: '10.000000' });
      await assertLedgerMatches(t.db, created.integratorId);
    });

    it('an Idempotency-Key replayed inside a coalesced batch gets the first answer, marked replayed; the key with another request is 409; nothing is debited twice', async () => {
      const created = await fundedKey('20');
      const held = holdNextQuery(t.db);
      const intake = createWithdrawalIntake(held.db);
      const submit = (amount: string, n: number, key?: string) => {
        const state = key === undefined ? undefined : { key, replayed: false };
        const request = parseWithdrawalRequest(validBody({ amount, address: addressNumber(n) }), chain);
        return { state, answer: intake.submit(principalOf(created), request, state, new Date()) };
      };
      held.hold();
      const first = submit('2', 1, 'payout-7');
      await held.entered();
      const plain = submit('1', 2);
      const twin = submit('2', 1, 'payout-7');
      const other = submit('3', 3);
      const conflicting = submit('9', 4, 'payout-7');
      // Each answer is its own request's, and they may come in any order (the twin's is read back
      // from its key while the next turn runs): the refusal is awaited from the start, not after the others.
      const refused = assert.rejects(
        conflicting.answer,
        (error: { statusCode?: number; code?: string }) => error.statusCode === 409 && error.code === 'idempotency_conflict',
      );
      held.open();

      const original = await first.answer;
      assert.equal(original.statusCode, 200);
      assert.equal(first.state!.replayed, false);
      assert.deepEqual(await twin.answer, { statusCode: original.statusCode, body: original.body });
      assert.equal(twin.state!.replayed, true);
      await refused;
      assert.equal((await plain.answer).statusCode, 200);
      assert.equal((await other.answer).statusCode, 200);
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [created.integratorId]), 3);
      assert.deepEqual(await balanceOf(t.url, created.key), { assetId: 'USDT', blockchainId: 'bsc', available: '14.000000', pending: '6.000000' });
      await assertLedgerMatches(t.db, created.integratorId);
    });

    it('a key that another request stores while the statement runs fails the statement, which changes nothing; the request is then answered from the key (409 here)', async () => {
      const created = await fundedKey('10');
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      let inserted = () => {};
      const holding = new Promise<void>((resolve) => (inserted = resolve));
      // Another request holds the key, uncommitted, until the withdrawal's statement waits on it.
      const other = t.db.transaction(async (tx) => {
        await tx.query(
          "INSERT INTO idempotency_keys (integrator_id, idempotency_key, request_hash, status_code, response_body) VALUES ($1, 'raced', 'another request', 200, '{}'::jsonb)",
          [created.integratorId],
        );
        inserted();
        await released;
      });
      // PGlite runs one transaction at a time: there the statement simply runs after it.
      if (backend === 'postgres') await holding;
      const intake = createWithdrawalIntake(t.db);
      const state = { key: 'raced', replayed: false };
      const answer = intake.submit(principalOf(created), parseWithdrawalRequest(validBody({ amount: '4' }), chain), state, new Date());
      if (backend === 'postgres') {
        await eventually(
          async () =>
            (await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"))
              .rows[0]!.n > 0,
          10_000,
          'the statement waiting on the uncommitted key',
        );
      }
      release();
      await other;
      await assert.rejects(answer, (error: { statusCode?: number; code?: string }) => error.statusCode === 409 && error.code === 'idempotency_conflict');
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [created.integratorId]), 0);
      assert.deepEqual(await balanceOf(t.url, created.key), { assetId: 'USDT', blockchainId: 'bsc', available: '10.000000', pending: '0.000000' });
      await assertLedgerMatches(t.db, created.integratorId);
    });

    it('a burst is announced to the payout workers once, when it is all recorded: this instance by its callback, every instance by a NOTIFY', async () => {
      const created = await fundedKey('10');
      const notices: string[] = [];
      const unlisten = await t.db.listen(WITHDRAWAL_CHANNEL, (payload) => notices.push(payload));
      try {
        const held = holdNextQuery(t.db);
        const statementsWhenAnnounced: number[] = [];
        // announceWithinMs out of reach: on a busy machine the second turn can take longer than the default 50 ms.
        const intake = createWithdrawalIntake(held.db, { onRecorded: () => statementsWhenAnnounced.push(held.answered()), announceWithinMs: 60_000 });
        const submit = (n: number) =>
          intake.submit(principalOf(created), parseWithdrawalRequest(validBody({ address: addressNumber(n) }), chain), undefined, new Date());
        held.hold();
        const first = submit(1);
        await held.entered();
        const burst = [first, ...[2, 3, 4, 5].map(submit)];
        held.open();
        assert.deepEqual(
          (await Promise.all(burst)).map((a) => a.statusCode),
          [200, 200, 200, 200, 200],
        );
        // Two turns (the first alone) and one announcement, once the second had been recorded too.
        assert.equal(await transactionsOf(t.db, created.integratorId), 2);
        assert.deepEqual(statementsWhenAnnounced, [2]);
        await eventually(async () => notices.length > 0, 10_000, 'the NOTIFY heard');
      } finally {
        await unlisten();
      }
    });

    // The timeout only turns a hang (an announcement that never comes) into a failure.
    it(
      'withdrawals recorded while more requests keep the intake busy are announced within announceWithinMs, not held back by them',
      { timeout: 30_000 },
      async () => {
        const created = await fundedKey('10');
        const held = holdNextQuery(t.db);
        let announced = () => {};
        const announcement = new Promise<void>((resolve) => (announced = resolve));
        const intake = createWithdrawalIntake(held.db, { onRecorded: () => announced(), announceWithinMs: 20 });
        const submit = (n: number) =>
          intake.submit(principalOf(created), parseWithdrawalRequest(validBody({ address: addressNumber(n) }), chain), undefined, new Date());
        held.hold();
        const first = submit(1);
        await held.entered();
        const second = submit(2);
        held.open();
        held.hold(); // the second turn's statement waits until the first turn's withdrawal is announced
        assert.equal((await first).statusCode, 200);
        await announcement;
        held.open();
        assert.equal((await second).statusCode, 200);
        assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [created.integratorId]), 2);
      },
    );

    it('keys presented at once are each answered for themselves: valid ones see their own balance, revoked, unknown and malformed ones 401', async () => {
      const keys = await Promise.all([fundedKey('3'), fundedKey('4'), fundedKey('5')]);
      const revoked = await t.newKey();
      await t.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.keyId]);
      const presented = [...keys.map((k) => k.key), revoked.key, 'pl_sk_unknownunknownunknownunknown00', 'not-a-key'];
      const responses = await Promise.all(Array.from({ length: 36 }, (_, i) => call(t.url, 'GET', '/v1/balance', { key: presented[i % presented.length]! })));
      for (const [i, response] of responses.entries()) {
        const which = i % presented.length;
        if (which < 3) {
          assert.equal(response.status, 200);
          assert.equal(response.body.items.find((item: { assetId: string }) => item.assetId === 'USDT').available, `${which + 3}.000000`);
        } else {
          assert.equal(response.status, 401);
          assert.equal(response.body.code, 'invalid_api_key');
        }
      }
      // A key revoked now is refused by the next request.
      await t.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [keys[0]!.keyId]);
      assert.equal((await call(t.url, 'GET', '/v1/balance', { key: keys[0]!.key })).status, 401);
    });

    it('a payout worker that polls once an hour pays a new withdrawal at once: the NOTIFY that announced it woke the worker', async () => {
      const { key, integratorId } = await fundedKey('10');
      // This service has no worker of its own to kick: only the NOTIFY can wake this one.
      const worker = startPayoutWorker({ db: t.db, chain, now: () => new Date() }, { pollIntervalMs: 3_600_000 });
      try {
        // Its first rounds pay what the tests above left pending; then it sleeps.
        await eventually(async () => (await countRows(t.db, 'withdrawals', "status IN ('pending', 'processing')")) === 0, 10_000, 'the backlog paid');
        for (const amount of ['1', '2', '3']) {
          const created = await call(t.url, 'POST', '/v1/withdrawal', { key, body: validBody({ amount }) });
          assert.equal(created.status, 200);
          await eventually(
            async () => (await call(t.url, 'GET', `/v1/withdrawal/${created.body.id}`, { key })).body.status === 'success',
            10_000,
            `the withdrawal of ${amount} paid`,
          );
        }
      } finally {
        await worker.stop();
      }
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '4.000000', pending: '0.000000' });
      await assertLedgerMatches(t.db, integratorId);
    });
  });
}
