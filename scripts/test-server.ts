/**
 * Runs the server test suite (node:test) against PGlite and a real PostgreSQL 15 server.
 * The PostgreSQL server is a throwaway cluster started here and stopped after; its URL reaches
 * the tests as PAYLINK_TEST_DATABASE_URL. Without PostgreSQL binaries the suite runs on PGlite
 * alone, except in CI (CI=true), where that is an error. The test processes' PGlite databases start
 * from one migrated copy made here (test/support/pglite-template.ts), named in PAYLINK_TEST_PGLITE_TEMPLATE.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writePgliteTemplate } from '../test/support/pglite-template.js';
import { postgresAvailable, startPostgresCluster, type PostgresCluster } from '../test/support/postgres.js';

function findTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return findTests(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

const requested = process.argv.slice(2);
const files = requested.length ? requested : findTests('test/server').sort();

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

const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${process.env.PAYLINK_TEST_CONCURRENCY ?? 2}`, ...files],
  { stdio: 'inherit', env: process.env },
);
child.on('exit', (code, signal) => {
  stop();
  process.exit(code ?? (signal ? 1 : 0));
});
