/**
 * The admin's CSV export of payments against formula injection: whatever a customer or a merchant
 * typed, no cell of the file starts a formula, whether a spreadsheet reads it with `,` (RFC 4180), with
 * `;` (the list separator of most European locales), with tabs, or line by line without quotes; and
 * the file read as RFC 4180 gives back every value, with only a `'` added where a formula could start.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { guardFormulas, paymentsCsv, PAYMENT_CSV_COLUMNS } from '../../../../src/components/admin/payments/payments-export.js';
import { makeSession } from '../../../browser/admin-fake-api.js';
import { readCsv } from '../../../support/csv.js';

/** What an attacker types where a customer or a merchant types (reference, title, address, email, metadata). */
const PAYLOADS = [
  '=HYPERLINK("https://evil.example","click")',
  '+cmd|" /C calc"!A0',
  '-2+3+cmd|" /C calc"!A0',
  '@SUM(1+1)*cmd|" /C calc"!A0',
  '\t=1+1',
  '\r=1+1',
  ' =1+1',
  'order-7;=HYPERLINK("https://evil.example")',
  'order-7; =1+1',
  'order-7,=1+1',
  'order-7\t=1+1',
  'order-7\n=1+1',
  'order-7\r\n@SUM(1)',
  'order-7;"=1+1',
  '＝HYPERLINK("https://evil.example")',
  'order-7;＋1',
  'order-7;－1',
  'order-7;＠SUM(1)',
  '\u200b=1+1',
  'order-7;\u200b=1+1',
  'order-7;\ufeff\u2060+1',
  'order-7;\u200d\u200c-1',
  'order-7;\u00ad@x',
  'a "quoted" ;=value',
  '﹦HYPERLINK("https://evil.example")',
  'order-7;﹢1',
  'order-7;﹣1+cmd|" /C calc"!A0',
  '−1+cmd|" /C calc"!A0',
  'order-7; ﹫SUM(1)',
  '⁼1+1',
  'order-7;₊1',
];

/** Characters a spreadsheet skips before it looks at a cell's first character. */
const SKIPPED = /^[\s"\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]*/;
/**
 * A character that starts a formula: `=`, `+`, `-`, `@`, a tab or a carriage return, the minus sign,
 * or anything Unicode's compatibility normalization (NFKC) turns into one of them.
 */
const FORMULA = /^[=+\-@\t\r\u2212]/;
const startsWithFormula = (text: string) => text !== '' && FORMULA.test(text[0]!.normalize('NFKC'));

/** True when a spreadsheet would read `cell` as a formula (after what it skips). */
function startsFormula(cell: string): boolean {
  return startsWithFormula(cell) || startsWithFormula(cell.replace(SKIPPED, ''));
}

/** The cells of the text split with no regard for quotes, on `separator` and on line breaks. */
function naiveCells(text: string, separator: string): string[] {
  return text.split(/\r\n|\r|\n/).flatMap((line) => line.split(separator));
}

/** A payment whose every free-text field (title, reference, customer details, metadata) holds `text`. */
function session(text: string) {
  return makeSession({
    linkTitle: text,
    reference: text,
    metadata: { note: text, [text]: 'x' },
    customer: { address: text, phone: '+2348012345678', email: text },
  });
}

describe('the payments CSV export', () => {
  const sessions = PAYLOADS.map(session);
  const csv = paymentsCsv(sessions);

  it('quotes every field, header included, and ends every row with CRLF', () => {
    const rows = csv.split('\r\n');
    assert.equal(rows.pop(), '', 'the file ends with a line break');
    assert.equal(rows[0], PAYMENT_CSV_COLUMNS.map(([name]) => `"${name}"`).join(','));
    // Outside quoted parts there is nothing but the separators.
    for (const row of rows.slice(0, 1)) assert.equal(row.replace(/"(?:[^"]|"")*"/g, ''), ','.repeat(PAYMENT_CSV_COLUMNS.length - 1));
    assert.equal(csv.replace(/"(?:[^"]|"")*"/g, '').replace(/\r\n/g, ''), ','.repeat(PAYMENT_CSV_COLUMNS.length - 1).repeat(sessions.length + 1));
  });

  for (const separator of [',', ';', '\t']) {
    it(`has no formula cell when a spreadsheet reads it with ${JSON.stringify(separator)} as the separator, quote-aware or not`, () => {
      const cells = [...readCsv(csv, separator).flat(), ...naiveCells(csv, separator)];
      const formulas = cells.filter(startsFormula);
      assert.deepEqual(formulas, [], `formula cells with ${JSON.stringify(separator)}`);
    });
  }

  it('read as RFC 4180, gives back each value with only the guard added', () => {
    const rows = readCsv(csv, ',');
    const reference = PAYMENT_CSV_COLUMNS.findIndex(([name]) => name === 'reference');
    const phone = PAYMENT_CSV_COLUMNS.findIndex(([name]) => name === 'customerPhone');
    for (const [i, payload] of PAYLOADS.entries()) {
      const cell = rows[i + 1]![reference]!;
      assert.equal(cell.replaceAll("'", ''), payload.replaceAll("'", ''), `${JSON.stringify(payload)}: nothing but quotes' guards changed`);
      assert.equal(cell, guardFormulas(payload));
      assert.equal(rows[i + 1]![phone], "'+2348012345678");
    }
    assert.equal(guardFormulas('order-1042'), 'order-1042', 'a plain value is unchanged');
    assert.equal(guardFormulas('1 Main St,\nIkeja'), '1 Main St,\nIkeja');
    assert.equal(guardFormulas('Bags, "limited" edition'), 'Bags, "limited" edition');
  });

  it('guards every character that normalizes to a formula start, wherever a cell could begin', () => {
    const lookAlikes: string[] = [];
    for (let code = 0x80; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCharCode(code);
      if (startsWithFormula(char)) lookAlikes.push(char);
    }
    assert.ok(lookAlikes.includes('\ufe66') && lookAlikes.includes('\u2212') && lookAlikes.length >= 15, `found ${lookAlikes.length}`);
    for (const char of lookAlikes) {
      assert.equal(guardFormulas(`${char}1+1`), `'${char}1+1`, `U+${char.charCodeAt(0).toString(16)} at the start`);
      assert.equal(guardFormulas(`x;${char}1`), `x;'${char}1`, `U+${char.charCodeAt(0).toString(16)} after a separator`);
    }
  });
});
