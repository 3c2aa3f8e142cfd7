/**
 * At-least-once across crashes and instances: a service process killed with SIGKILL after
 * the change committed (before any send, and in the middle of a send) loses no event: the next
 * instance delivers it with the same id and body. Two instances on one database deliver each event
 * once per attempt: each event reaches the endpoint exactly as often as its attempts say.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Database } from '../../../../src/server/db/index.js';
import { createApiKey } from '../../../../src/server/service/keys/index.js';
import { startService, type RunningService } from '../../../../src/server/service/serve.js';
import { verifyWebhook } from '../../../../src/webhooks/index.js';
import { countRows, createUsdLink, eventually, startSession } from '../../../support/money.js';
import { openPgliteCopy } from '../../../support/pglite-template.js';
import { exited, ROOT } from '../../../support/processes.js';
import { backends, call, createPostgresDatabase, openTestDatabase } from '../../../support/service.js';
import { startReceiver } from '../../../support/webhook-receiver.js';

const LEASE_MS = 1500;

/** Starts test/support/webhook-child.ts and resolves with its URL once it listens. */
async function startChild(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('test', 'support', 'webhook-child.ts')], {
    cwd: ROOT,
    // A long answer timeout: a held request stays in flight until the kill, however slow the machine is.
    env: { ...process.env, CHILD_LEASE_MS: String(LEASE_MS), CHILD_TIMEOUT_MS: '120000', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /ready (\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the child exited (${code}) before it was ready`)));
  });
  return { child, url };
}

async function kill(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  await exited(child);
}

for (const backend of backends()) {
  describe(`webhooks survive a SIGKILL (${backend})`, () => {
    let databaseUrl: string | undefined;
    let dataDir: string | undefined;
    let dropDatabase: (() => Promise<void>) | undefined;
    let key: string;

    before(async () => {
      if (backend === 'postgres') {
        const created = await createPostgresDatabase();
        databaseUrl = created.url;
        dropDatabase = created.drop;
      } else {
        dataDir = mkdtempSync(path.join(tmpdir(), 'paylink-webhook-crash-'));
      }
      // Migrated and keyed before any child opens it (a PGlite data dir has one process at a time).
      const db = dataDir ? await openPgliteCopy(dataDir) : await openDatabase({ databaseUrl });
      ({ key } = await db.transaction((tx) => createApiKey(tx)));
      await db.close();
    });
    after(async () => {
      await dropDatabase?.();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    const childEnv = (extra: Record<string, string> = {}) => ({ CHILD_DATABASE_URL: databaseUrl ?? '', CHILD_DATA_DIR: dataDir ?? '', ...extra });

    /** Pays a new session on the service at `url`; returns the session id. */
    async function payOn(url: string, slug: string): Promise<string> {
      const session = await startSession(url, slug);
      const paid = await call(url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} });
      assert.equal(paid.status, 200);
      return session.id;
    }

    it('killed after the change, before sending, and killed in the middle of a send: each event still arrives, same id', async () => {
      let hold = true;
      const receiver = await startReceiver(() => (hold ? 'handled' : 200));
      let secret = '';
      let slug = '';
      try {
        // 1. A process with no worker commits the payment (and its event), then dies.
        const first = await startChild(childEnv({ CHILD_WEBHOOK_WORKER: '0' }));
        const endpoint = await call(first.url, 'POST', '/v1/webhook-endpoint', {
          key,
          body: { url: `${receiver.url}/hooks`, events: ['checkout.session.paid'] },
        });
        assert.equal(endpoint.status, 201);
        secret = endpoint.body.secret;
        slug = await createUsdLink(first.url, key, '4');
        const unsent = await payOn(first.url, slug);
        await kill(first.child);
        assert.equal(receiver.received.length, 0);

        // 2. A process with a worker picks it up and is killed while the endpoint has not answered.
        const second = await startChild(childEnv());
        const [inFlight] = await receiver.waitFor(1);
        const midSend = await payOn(second.url, slug);
        const [, alsoInFlight] = await receiver.waitFor(2);
        await kill(second.child);
        assert.equal(JSON.parse(inFlight!.body).data.object.id, unsent);
        assert.equal(JSON.parse(alsoInFlight!.body).data.object.id, midSend, 'a hung endpoint does not hold up the next event');

        // 3. A new instance delivers both once the dead process's lease has run out.
        hold = false;
        const third = await startChild(childEnv());
        try {
          await receiver.waitFor(4, 20_000);
          const events = await Promise.all(
            receiver.received.map((d) => verifyWebhook<{ id: string }>(d.body, d.headers['paylink-signature'] as string, secret)),
          );
          const bySession = (id: string) => events.filter((event) => event.data.object.id === id);
          for (const sessionId of [unsent, midSend]) {
            const copies = bySession(sessionId);
            assert.equal(copies.length, 2, `the event of ${sessionId} was sent once before the kill and once after`);
            assert.equal(copies[0]!.id, copies[1]!.id, 'with the same id');
          }
          await eventually(
            async () =>
              (await call(third.url, 'GET', `/v1/webhook-endpoint/${endpoint.body.id}/deliveries?status=delivered`, { key })).body.meta.totalItems === 2,
            10_000,
            'both delivered',
          );
          // Stopped, the instance has ended every attempt it had in flight: what it sent is all there is.
          third.child.kill('SIGTERM');
          assert.equal(await exited(third.child), 0);
          assert.equal(receiver.received.length, 4, 'nothing more once delivered');
        } finally {
          await kill(third.child);
        }
      } finally {
        await receiver.close();
      }
      const db = await openDatabase({ databaseUrl, dataDir });
      try {
        assert.equal(await countRows(db, 'webhook_events', "type = 'checkout.session.paid'"), 2, 'one event per payment');
      } finally {
        await db.close();
      }
    });
  });

  describe(`two instances on one database deliver each event once (${backend})`, () => {
    let database: Awaited<ReturnType<typeof openTestDatabase>>;
    let secondDb: Database;
    let a: RunningService;
    let b: RunningService;

    before(async () => {
      database = await openTestDatabase(backend);
      secondDb = database.url ? await openDatabase({ databaseUrl: database.url }) : database.db;
      const options = { payoutWorker: false, webhooks: { allowPrivate: true, pollIntervalMs: 20, retryBaseMs: 20, batchSize: 3 } };
      a = await startService({ ...options, db: database.db });
      b = await startService({ ...options, db: secondDb });
    });
    after(async () => {
      await Promise.all([a.close(), b.close()]);
      if (secondDb !== database.db) await secondDb.close();
      await database.close();
    });

    it('every event reaches the endpoint once per attempt, whichever instance sends it', async () => {
      const { key } = await database.db.transaction((tx) => createApiKey(tx));
      const failedOnce = new Set<string>();
      // The first attempt of every event fails, so retries are claimed by either instance too.
      const receiver = await startReceiver((delivery) => {
        const id = delivery.headers['paylink-event-id'] as string;
        if (failedOnce.has(id)) return 200;
        failedOnce.add(id);
        return 500;
      });
      try {
        const created = await call(a.url, 'POST', '/v1/webhook-endpoint', { key, body: { url: `${receiver.url}/hooks`, events: ['checkout.session.paid'] } });
        assert.equal(created.status, 201);
        const slug = await createUsdLink(a.url, key, '2');
        const payments = 12;
        await Promise.all(
          Array.from({ length: payments }, async (_, index) => {
            const url = index % 2 ? a.url : b.url;
            const session = await startSession(url, slug);
            await call(url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, { body: {} });
          }),
        );
        await receiver.waitFor(payments * 2, 20_000);
        await eventually(
          async () =>
            (await call(a.url, 'GET', `/v1/webhook-endpoint/${created.body.id}/deliveries?status=delivered`, { key })).body.meta.totalItems === payments,
          10_000,
          'every delivery recorded',
        );
        // Stopped, each worker has ended every attempt it had in flight: what they sent is all there is.
        await Promise.all([a.webhookWorker!.stop(), b.webhookWorker!.stop()]);
        const perEvent = new Map<string, number>();
        for (const delivery of receiver.received) {
          const id = delivery.headers['paylink-event-id'] as string;
          perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
        }
        assert.equal(perEvent.size, payments, 'one event per payment');
        assert.deepEqual([...new Set(perEvent.values())], [2], 'each event sent exactly twice: its failed attempt and its successful one');
        const log = (await call(b.url, 'GET', `/v1/webhook-endpoint/${created.body.id}/deliveries?limit=100`, { key })).body.items;
        assert.ok(log.every((delivery: { attemptCount: number }) => delivery.attemptCount === 2));
      } finally {
        await receiver.close();
      }
    });
  });
}
