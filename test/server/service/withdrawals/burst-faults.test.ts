/**
 * Withdrawal bursts when things go wrong: the group commit's statement (the intake's, one per turn)
 * whose answer is lost after the COMMIT, that meets a serialization failure or a deadlock, or that
 * races other requests for Idempotency-Keys turn after turn; a reservation that did not happen; two
 * instances spending one balance at once; and the payout worker's LISTEN when its connection drops or
 * cannot be made. Each request still gets its true answer, and the ledger stays equal to the balances.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createSandboxChain } from '../../../../src/server/chain/sandbox/index.js';
import { openDatabase, type Database } from '../../../../src/server/db/index.js';
import { WITHDRAWAL_CHANNEL } from '../../../../src/server/service/events/index.js';
import { startPayoutWorker } from '../../../../src/server/service/payouts/index.js';
import { startService } from '../../../../src/server/service/serve.js';
import { createWithdrawalIntake, parseWithdrawalRequest } from '../../../../src/server/service/withdrawals/index.js';
import { assertLedgerMatches, balanceOf, countRows, eventually, fund } from '../../../support/money.js';
import { backends, call, openTestDatabase, startTestService, type TestService } from '../../../support/service.js';
import { addressNumber, principalOf, validBody, withdrawalService } from '../../../support/withdrawals.js';

type Result = { rows: any[] };

/**
 * `db`, whose statements that record withdrawals (the intake's) go through `fault`, which may run the
 * statement (`run()`) or not, and fail before or after it; every other query runs as it is.
 */
function faultyWithdrawals(db: Database, fault: (run: () => Promise<Result>, sql: string) => Promise<Result>): Database {
  return {
    engine: db.engine,
    query: <Row>(sql: string, params?: unknown[]) => {
      const run = () => db.query(sql, params) as Promise<Result>;
      return (sql.includes('INSERT INTO withdrawals') ? fault(run, sql) : run()) as Promise<{ rows: Row[] }>;
    },
    transaction: (work) => db.transaction(work),
    listen: (channel, onPayload, onReconnect) => db.listen(channel, onPayload, onReconnect),
    close: () => db.close(),
  };
}

/** What node-postgres rejects with when the connection drops before the answer is read: no SQLSTATE. */
const lostConnection = () => new Error('Connection terminated unexpectedly');

/** An error as the database reports it, with its SQLSTATE. */
const databaseError = (code: string, message: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), { code, ...extra });

