/**
 * The event types come from one list (`WEBHOOK_EVENT_TYPES`): the API reference's table of events
 * names each of them, and no other; the README's recipe says when to ship on `checkout.session.paid`,
 * when to wait for `checkout.session.finalized`, and what `payment.reversed` means.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { WEBHOOK_EVENT_TYPES } from '../../../../src/core/rules/webhooks.js';

const read = (file: string) => readFileSync(new URL(`../../../../${file}`, import.meta.url), 'utf8');

describe('webhook event types', () => {
  it('docs/api.md lists every event type of the one list in its table of events, and no other', () => {
    const api = read('docs/api.md');
    const table = api.slice(api.indexOf('| `type` | when | `data.object` |'));
    const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
    const listed = rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([a-z.]+)`/g)].map((match) => match[1]!));
    assert.deepEqual([...listed].sort(), [...WEBHOOK_EVENT_TYPES].sort());
  });

  it('the README says when to ship on paid, when to wait for finalized, and what reversed means', () => {
    const readme = read('README.md');
    for (const type of ['checkout.session.paid', 'checkout.session.finalized', 'payment.reversed']) assert.ok(readme.includes(`\`${type}\``), type);
    assert.match(readme, /`checkout\.session\.finalized` says the\s+money is final/);
  });
});
