/**
 * Session statuses in SQL come from the constants that define them: `sqlList` quotes the code's own
 * words (and refuses anything else), and no query under src/server spells a status set by hand.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { OPEN_STATUSES, UNSETTLED_STATUSES } from '../../../src/core/rules/session.js';
import { sqlList } from '../../../src/server/db/sql-list.js';

const SERVER = path.resolve(import.meta.dirname, '..', '..', '..', 'src', 'server');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

describe('session statuses in SQL', () => {
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
});