/** Withdrawals of the integrator that have no `withdrawal_reserve` entry (a row without its debit). */
async function withdrawalsWithoutDebit(db: Database, integratorId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM withdrawals w WHERE w.integrator_id = $1
       AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.withdrawal_id = w.id AND e.kind = 'withdrawal_reserve')`,
    [integratorId],
  );
  return rows[0]!.n;
}

for (const backend of backends()) {
  describe(`withdrawal bursts under faults (${backend})`, () => {
    let t: TestService;
    const chain = createSandboxChain();
    const fundedKey = withdrawalService(backend, chain, (started) => (t = started));

    const request = (amount: string, n: number) => parseWithdrawalRequest(validBody({ amount, address: addressNumber(n) }), chain);

    it('a turn whose answer is lost after its COMMIT answers each request from what was committed: the recorded ones 200 with their ids, the refused ones as refused', async () => {
      const created = await fundedKey('10');
      let lost = 0;
      const intake = createWithdrawalIntake(
        faultyWithdrawals(t.db, async (run) => {
          const result = await run();
          if (lost++ === 0) throw lostConnection();
          return result;
        }),
      );
      const keyed = { key: 'lost-answer', replayed: false };
      const refusedKeyed = { key: 'lost-refusal', replayed: false };
      const answers = await Promise.all([
        intake.submit(principalOf(created), request('3', 1), undefined, new Date()),
        intake.submit(principalOf(created), request('3', 2), keyed, new Date()),
        intake.submit(principalOf(created), request('3', 3), undefined, new Date()),
        intake.submit(principalOf(created), request('5', 4), refusedKeyed, new Date()),
        intake.submit(principalOf(created), request('3', 5), undefined, new Date()),
      ]);
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        [200, 200, 200, 422, 422],
      );
      assert.equal(answers[3]!.body.code, 'insufficient_balance');
      assert.equal(answers[4]!.body.code, 'insufficient_balance');
      // Exactly the three answered 200 are recorded, each once, under the id its answer gave.
      const { rows } = await t.db.query<{ id: string }>('SELECT id FROM withdrawals WHERE integrator_id = $1 ORDER BY id', [created.integratorId]);
      assert.deepEqual(
        rows.map((row) => row.id),
        answers
          .slice(0, 3)
          .map((a) => a.body.id as string)
          .sort(),
      );
      assert.deepEqual(await balanceOf(t.url, created.key), { assetId: 'USDT', blockchainId: 'bsc', available: '1.000000', pending: '9.000000' });
      await assertLedgerMatches(t.db, created.integratorId);
      // The keyed one's retry gets the same answer, and moves nothing.
      const retried = await createWithdrawalIntake(t.db).submit(principalOf(created), request('3', 2), { key: 'lost-answer', replayed: false }, new Date());
      assert.deepEqual(retried.body, answers[1]!.body);
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [created.integratorId]), 3);
    });

    it('a turn that fails before its statement ran (the connection was lost) goes again with the same ids: each request recorded once', async () => {
      const created = await fundedKey('10');
      let lost = 0;
      const intake = createWithdrawalIntake(faultyWithdrawals(t.db, (run) => (lost++ === 0 ? Promise.reject(lostConnection()) : run())));
      const answers = await Promise.all([1, 2, 3].map((n) => intake.submit(principalOf(created), request('2', n), undefined, new Date())));
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        [200, 200, 200],
      );
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [created.integratorId]), 3);
      assert.deepEqual(await balanceOf(t.url, created.key), { assetId: 'USDT', blockchainId: 'bsc', available: '4.000000', pending: '6.000000' });
      await assertLedgerMatches(t.db, created.integratorId);
    });

    it('an error the database answered (a SQLSTATE with its severity) is the answer at once, not sent again; a socket error (EPIPE) is a lost answer: looked up and sent again', async () => {
      const created = await fundedKey('10');
      let runs = 0;
      const refusing = createWithdrawalIntake(
        faultyWithdrawals(t.db, () => {
          runs++;
          return Promise.reject(databaseError('22003', 'numeric field overflow', { severity: 'ERROR' }));
        }),
      );
      await assert.rejects(refusing.submit(principalOf(created), request('1', 1), undefined, new Date()), (error: { code?: string }) => error.code === '22003');
      assert.equal(runs, 1);
      let pipes = 0;
      const piped = createWithdrawalIntake(faultyWithdrawals(t.db, (run) => (pipes++ === 0 ? Promise.reject(databaseError('EPIPE', 'write EPIPE')) : run())));
      assert.equal((await piped.submit(principalOf(created), request('1', 2), undefined, new Date())).statusCode, 200);
      assert.equal(pipes, 2);
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [created.integratorId]), 1);
    });

    it('a request whose outcome cannot be learned is a 503 withdrawal_outcome_unknown in the one error shape; its retry with the same Idempotency-Key gets the true answer', async () => {
      const database = await openTestDatabase(backend);
      // The statement commits, its answer is lost, and so is the look that follows; then the database is back.
      let failing = false;
      let statements = 0;
      const db: Database = {
        ...database.db,
        engine: database.db.engine,
        query: async <Row>(sql: string, params?: unknown[]) => {
          if (failing) throw lostConnection();
          const result = await database.db.query<Row>(sql, params);
          if (sql.includes('INSERT INTO withdrawals') && statements++ === 0) {
            failing = true;
            throw lostConnection();
          }
          return result;
        },
      };
      const service = await startService({ db, chain, payoutWorker: false, sessionRateLimit: false, visitRateLimit: false });
      try {
        const { createApiKey } = await import('../../../../src/server/service/keys/index.js');
        const { key, integratorId } = await database.db.transaction((tx) => createApiKey(tx));
        await fund(service.url, key, '10');
        const headers = { 'Idempotency-Key': 'unknown-outcome' };
        const first = await call(service.url, 'POST', '/v1/withdrawal', { key, body: validBody({ amount: '4' }), headers });
        assert.equal(first.status, 503);
        assert.deepEqual(Object.keys(first.body).sort(), ['code', 'message', 'status', 'statusCode']);
        assert.deepEqual([first.body.status, first.body.statusCode, first.body.code], ['error', 503, 'withdrawal_outcome_unknown']);
        assert.match(first.body.message, /same Idempotency-Key/);
        failing = false;
        const retried = await call(service.url, 'POST', '/v1/withdrawal', { key, body: validBody({ amount: '4' }), headers });
        assert.equal(retried.status, 200);
        assert.equal(retried.headers.get('idempotent-replayed'), 'true');
        // It had been recorded: the retry answers it, and nothing is debited twice.
        const { rows } = await database.db.query<{ id: string }>('SELECT id FROM withdrawals WHERE integrator_id = $1', [integratorId]);
        assert.deepEqual(
          rows.map((row) => row.id),
          [retried.body.id],
        );
        assert.deepEqual(await balanceOf(service.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: '6.000000', pending: '4.000000' });
        await assertLedgerMatches(database.db, integratorId);
      } finally {
        await service.close();
        await database.close();
      }
    });

    for (const [code, what] of [
      ['40001', 'a serialization failure'],
      ['40P01', 'a deadlock'],
    ] as const) {
      it(`a turn whose statement meets ${what} (${code}) goes again after a pause, and every request is answered as if it had not`, async () => {
        const created = await fundedKey('10');
        let failures = 0;
        const intake = createWithdrawalIntake(faultyWithdrawals(t.db, (run) => (failures++ < 2 ? Promise.reject(databaseError(code, what)) : run())));
        const answers = await Promise.all(
          [
            ['4', 1],
            ['4', 2],
            ['4', 3],
          ].map(([amount, n]) => intake.submit(principalOf(created), request(amount as string, n as number), undefined, new Date())),
        );
        assert.deepEqual(
          answers.map((a) => a.statusCode),
          [200, 200, 422],
        );
        assert.equal(failures, 3);
        assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [created.integratorId]), 2);
        await assertLedgerMatches(t.db, created.integratorId);
      });
    }

    it('a statement that keeps meeting deadlocks gives up after a few tries: its requests get the error, nothing is recorded', async () => {
      const created = await fundedKey('10');
      let tries = 0;
      const intake = createWithdrawalIntake(
        faultyWithdrawals(t.db, () => {
          tries++;
          return Promise.reject(databaseError('40P01', 'deadlock detected'));
        }),
      );
      await assert.rejects(intake.submit(principalOf(created), request('1', 1), undefined, new Date()), (error: { code?: string }) => error.code === '40P01');
      assert.equal(tries, 5);
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [created.integratorId]), 0);
    });

    it('turn after turn failing on keys that other requests store meanwhile: each failure counts against the request whose key it was, so a plain request in those turns is still recorded', async () => {
      const created = await fundedKey('10');
      const keys = ['race-1', 'race-2', 'race-3', 'race-4', 'race-5'];
      let turn = 0;
      const intake = createWithdrawalIntake(
        faultyWithdrawals(t.db, async (run) => {
          const key = keys[turn++];
          if (key === undefined) return run();
          // Another request (another instance, another balance) commits this key while the statement runs.
          await t.db.query(
            "INSERT INTO idempotency_keys (integrator_id, idempotency_key, request_hash, status_code, response_body) VALUES ($1, $2, 'another request', 200, '{}'::jsonb)",
            [created.integratorId, key],
          );
          throw databaseError('23505', 'duplicate key value violates unique constraint "idempotency_keys_pkey"', { constraint: 'idempotency_keys_pkey' });
        }),
      );
      const keyed = Promise.allSettled(keys.map((key, i) => intake.submit(principalOf(created), request('1', i + 1), { key, replayed: false }, new Date())));
      const plain = intake.submit(principalOf(created), request('2', 9), undefined, new Date());
      assert.equal((await plain).statusCode, 200);
      assert.deepEqual(
        (await keyed).map((settled) => (settled.status === 'rejected' ? [settled.reason.statusCode, settled.reason.code] : settled.value.statusCode)),
        keys.map(() => [409, 'idempotency_conflict']),
      );
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [created.integratorId]), 1);
      assert.deepEqual(await balanceOf(t.url, created.key), { assetId: 'USDT', blockchainId: 'bsc', available: '8.000000', pending: '2.000000' });
      await assertLedgerMatches(t.db, created.integratorId);
    });

    it('a withdrawal row is written only with its debit: when the balance is not reserved (or its entry not written), nothing is recorded and nothing is answered 200', async () => {
      const database = await openTestDatabase(backend);
      try {
        const service = await startService({ db: database.db, chain, payoutWorker: false, sessionRateLimit: false, visitRateLimit: false });
        try {
          const { createApiKey } = await import('../../../../src/server/service/keys/index.js');
          const created = await database.db.transaction((tx) => createApiKey(tx));
          await fund(service.url, created.key, '10');
          const intake = createWithdrawalIntake(database.db);
          // A fault the statement cannot see: the reservation's writes silently skipped.
          await database.db.query('CREATE FUNCTION skip_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$');
          await database.db.query(
            'CREATE TRIGGER skip_reserve BEFORE UPDATE ON balances FOR EACH ROW WHEN (NEW.pending > OLD.pending) EXECUTE FUNCTION skip_row()',
          );
          const unreserved = await intake.submit(principalOf(created), request('3', 1), { key: 'unreserved', replayed: false }, new Date());
          assert.equal(unreserved.statusCode, 422);
          await database.db.query('DROP TRIGGER skip_reserve ON balances');
          await database.db.query(
            "CREATE TRIGGER skip_entry BEFORE INSERT ON ledger_entries FOR EACH ROW WHEN (NEW.kind = 'withdrawal_reserve') EXECUTE FUNCTION skip_row()",
          );
          const unentered = await intake.submit(principalOf(created), request('3', 2), undefined, new Date());
          assert.equal(unentered.statusCode, 422);
          await database.db.query('DROP TRIGGER skip_entry ON ledger_entries');
          assert.equal(await countRows(database.db, 'withdrawals', 'integrator_id = $1', [created.integratorId]), 0);
          assert.equal(await withdrawalsWithoutDebit(database.db, created.integratorId), 0);
          // The stored answer of the key is the refusal, not a 200 for a withdrawal that does not exist.
          const { rows } = await database.db.query<{ status_code: number }>("SELECT status_code FROM idempotency_keys WHERE idempotency_key = 'unreserved'");
          assert.deepEqual(rows, [{ status_code: 422 }]);
          // With the writes back, the same balance pays out normally.
          assert.equal((await intake.submit(principalOf(created), request('3', 3), undefined, new Date())).statusCode, 200);
          assert.equal(await withdrawalsWithoutDebit(database.db, created.integratorId), 0);
        } finally {
          await service.close();
        }
      } finally {
        await database.close();
      }
    });

    it('a payout worker whose first LISTEN fails polls meanwhile and subscribes again: a withdrawal is then paid at once, by the NOTIFY, though it polls once an hour', async () => {
      const { key } = await fundedKey('10');
      let refusals = 1;
      const db: Database = {
        ...t.db,
        engine: t.db.engine,
        query: (sql, params) => t.db.query(sql, params),
        transaction: (work) => t.db.transaction(work),
        listen: (channel, onPayload, onReconnect) =>
          refusals-- > 0 ? Promise.reject(new Error('no connection for LISTEN')) : t.db.listen(channel, onPayload, onReconnect),
      };
      const warnings: string[] = [];
      const log = { info() {}, warn: (code: string) => void warnings.push(code), error() {} };
      const worker = startPayoutWorker({ db, chain, now: () => new Date(), log: log as never }, { pollIntervalMs: 3_600_000 });
      try {
        await eventually(async () => (await countRows(t.db, 'withdrawals', "status IN ('pending', 'processing')")) === 0, 10_000, 'the backlog paid');
        assert.deepEqual(warnings, ['payout_listen_failed']);
        // Only a NOTIFY (heard once it listens again) or the round after subscribing again can pay this.
        const created = await call(t.url, 'POST', '/v1/withdrawal', { key, body: validBody({ amount: '2' }) });
        assert.equal(created.status, 200);
        await eventually(
          async () => (await call(t.url, 'GET', `/v1/withdrawal/${created.body.id}`, { key })).body.status === 'success',
          10_000,
          'the withdrawal paid',
        );
        assert.ok(refusals < 0, 'subscribed again');
      } finally {
        await worker.stop();
      }
    });

    // The timeout only turns a hang (a worker, or its stop, waiting on the LISTEN for good) into a failure.
    it(
      'a payout worker whose LISTEN never answers still polls: a new withdrawal is paid by the next poll, and the worker stops',
      { timeout: 30_000 },
      async () => {
        const { key } = await fundedKey('10');
        const db: Database = {
          ...t.db,
          engine: t.db.engine,
          query: (sql, params) => t.db.query(sql, params),
          transaction: (work) => t.db.transaction(work),
          listen: () => new Promise(() => {}),
        };
        const worker = startPayoutWorker({ db, chain, now: () => new Date() }, { pollIntervalMs: 50 });
        try {
          const created = await call(t.url, 'POST', '/v1/withdrawal', { key, body: validBody({ amount: '2' }) });
          assert.equal(created.status, 200);
          await eventually(
            async () => (await call(t.url, 'GET', `/v1/withdrawal/${created.body.id}`, { key })).body.status === 'success',
            10_000,
            'the withdrawal paid',
          );
        } finally {
          await worker.stop();
        }
      },
    );
  });
}

const hasPostgres = Boolean(process.env.PAYLINK_TEST_DATABASE_URL);

describe('withdrawal bursts under faults (postgres only)', { skip: hasPostgres ? false : 'PostgreSQL only' }, () => {
  let t: TestService;
  const chain = createSandboxChain();

  before(async () => {
    t = await startTestService('postgres', { payoutWorker: false, chain });
  });
  after(() => t.close());

  it('two instances on one database, bursts against one balance that together exceed it: never more accepted than the balance, every refusal insufficient_balance, the ledger equal to the balance', async () => {
    const second = await openDatabase({ databaseUrl: t.databaseUrl! });
    const other = await startService({ db: second, chain, payoutWorker: false, sessionRateLimit: false, visitRateLimit: false });
    try {
      const { key, integratorId } = await t.newKey();
      await fund(t.url, key, '50');
      // 2 × 30 requests of 1 to 3 (60 units asked for in each burst, 120 in all) against 50.
      const amounts = Array.from({ length: 60 }, (_, i) => String((i % 3) + 1));
      const responses = await Promise.all(
        amounts.map((amount, i) =>
          call(i % 2 === 0 ? t.url : other.url, 'POST', '/v1/withdrawal', { key, body: validBody({ amount, address: addressNumber(i + 1) }) }),
        ),
      );
      const accepted = responses.flatMap((r, i) => (r.status === 200 ? [Number(amounts[i])] : []));
      const refused = responses.filter((r) => r.status !== 200);
      const acceptedSum = accepted.reduce((a, b) => a + b, 0);
      assert.ok(acceptedSum <= 50, `accepted ${acceptedSum} of 50`);
      for (const r of refused) assert.deepEqual([r.status, r.body.status, r.body.code], [422, 'error', 'insufficient_balance'], JSON.stringify(r.body));
      // A refusal means what was left did not cover it: the balance ends below the smallest refused amount.
      const left = 50 - acceptedSum;
      const smallestRefused = Math.min(...responses.flatMap((r, i) => (r.status === 200 ? [] : [Number(amounts[i])])));
      assert.ok(left < smallestRefused, `${left} left, yet ${smallestRefused} was refused`);
      assert.deepEqual(await balanceOf(t.url, key), { assetId: 'USDT', blockchainId: 'bsc', available: `${left}.000000`, pending: `${acceptedSum}.000000` });
      assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [integratorId]), accepted.length);
      assert.equal(await countRows(t.db, 'ledger_entries', "integrator_id = $1 AND kind = 'withdrawal_reserve'", [integratorId]), accepted.length);
      await assertLedgerMatches(t.db, integratorId);
    } finally {
      await other.close();
      await second.close();
    }
  });

  it('a real serialization failure (a SERIALIZABLE database, the balance updated while the statement waited) is retried, not answered 500', async () => {
    const database = await openTestDatabase('postgres');
    try {
      const { rows } = await database.db.query<{ name: string }>('SELECT current_database() AS name');
      await database.db.query(`ALTER DATABASE "${rows[0]!.name}" SET default_transaction_isolation TO 'serializable'`);
      const serializable = await openDatabase({ databaseUrl: database.url! });
      const service = await startService({ db: serializable, chain, payoutWorker: false, sessionRateLimit: false, visitRateLimit: false });
      try {
        const { createApiKey } = await import('../../../../src/server/service/keys/index.js');
        const created = await serializable.transaction((tx) => createApiKey(tx));
        await fund(service.url, created.key, '10');
        // Another transaction changes the balance row and holds it until the statement waits on it.
        const holder = new pg.Client({ connectionString: database.url! });
        await holder.connect();
        try {
          await holder.query('BEGIN');
          await holder.query("UPDATE balances SET updated_at = now() WHERE integrator_id = $1 AND asset_id = 'USDT'", [created.integratorId]);
          const answer = createWithdrawalIntake(serializable).submit(
            principalOf(created),
            parseWithdrawalRequest(validBody({ amount: '4' }), chain),
            undefined,
            new Date(),
          );
          await eventually(
            async () =>
              (
                await database.db.query<{ n: number }>(
                  "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
                )
              ).rows[0]!.n > 0,
            10_000,
            'the statement waiting on the balance',
          );
          await holder.query('COMMIT');
          assert.equal((await answer).statusCode, 200);
        } finally {
          await holder.end();
        }
        assert.equal(await countRows(serializable, 'withdrawals', 'integrator_id = $1', [created.integratorId]), 1);
        await assertLedgerMatches(serializable, created.integratorId);
      } finally {
        await service.close();
        await serializable.close();
      }
    } finally {
      await database.close();
    }
  });

  it('a turn whose connection is killed while its statement waits (pg_terminate_backend) is looked up, found unrecorded, and sent again: recorded once, answered 200', async () => {
    const created = await t.newKey();
    await fund(t.url, created.key, '10');
    const lockWaiters = async () =>
      (await t.db.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows;
    // Another transaction holds the balance row, so the statement waits where it can be killed.
    const holder = new pg.Client({ connectionString: t.databaseUrl! });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query("UPDATE balances SET updated_at = now() WHERE integrator_id = $1 AND asset_id = 'USDT'", [created.integratorId]);
      const answer = createWithdrawalIntake(t.db).submit(
        principalOf(created),
        parseWithdrawalRequest(validBody({ amount: '4' }), chain),
        undefined,
        new Date(),
      );
      await eventually(async () => (await lockWaiters()).length > 0, 10_000, 'the statement waiting on the balance');
      const [waiter] = await lockWaiters();
      await t.db.query('SELECT pg_terminate_backend($1)', [waiter!.pid]);
      // Sent again, it waits on the balance too: then the holder lets go.
      await eventually(async () => (await lockWaiters()).some((row) => row.pid !== waiter!.pid), 10_000, 'the statement sent again');
      await holder.query('COMMIT');
      assert.equal((await answer).statusCode, 200);
    } finally {
      await holder.end();
    }
    assert.equal(await countRows(t.db, 'withdrawals', 'integrator_id = $1', [created.integratorId]), 1);
    assert.deepEqual(await balanceOf(t.url, created.key), { assetId: 'USDT', blockchainId: 'bsc', available: '6.000000', pending: '4.000000' });
    await assertLedgerMatches(t.db, created.integratorId);
  });

  it('a payout worker whose LISTEN connection is killed (pg_terminate_backend) subscribes again: a withdrawal made after is paid at once, though it polls once an hour', async () => {
    const { key } = await t.newKey();
    await fund(t.url, key, '10');
    const worker = startPayoutWorker({ db: t.db, chain, now: () => new Date() }, { pollIntervalMs: 3_600_000 });
    try {
      await eventually(async () => (await countRows(t.db, 'withdrawals', "status IN ('pending', 'processing')")) === 0, 10_000, 'the backlog paid');
      const listener = `LISTEN "${WITHDRAWAL_CHANNEL}"`;
      const { rows } = await t.db.query<{ killed: boolean }>(
        'SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE datname = current_database() AND query = $1',
        [listener],
      );
      assert.deepEqual(rows, [{ killed: true }]);
      for (const amount of ['1', '2']) {
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
  });
});
