/**
 * The alerting rules an operator loads (`docs/alerts.yml`): valid for Prometheus (`promtool check
 * rules`), each one's unit tests passing (`promtool test rules test/ops/alerts.test.yml`), every rule
 * tested and given a runbook entry in docs/operations.md, and every series a rule reads one that the
 * service exposes (a typo would make a rule that never fires).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createSandboxChain } from '../../../src/server/chain/sandbox/index.js';
import { createServiceMetrics } from '../../../src/server/metrics/service.js';
import { ROOT } from '../../support/processes.js';
import { openMigratedPglite } from '../../support/pglite-template.js';

const PROMTOOL = process.env.PROMTOOL ?? '/usr/bin/promtool';
const RULES = path.join(ROOT, 'docs', 'alerts.yml');
const TESTS = path.join(ROOT, 'test', 'ops', 'alerts.test.yml');
const missing = !existsSync(PROMTOOL) && (process.env.CI === 'true' ? false : 'promtool is not installed (apt-get install prometheus)');

const rules = readFileSync(RULES, 'utf8');
const alertNames = [...rules.matchAll(/^\s+- alert: (\w+)$/gm)].map((match) => match[1]!);

describe('docs/alerts.yml', () => {
  it('names the alerts an operator must be woken for', () => {
    for (const name of [
      'PaylinkScannerLagging',
      'PaylinkRatesStale',
      'PaylinkHotWalletLow',
      'PaylinkPayoutsStuck',
      'PaylinkReconciliationMismatch',
      'PaylinkFinalityViolated',
      'PaylinkWebhooksFailing',
    ]) {
      assert.ok(alertNames.includes(name), name);
    }
  });

  it('is valid for Prometheus (promtool check rules)', { skip: missing }, () => {
    const checked = spawnSync(PROMTOOL, ['check', 'rules', RULES], { encoding: 'utf8' });
    assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
    assert.match(checked.stdout, new RegExp(`SUCCESS: ${alertNames.length} rules found`));
  });

  it('passes its unit tests (promtool test rules), which test every rule', { skip: missing }, () => {
    const tests = readFileSync(TESTS, 'utf8');
    for (const name of alertNames) assert.match(tests, new RegExp(`alertname: ${name}$`, 'm'), `${name} has no unit test`);
    const run = spawnSync(PROMTOOL, ['test', 'rules', TESTS], { encoding: 'utf8', cwd: ROOT });
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  });

  it('has a runbook entry in docs/operations.md for every rule', () => {
    const operations = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
    const section = operations.slice(operations.indexOf('\n## Alerts'));
    for (const name of alertNames) assert.match(section, new RegExp(`^\\| \`${name}\` \\|`, 'm'), `${name} has no runbook line`);
  });

  it('reads only series the service exposes', async () => {
    const db = await openMigratedPglite();
    try {
      const rates = { settings: { maxAgeMs: 1, currencies: ['NGN'] }, pair: () => undefined };
      const exposition = (await createServiceMetrics({ db, chain: createSandboxChain(), now: () => new Date(), rates }).render()).body;
      const exposed = new Set([...exposition.matchAll(/^# TYPE (\w+) /gm)].map((match) => match[1]!));
      const used = new Set([...rules.matchAll(/\b(paylink_[a-z_]+)\b/g)].map((match) => match[1]!));
      assert.ok(used.size >= 8);
      for (const name of used) assert.ok(exposed.has(name), `${name} is read by a rule but not exposed`);
    } finally {
      await db.close();
    }
  });
});
