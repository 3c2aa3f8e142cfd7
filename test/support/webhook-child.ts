/**
 * A service in a process of its own, for the crash tests of webhooks (test/server/service/webhooks/crash.test.ts):
 * on `CHILD_DATABASE_URL` (PostgreSQL) or `CHILD_DATA_DIR` (PGlite), sandbox chain, with its webhook
 * worker (`CHILD_WEBHOOK_WORKER=0` to run without one), a lease of `CHILD_LEASE_MS` and an answer timeout
 * of `CHILD_TIMEOUT_MS`. Prints
 * `ready <url>` once listening; the test kills it with SIGKILL, or stops it with SIGTERM: then it
 * closes the service (its worker waits for the attempts in flight) and exits 0.
 */
import { startService } from '../../src/server/service/serve.js';

const service = await startService({
  databaseUrl: process.env.CHILD_DATABASE_URL || undefined,
  dataDir: process.env.CHILD_DATA_DIR || undefined,
  payoutWorker: false,
  webhookWorker: process.env.CHILD_WEBHOOK_WORKER !== '0',
  webhooks: {
    // Its receivers listen on 127.0.0.1: private endpoints allowed, as PAYLINK_WEBHOOK_ALLOW_PRIVATE=1 does.
    allowPrivate: true,
    leaseMs: Number(process.env.CHILD_LEASE_MS ?? 60_000),
    timeoutMs: Number(process.env.CHILD_TIMEOUT_MS ?? 10_000),
    pollIntervalMs: 50,
    retryBaseMs: 50,
  },
});
process.once('SIGTERM', () => void service.close().then(() => process.exit(0)));
process.stdout.write(`ready ${service.url}\n`);
