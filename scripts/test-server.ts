/**
 * Runs the server test suite (node:test) against PGlite and a real PostgreSQL 15 server.
 * The PostgreSQL server is a throwaway cluster started here and stopped after; its URL reaches
 * the tests as PAYLINK_TEST_DATABASE_URL. Without PostgreSQL binaries the suite runs on PGlite
 * alone, except in CI (CI=true), where that is an error. The test processes' PGlite databases start
 * from one migrated copy made here (test/support/pglite-template.ts), named in PAYLINK_TEST_PGLITE_TEMPLATE.
 */
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import { writePgliteTemplate } from '../test/support/pglite-template.js';
import { postgresAvailable, startPostgresCluster, type PostgresCluster } from '../test/support/postgres.js';

function findTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return findTests(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

/**
 * The files that take longest (minutes each on a busy machine), first and in this order: two files run
 * at a time, and a long one started last would end the run alone while the other lane idles. The
 * others follow in name order.
 */
const LONGEST_FIRST = [
  'server/cli',
  'server/service/payouts/evm-faults',
  'server/sweep-command',
  'server/db/lock',
  'core/schemas-fuzz',
  'server/chain/evm/real-nodes',
  'server/service/payouts/evm-service',
  'server/service/webhooks/crash',
  'server/attack/limits',
  'server/chain/evm/cli',
  'server/service/money-in/evm-service',
  'demo/hardening',
  'server/service/webhooks/deliveries',
].map((name) => path.join('test', `${name}.test.ts`));

/** `files` in name order, but those of `LONGEST_FIRST` first, in its order. */
function longestFirst(files: string[]): string[] {
  const rank = (file: string) => {
    const index = LONGEST_FIRST.indexOf(path.relative(process.cwd(), path.resolve(file)));
    return index === -1 ? LONGEST_FIRST.length : index;
  };
  return [...files].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

const requested = process.argv.slice(2);
/**
 * Where the node:test suites are: test/ laid out like src/ (a module's tests under its own path), beside
 * the folders of the other runners (browser, e2e, consumer, hard, ops) and what the suites share.
 */
const NODE_SUITES = ['server', 'core', 'client', 'components', 'internal', 'scripts', 'package', 'docs', 'demo'].map((dir) => path.join('test', dir));

const files = requested.length ? requested : NODE_SUITES.flatMap(findTests).sort();

let cluster: PostgresCluster | undefined;
if (process.env.PAYLINK_TEST_DATABASE_URL) {
  // Given from outside: use it as is.
} else if (postgresAvailable() && process.env.PAYLINK_TEST_PGLITE_ONLY !== '1') {
  cluster = await startPostgresCluster();
  process.env.PAYLINK_TEST_DATABASE_URL = cluster.url;
  process.stderr.write(`test-server: PostgreSQL 15 cluster on port ${cluster.port}\n`);
} else if (process.env.CI === 'true') {
  process.stderr.write('test-server: CI needs PostgreSQL 15 binaries (install postgresql-15)\n');
  process.exit(1);
} else {
  process.stderr.write('test-server: PostgreSQL binaries not found: running on PGlite only\n');
}

// The migrated PGlite database every test process copies instead of running initdb itself.
const templateDir = mkdtempSync(path.join(os.tmpdir(), 'paylink-pglite-template-'));
const stop = () => {
  cluster?.stop();
  rmSync(templateDir, { recursive: true, force: true });
};
process.on('SIGINT', () => {
  stop();
  process.exit(130);
});
process.env.PAYLINK_TEST_PGLITE_TEMPLATE = path.join(templateDir, 'migrated.tar');
try {
  await writePgliteTemplate(process.env.PAYLINK_TEST_PGLITE_TEMPLATE);
} catch (error) {
  stop();
  throw error;
}

// node:test's run() rather than `node --test`, which sorts the files by name: here the longest go first.
// Each file still runs in a process of its own, started with this one's flags (--import tsx).
const stream = run({ files: longestFirst(files).map((file) => path.resolve(file)), concurrency: Number(process.env.PAYLINK_TEST_CONCURRENCY ?? 2) });
let failed = false;
stream.on('test:fail', (event: { todo?: boolean | string }) => {
  if (!event.todo) failed = true;
});
// What `node --test` prints: spec on a terminal, TAP otherwise.
const report = stream.compose(process.stdout.isTTY ? new spec() : tap);
report.pipe(process.stdout, { end: false });
await once(report, 'end');
stop();
process.exitCode = failed ? 1 : 0;
