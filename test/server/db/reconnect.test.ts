/**
 * PostgreSQL connections that drop (a server restart, a failover, an admin's
 * `pg_terminate_backend`) must not take the process down: a transaction in flight rejects, the
 * pool replaces its connections, and the LISTEN connection is re-established, after which every
 * subscriber is told to re-read (and SSE streams keep working). PostgreSQL only: PGlite is embedded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createUsdLink, eventually, openEventStream, startSession } from '../../support/money.js';
import { call, openTestDatabase, startTestService, type TestService } from '../../support/service.js';
import { until } from '../../support/wait.js';

const hasPostgres = Boolean(process.env.PAYLINK_TEST_DATABASE_URL);

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Terminates every other connection to the database of `url`; resolves with how many. */
function killOtherBackends(url: string): Promise<number> {
  return withClient(url, async (client) => {
    const { rows } = await client.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.length;
  });
}

/** Waits until a connection of the database of `url` has `LISTEN`ed to `channel` (again). */
function waitForListener(url: string, channel: string): Promise<void> {
  return withClient(url, (client) =>
    eventually(
      async () => {
        const { rows } = await client.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query = $1`, [
          `LISTEN "${channel}"`,
        ]);
        return rows.length > 0;
      },
      5000,
      `LISTEN ${channel}`,
    ),
  );
}

describe('dropped PostgreSQL connections (postgres)', { skip: hasPostgres ? false : 'PostgreSQL only' }, () => {
  describe('the database layer', () => {
    let database: Awaited<ReturnType<typeof openTestDatabase>>;
    before(async () => {
      database = await openTestDatabase('postgres');
    });
    after(() => database.close());

    it('a transaction whose connection is killed mid-query rejects, and the pool goes on', async () => {
      const running = database.db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await tx.query('SELECT pg_sleep(30)');
      });
      const settled = running.then(
        () => null,
        (error: unknown) => error,
      );
      await withClient(database.url!, (client) =>
        eventually(
          async () => {
            const { rows } = await client.query(
              "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query = 'SELECT pg_sleep(30)' AND state = 'active'",
            );
            return rows.length > 0;
          },
          5000,
          'the sleeping query',
        ),
      );
      assert.ok((await killOtherBackends(database.url!)) >= 1);
      const error = await settled;
      assert.ok(error instanceof Error, 'the transaction should reject');
      await eventually(
        async () =>
          await database.db.query('SELECT 1 AS one').then(
            () => true,
            () => false,
          ),
        5000,
        'a working pool',
      );
      assert.deepEqual((await database.db.query('SELECT 2 AS two')).rows, [{ two: 2 }]);
    });

    it('a transaction whose connection is killed between queries rejects on its next query', async () => {
      let resume!: () => void;
      const paused = new Promise<void>((resolve) => (resume = resolve));
      let started!: () => void;
      const inside = new Promise<void>((resolve) => (started = resolve));
      let backend = 0;
      const running = database.db
        .transaction(async (tx) => {
          backend = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
          started();
          await paused; // idle in transaction: no query to hand the error to, only the 'error' event
          await tx.query('SELECT 2');
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      await inside;
      // The transaction's connection reports its end by an 'error' event while the transaction is idle.
      let errored = false;
      const emit = pg.Client.prototype.emit;
      pg.Client.prototype.emit = function (this: pg.Client & { processID: number | null }, name: string | symbol, ...args: unknown[]) {
        if (name === 'error' && this.processID === backend) errored = true;
        return emit.call(this, name, ...args);
      };
      try {
        assert.ok((await killOtherBackends(database.url!)) >= 1);
        await until(() => errored, "the transaction's connection to report its end");
      } finally {
        pg.Client.prototype.emit = emit;
      }
      resume();
      assert.ok((await running) instanceof Error, 'the transaction should reject');
      // Committing work still works on a fresh connection.
      const value = await database.db.transaction(async (tx) => (await tx.query<{ n: number }>('SELECT 3 AS n')).rows[0]!.n);
      assert.equal(value, 3);
    });

    it('the LISTEN connection comes back, LISTENs again and calls onReconnect once', async () => {
      const payloads: string[] = [];
      let reconnects = 0;
      const unlisten = await database.db.listen(
        'paylink_reconnect_test',
        (payload) => payloads.push(payload),
        () => reconnects++,
      );
      const notify = (payload: string) => withClient(database.url!, (client) => client.query("SELECT pg_notify('paylink_reconnect_test', $1)", [payload]));
      await notify('before');
      await eventually(async () => payloads.includes('before'), 5000, 'the first notification');

      assert.ok((await killOtherBackends(database.url!)) >= 1);
      await eventually(async () => reconnects === 1, 5000, 'onReconnect');
      await notify('after');
      await eventually(async () => payloads.includes('after'), 5000, 'a notification after the reconnect');

      // Twice in a row: it keeps coming back.
      await killOtherBackends(database.url!);
      await eventually(async () => reconnects === 2, 5000, 'the second onReconnect');
      await notify('again');
      await eventually(async () => payloads.includes('again'), 5000, 'a notification after the second reconnect');
      assert.deepEqual(payloads, ['before', 'after', 'again']);
      await unlisten();
    });
  });

  describe('the service', () => {
    let t: TestService;
    before(async () => {
      // A heartbeat far longer than the test: an SSE event can only come from NOTIFY or the reconnect re-read.
      t = await startTestService('postgres', { payoutWorker: false, sseHeartbeatMs: 60_000 });
    });
    after(() => t.close());

    it('survives its connections being killed: requests work, and SSE hears payments made afterwards', async () => {
      const { key } = await t.newKey();
      const slug = await createUsdLink(t.url, key, '5');
      const session = await startSession(t.url, slug);
      const stream = await openEventStream(`${t.url}/v1/checkout/sessions/${session.id}/events`);
      assert.equal(JSON.parse((await stream.next()).data).status, 'awaiting_payment');

      assert.ok((await killOtherBackends(t.databaseUrl!)) >= 2, 'the pool and the listener were connected');
      await waitForListener(t.databaseUrl!, 'paylink_session_status');

      // Still alive, and the pool serves requests on new connections.
      const read = await call(t.url, 'GET', `/v1/checkout/sessions/${session.id}`);
      assert.equal(read.status, 200);
      assert.equal(read.body.status, 'awaiting_payment');

      const paid = await call(t.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: { amount: '2' } });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      const event = JSON.parse((await stream.next(3000)).data);
      assert.equal(event.status, 'underpaid');
      assert.equal(event.paidAmount, '2.000000');
      stream.close();
    });

    it('a change whose NOTIFY went out while the listener was down reaches SSE streams after the reconnect', async () => {
      const { key } = await t.newKey();
      const slug = await createUsdLink(t.url, key, '5');
      const session = await startSession(t.url, slug);
      const stream = await openEventStream(`${t.url}/v1/checkout/sessions/${session.id}/events`);
      assert.equal(JSON.parse((await stream.next()).data).status, 'awaiting_payment');

      // The change commits (and notifies) after every connection of the service was killed, so the
      // notification is lost for sure: only the re-read after the reconnect can deliver it.
      await withClient(t.databaseUrl!, async (client) => {
        await client.query('BEGIN');
        await client.query("UPDATE checkout_sessions SET status = 'underpaid', paid_amount = 1 WHERE id = $1", [session.id]);
        await client.query("SELECT pg_notify('paylink_session_status', $1)", [session.id]);
        await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
        await client.query('COMMIT');
      });
      const event = JSON.parse((await stream.next(5000)).data);
      assert.equal(event.status, 'underpaid');
      assert.equal(event.paidAmount, '1.000000');
      stream.close();
    });
  });
});
