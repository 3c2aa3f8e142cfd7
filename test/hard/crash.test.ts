/**
 * Crash safety (`npm run test:hard`): the service is killed with SIGKILL in the middle of a storm of
 * payments and withdrawals, on the on-disk PGlite and on PostgreSQL. After a restart on the same
 * storage, every request the service acknowledged is still there, and every balance still equals the
 * sum of its ledger entries (and is never negative).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../src/server/db/index.js';
import { postgresAvailable, startPostgresCluster, type PostgresCluster } from '../support/postgres.js';
import { BIN, exited, startHealthyProcess } from '../support/processes.js';
import { GOOD_ADDRESS } from '../support/money.js';
import { until } from '../support/wait.js';

function serve(storage: string[]) {
  return startHealthyProcess([BIN, 'serve', '--chain', 'sandbox', ...storage], { stdio: ['ignore', 'ignore', 'pipe'] });
}

async function json(url: string, method: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
}

async function storm(storage: string[]) {
  const created = spawnSync(process.execPath, [BIN, 'keys', 'create', ...storage], { encoding: 'utf8' });
  assert.equal(created.status, 0, created.stderr);
  const key = created.stdout.trim().split('\n').at(-1)!;
  const auth = { 'x-api-key': key };

  let { url, child } = await serve(storage);
  const link = await json(
    `${url}/v1/payment-link`,
    'POST',
    {
      title: 'Crash test',
      description: '',
      fiatAmount: 10,
      fiatCurrency: 'USD',
      action: {},
      options: {},
      cart: { items: [] },
    },
    auth,
  );
  assert.equal(link.status, 201);

  const paidSessions: string[] = [];
  const acknowledgedWithdrawals: string[] = [];
  let running = true;
  const pay = async () => {
    while (running) {
      try {
        const session = await json(`${url}/v1/checkout/${link.body.slug}/sessions`, 'POST', { assetId: 'USDT' });
        if (session.status !== 201) continue;
        const paid = await json(`${url}/v1/checkout/sessions/${session.body.id}/simulate-payment`, 'POST', {});
        if (paid.status === 200 && paid.body.status === 'paid') paidSessions.push(session.body.id);
      } catch {
        return; // the service died under us
      }
    }
  };
  const withdraw = async () => {
    while (running) {
      try {
        const res = await json(
          `${url}/v1/withdrawal`,
          'POST',
          { amount: '1.5', address: GOOD_ADDRESS, blockchainId: 'bsc', assetId: 'USDT' },
          { ...auth, 'idempotency-key': randomUUID() },
        );
        if (res.status === 200) acknowledgedWithdrawals.push(res.body.id);
      } catch {
        return;
      }
    }
  };
  const workers = [...Array.from({ length: 6 }, pay), ...Array.from({ length: 6 }, withdraw)];
  // The kill lands in the middle of the storm, once it has had its effect: acknowledged payments and withdrawals.
  await until(() => paidSessions.length >= 10 && acknowledgedWithdrawals.length >= 10, 'ten payments and ten withdrawals acknowledged', 60_000, {
    everyMs: 50,
    explain: () => `${paidSessions.length} payments, ${acknowledgedWithdrawals.length} withdrawals`,
  });
  child.kill('SIGKILL');
  await exited(child);
  running = false;
  await Promise.all(workers);
  assert.ok(paidSessions.length > 0, 'payments were acknowledged before the kill');

  ({ url, child } = await serve(storage));
  try {
    for (const id of paidSessions) {
      const session = await json(`${url}/v1/checkout/sessions/${id}`, 'GET');
      assert.ok(['paid', 'overpaid'].includes(session.body.status), `acknowledged payment ${id} survived (${session.body.status})`);
    }
    for (const id of acknowledgedWithdrawals) {
      const withdrawal = await json(`${url}/v1/withdrawal/${id}`, 'GET', undefined, auth);
      assert.equal(withdrawal.status, 200, `acknowledged withdrawal ${id} survived`);
    }
    const linkAfter = await json(`${url}/v1/payment-link/${link.body.id}/single`, 'GET', undefined, auth);
    assert.ok(linkAfter.body.paymentCount >= paidSessions.length, 'paymentCount kept every acknowledged payment');
  } finally {
    child.kill('SIGTERM');
    await exited(child);
  }

  const db = await openDatabase(storage[0] === '--database-url' ? { databaseUrl: storage[1] } : { dataDir: storage[1] });
  try {
    const { rows } = await db.query<{ asset_id: string; available: string; pending: string; ledger_available: string | null; ledger_pending: string | null }>(
      `SELECT b.asset_id, b.available::text, b.pending::text,
              (SELECT sum(available_delta)::text FROM ledger_entries l WHERE l.integrator_id = b.integrator_id AND l.asset_id = b.asset_id) AS ledger_available,
              (SELECT sum(pending_delta)::text FROM ledger_entries l WHERE l.integrator_id = b.integrator_id AND l.asset_id = b.asset_id) AS ledger_pending
       FROM balances b`,
    );
    assert.ok(rows.length > 0);
    for (const row of rows) {
      assert.equal(Number(row.available), Number(row.ledger_available ?? 0), `${row.asset_id} available = sum of ledger`);
      assert.equal(Number(row.pending), Number(row.ledger_pending ?? 0), `${row.asset_id} pending = sum of ledger`);
      assert.ok(Number(row.available) >= 0 && Number(row.pending) >= 0);
    }
  } finally {
    await db.close();
  }
  return { payments: paidSessions.length, withdrawals: acknowledgedWithdrawals.length };
}

describe('SIGKILL during a storm of payments and withdrawals', { timeout: 300_000 }, () => {
  const dirs: string[] = [];
  let cluster: PostgresCluster | undefined;
  after(() => {
    cluster?.stop();
    dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });

  it('on the on-disk PGlite', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-crash-'));
    dirs.push(dir);
    const result = await storm(['--data-dir', dir]);
    console.log(`PGlite: ${result.payments} payments and ${result.withdrawals} withdrawals acknowledged before SIGKILL`);
  });

  it('on PostgreSQL', { skip: !postgresAvailable() && 'PostgreSQL binaries not found' }, async () => {
    cluster = await startPostgresCluster();
    const result = await storm(['--database-url', cluster.url]);
    console.log(`PostgreSQL: ${result.payments} payments and ${result.withdrawals} withdrawals acknowledged before SIGKILL`);
  });
});
