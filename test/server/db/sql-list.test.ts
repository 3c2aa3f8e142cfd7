/**
 * Status sets in SQL come from the constants that define them: `sqlList` quotes the code's own
 * words (and refuses anything else), and no query under src/server spells a status set by hand.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { OPEN_STATUSES, SETTLED_STATUSES, UNSETTLED_STATUSES } from '../../../src/core/rules/session.js';
import { UNFINISHED_WITHDRAWAL_STATUSES } from '../../../src/core/rules/withdrawal.js';
import { sqlList } from '../../../src/server/db/sql-list.js';

const SERVER = path.resolve(import.meta.dirname, '..', '..', '..', 'src', 'server');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

describe('statuses in SQL', () => {
  it('sqlList quotes constant words, and refuses input-like text and an empty list', () => {
    assert.equal(sqlList(OPEN_STATUSES), "'awaiting_payment', 'underpaid'");
    assert.equal(sqlList(UNSETTLED_STATUSES), "'awaiting_payment', 'underpaid', 'confirming'");
    assert.deepEqual([...UNSETTLED_STATUSES].sort(), [...OPEN_STATUSES, 'confirming'].sort(), 'the unsettled statuses are the open ones and confirming');
    assert.throws(() => sqlList(["paid') OR ('1'='1"]), /not a constant word/);
    assert.throws(() => sqlList(['Paid']), /not a constant word/);
    assert.throws(() => sqlList([]), /at least one item/);
  });

  it('no query names an open status in a literal IN list', () => {
    const literal = /IN\s*\(\s*'(awaiting_payment|underpaid|confirming)'/;
    const found = sources(SERVER).filter((file) => literal.test(readFileSync(file, 'utf8')));
    assert.deepEqual(
      found.map((file) => path.relative(SERVER, file)),
      [],
    );
  });

  it('renders the sets that partial indexes name as their migrations spell them', () => {
    // checkout_sessions_public_donors and withdrawals_queue: the planner uses them for queries whose list is the same set.
    assert.equal(sqlList(SETTLED_STATUSES), "'paid', 'overpaid'");
    assert.equal(sqlList(UNFINISHED_WITHDRAWAL_STATUSES), "'pending', 'processing'");
  });

  it('no query spells a settled, unfinished or returned status set in a literal list', () => {
    const literals = [
      /IN\s*\(\s*'paid',\s*'overpaid'\s*\)/, // sessions: SETTLED_STATUSES
      /IN\s*\(\s*'pending',\s*'processing'\s*\)/, // withdrawals: UNFINISHED_WITHDRAWAL_STATUSES
      /IN\s*\(\s*'signed',\s*'sent',\s*'mined'\s*\)/, // payout transactions: payouts/repository.ts's UNFINISHED_STATUSES
      /IN\s*\(\s*'cancelled',\s*'failed'\s*\)/, // refunds: refunded-sql.ts's RETURNED
    ];
    const found = sources(SERVER).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return literals.filter((literal) => literal.test(text)).map((literal) => `${path.relative(SERVER, file)}: ${literal.source}`);
    });
    assert.deepEqual(found, []);
  });
});
