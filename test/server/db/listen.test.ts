/**
 * Hearing other instances' changes through a pooler in transaction mode (PgBouncer, as managed
 * PostgreSQL is usually reached): LISTEN works straight on the server; through PgBouncer alone it
 * can't, so the service finds out at start, says so, and polls (a payment on one instance still
 * reaches an event stream on another within a couple of seconds); with PAYLINK_DATABASE_LISTEN_URL,
 * LISTEN goes over that direct connection and hears what is NOTIFYed through the pooler.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../../src/server/db/index.js';
import { createLogger } from '../../../src/server/log.js';
import { createApiKey } from '../../../src/server/service/keys/index.js';
import { startService } from '../../../src/server/service/serve.js';
import { createUsdLink, openEventStream, startSession } from '../../support/money.js';
import { missingOpsTools, startPgBouncer, type PgBouncer } from '../../support/ops-stack.js';
import { call, createPostgresDatabase } from '../../support/service.js';
import { until } from '../../support/wait.js';

const serverUrl = process.env.PAYLINK_TEST_DATABASE_URL;
const noBouncer = missingOpsTools().includes('pgbouncer');
const skip = !serverUrl ? 'needs the test run’s PostgreSQL' : noBouncer && process.env.CI !== 'true' ? 'needs pgbouncer (apt-get install pgbouncer)' : false;

describe('LISTEN through a pooler in transaction mode', { skip }, () => {
  let bouncer: PgBouncer;
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let pooled: string;

  before(async () => {
    bouncer = await startPgBouncer(Number(new URL(serverUrl!).port));
    database = await createPostgresDatabase();
    pooled = bouncer.url(new URL(database.url).pathname.slice(1));
  });
  after(async () => {
    await database?.drop();
    await bouncer?.stop();
  });

  it('is proven at first use: LISTEN on the server itself, polling through PgBouncer alone, the direct connection beside it', async () => {
    const direct = await openDatabase({ databaseUrl: database.url });
    const bounced = await openDatabase({ databaseUrl: pooled });
    const beside = await openDatabase({ databaseUrl: pooled, listenUrl: database.url });
    try {
      assert.deepEqual(await direct.listenMode!(), { notifications: 'listen', via: 'pool' });
      assert.deepEqual(await bounced.listenMode!(), { notifications: 'poll', intervalMs: 1000 });
      assert.deepEqual(await beside.listenMode!(), { notifications: 'listen', via: 'listen-url' });

      // Beside the pooler, a NOTIFY sent through it (in a transaction, as the service sends them) is heard.
      const heard: string[] = [];
      const unlisten = await beside.listen('paylink_test_channel', (payload) => heard.push(payload));
      await bounced.transaction((tx) => tx.query("SELECT pg_notify('paylink_test_channel', 'hello')"));
      await until(() => heard.length > 0, 'the notification', 10_000);
      assert.deepEqual(heard, ['hello']);
      await unlisten();

      // Through the pooler alone, every subscription is told to re-read, every second.
      let resyncs = 0;
      const stop = await bounced.listen(
        'paylink_test_channel',
        () => {},
        () => resyncs++,
      );
      await until(() => resyncs >= 2, 'two polls', 10_000);
      await stop();
    } finally {
      await Promise.all([direct.close(), bounced.close(), beside.close()]);
    }
  });

  it('serves two instances on PgBouncer without a LISTEN URL: says it polls, and an event stream on one hears a payment made on the other', async () => {
    const lines: Array<{ code: string; level: string }> = [];
    const logger = createLogger((line) => lines.push(JSON.parse(line)));
    const options = {
      databaseUrl: pooled,
      env: {},
      logger,
      payoutWorker: false,
      webhookWorker: false,
      sseHeartbeatMs: 60_000,
      sessionRateLimit: false as const,
    };
    const a = await startService(options);
    const b = await startService(options);
    try {
      assert.equal(lines.filter((line) => line.code === 'database_listen_polling' && line.level === 'warn').length, 2, 'each instance says so at start');
      const { key } = await a.db.transaction((tx) => createApiKey(tx));
      const slug = await createUsdLink(a.url, key, '7');
      const session = await startSession(a.url, slug);
      const stream = await openEventStream(`${a.url}/v1/checkout/sessions/${session.id}/events`);
      assert.equal(JSON.parse((await stream.next()).data).status, 'awaiting_payment');
      assert.equal((await call(b.url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} })).status, 200);
      // Well inside the 60 s heartbeat: the poll, a second apart, read the change.
      assert.equal(JSON.parse((await stream.next(5000)).data).status, 'paid');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
