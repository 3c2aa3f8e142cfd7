/**
 * PGlite is single-process: a second process opening a data directory in use (`keys create` while
 * `serve` runs) must refuse, clearly, instead of printing a key the running service never sees.
 * Real processes, as a merchant runs them; a lock left by a killed process is taken over.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { DataDirInUseError, openDatabase } from '../../../src/server/db/index.js';
import { createPgliteDataDir, openPgliteCopy } from '../../support/pglite-template.js';
import { BIN, exited, readable, startHealthyProcess } from '../../support/processes.js';
import { call, standardLinkBody } from '../../support/service.js';

function keysCreate(dataDir: string) {
  return spawnSync(process.execPath, [BIN, 'keys', 'create', '--data-dir', dataDir], { encoding: 'utf8', timeout: 120_000 });
}

describe('a PGlite data directory in use', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const newDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-lock-'));
    dirs.push(dir);
    return dir;
  };

  it('keys create refuses while serve runs, and works once serve has stopped', async () => {
    const dir = newDir();
    const lockFile = path.join(dir, 'paylink.lock');
    await createPgliteDataDir(dir);
    const { child } = await startHealthyProcess([BIN, 'serve', '--chain', 'sandbox', '--data-dir', dir]);
    let stopped = false;
    try {
      assert.equal(JSON.parse(readFileSync(lockFile, 'utf8')).pid, child.pid, 'serve holds the lock with its pid');
      const refused = keysCreate(dir);
      assert.equal(refused.status, 1);
      assert.equal(refused.stdout, '', 'no key is printed');
      assert.match(refused.stderr, new RegExp(`in use by process ${child.pid}\\b`));
      assert.match(readable(refused.stderr), /stop "paylink serve"/);
      assert.ok(refused.stderr.includes(lockFile), 'the message names the lock file');

      child.kill('SIGTERM');
      assert.equal(await exited(child), 0);
      stopped = true;
      assert.equal(existsSync(lockFile), false, 'a clean stop releases the lock');
    } finally {
      if (!stopped) child.kill('SIGKILL');
    }

    const created = keysCreate(dir);
    assert.equal(created.status, 0, created.stderr);
    const key = created.stdout.trim().split('\n').at(-1)!;
    assert.equal(existsSync(lockFile), false, 'keys create releases the lock too');

    // The key was written where the service reads: it works after a restart.
    const again = await startHealthyProcess([BIN, 'serve', '--chain', 'sandbox', '--data-dir', dir]);
    try {
      assert.equal((await call(again.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody() })).status, 201);
    } finally {
      again.child.kill('SIGKILL');
      await exited(again.child);
    }
    // Killed without closing: the lock stays, its process is dead, the next open takes it over.
    assert.equal(JSON.parse(readFileSync(lockFile, 'utf8')).pid, again.child.pid, 'kill -9 leaves the lock behind');
    const takeover = keysCreate(dir);
    assert.equal(takeover.status, 0, takeover.stderr);
    assert.equal(existsSync(lockFile), false);
  });

  it('refuses a second open in the same process and a lock held on another host', async () => {
    const dir = newDir();
    const db = await openPgliteCopy(dir);
    try {
      await assert.rejects(openDatabase({ dataDir: dir }), (error: unknown) => error instanceof DataDirInUseError && /this process/.test(error.message));
      await assert.rejects(openDatabase({ dataDir: path.join(dir, '.', '') }), DataDirInUseError, 'the same directory by another spelling');
    } finally {
      await db.close();
    }
    // A lock from another machine (or container) sharing the directory: its pid cannot be checked here.
    const lockFile = path.join(dir, 'paylink.lock');
    writeFileSync(lockFile, JSON.stringify({ pid: 1, host: 'another-host', since: '2025-01-01T00:00:00.000Z', token: 'x' }));
    await assert.rejects(openDatabase({ dataDir: dir }), /in use by process 1 on another-host/);
    // An unreadable lock is stale.
    writeFileSync(lockFile, 'garbage');
    const reopened = await openDatabase({ dataDir: dir });
    assert.equal(JSON.parse(readFileSync(lockFile, 'utf8')).pid, process.pid);
    await reopened.close();
    assert.equal(existsSync(lockFile), false);
  });
});
