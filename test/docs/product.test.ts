/**
 * The docs say what the product does, read from the code where the code lists it: every webhook event
 * type and session status is in the API reference, every field of a withdrawal in its record, every
 * per-network setting the EVM configuration reads in the settings, and what a reader would otherwise
 * get wrong (several networks per service, failover between nodes, a hot wallet short of gas that
 * waits rather than fails, what money taken back or short looks like) is said where they look.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SESSION_STATUSES } from '../../src/core/rules/session.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/core/rules/webhooks.js';
import { Withdrawal } from '../../src/core/schemas.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('the docs and the product', () => {
  const api = read('docs/api.md');
  const configuration = read('docs/configuration.md');
  const operations = read('docs/operations.md');

  it('the API reference names every webhook event type and session status, and every field of a withdrawal', () => {
    for (const type of WEBHOOK_EVENT_TYPES) assert.ok(api.includes(`\`${type}\``), `docs/api.md documents the event ${type}`);
    const statuses = api.slice(api.indexOf('**Statuses:**'), api.indexOf('**Rates:**'));
    for (const status of SESSION_STATUSES) assert.ok(statuses.includes(`\`${status}\``), `docs/api.md's session statuses name ${status}`);
    const record = /`GET \/v1\/withdrawal\/\{id\}`: `\{([^}]*)\}`/.exec(api.replace(/\n\s*/g, ' '))?.[1];
    assert.ok(record, 'docs/api.md spells out a withdrawal record');
    assert.deepEqual(
      record
        .split(',')
        .map((field) => field.trim())
        .sort(),
      Object.keys(Withdrawal.shape).sort(),
    );
  });

  it('configuration names several networks and every per-network setting the EVM configuration reads', () => {
    assert.doesNotMatch(configuration, /one network per service/i);
    const config = read('src/server/chain/evm/network-settings.ts');
    const settings = new Set([...config.matchAll(/name\('([A-Z_]+)'\)/g)].map((match) => match[1]!));
    assert.ok(settings.size >= 10, `read ${settings.size} per-network settings`);
    for (const setting of settings) assert.match(configuration, new RegExp(`_${setting}\\b`), `docs/configuration.md names ${setting}`);
    assert.match(configuration, /### Several networks\n\nOne service can take payments and send withdrawals on several EVM networks/);
    assert.match(configuration, /`PAYLINK_EVM_NETWORKS`/);
    const rpcRow = configuration.split('\n').find((line) => line.startsWith('| `PAYLINK_EVM_RPC_URL` |'));
    assert.match(rpcRow ?? '', /several, separated by commas.*fails over/, 'the RPC_URL row says a list fails over');
  });

  it('says that a hot wallet short of gas holds withdrawals with a reason, and what reversed and short payouts look like', () => {
    const goingLive = read('docs/going-live.md');
    assert.doesNotMatch(goingLive, /usually a hot wallet short of tokens or gas/, 'a shortage does not fail a withdrawal');
    assert.match(goingLive, /does not fail a withdrawal:\s+it waits, with the reason in its `stalledReason`/);
    assert.match(api, /`receivedAmount` is what the recipient got/);
    for (const code of ['payout_shortfall', 'payment_reversed', 'webhook_connect_failed'])
      assert.match(operations, new RegExp(`^\\| \`${code}\` \\|`, 'm'), `operations.md's log codes list ${code}`);
    assert.match(operations, /reversed: a ledger entry of its own/);
  });
});
