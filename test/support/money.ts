/**
 * Helpers of the money tests: fund a balance through the real path (link → session →
 * simulate-payment), read balances and the ledger, and follow a session's SSE stream.
 */
import assert from 'node:assert/strict';
import type { Database } from '../../src/server/db/index.js';
import { reconcile } from '../../src/server/service/ledger/index.js';
import { call, standardLinkBody } from './service.js';

/** A valid EIP-55 address (the EIP's own example). */
export const GOOD_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** A test clock the service reads through `now`. */
export function testClock(start = Date.now()) {
  let current = start;
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current += ms;
    },
  };
}

/** Creates a Standard USD link priced `amount`, returns its slug. USD→USDT is 1:1 in the sandbox table. */
export async function createUsdLink(url: string, key: string, amount: string | number, overrides: Record<string, unknown> = {}) {
  const link = await call(url, 'POST', '/v1/payment-link', {
    key,
    body: standardLinkBody({ fiatAmount: amount, fiatCurrency: ['USD'], ...overrides }),
  });
  assert.equal(link.status, 201, JSON.stringify(link.body));
  return link.body.slug as string;
}

/** Starts a session on `slug` in `assetId`, asserting 201. */
export async function startSession(url: string, slug: string, body: Record<string, unknown> = { assetId: 'USDT' }) {
  const session = await call(url, 'POST', `/v1/checkout/${slug}/sessions`, { body });
  assert.equal(session.status, 201, JSON.stringify(session.body));
  return session.body;
}

/** Creates an order of `amount` USD (USD→USDT is 1:1 in the sandbox table) named `reference`, with overrides; returns it. */
export async function createUsdOrder(url: string, key: string, amount: string, reference: string, overrides: Record<string, unknown> = {}) {
  const order = await call(url, 'POST', '/v1/order', { key, body: { fiatAmount: amount, fiatCurrency: 'USD', reference, ...overrides } });
  assert.equal(order.status, 201, JSON.stringify(order.body));
  return order.body as { id: string; url: string; status: string; reference: string; fiatAmount: string; expiresAt: string };
}

/** Starts a session of order `orderId` (keyless), asserting 201. */
export async function startOrderSession(url: string, orderId: string, body: Record<string, unknown> = { assetId: 'USDT' }) {
  const session = await call(url, 'POST', `/v1/checkout/orders/${orderId}/sessions`, { body });
  assert.equal(session.status, 201, JSON.stringify(session.body));
  return session.body;
}

/**
 * Credits `amount` USDT (or CNGN) to the key's integrator the way a customer would: a link, a
 * session, a simulated transfer of the full amount.
 */
export async function fund(url: string, key: string, amount: string, assetId: 'USDT' | 'CNGN' = 'USDT') {
  const slug = await createUsdLink(url, key, assetId === 'USDT' ? amount : '1');
  const session = await startSession(url, slug, { assetId });
  const paid = await call(url, 'POST', `/v1/checkout/sessions/${session.id}/simulate-payment`, {
    body: assetId === 'USDT' ? {} : { amount },
  });
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  return session.id as string;
}

export async function balanceOf(url: string, key: string, assetId = 'USDT') {
  const response = await call(url, 'GET', '/v1/balance', { key });
  assert.equal(response.status, 200);
  const item = response.body.items.find((i: { assetId: string }) => i.assetId === assetId);
  return item as { assetId: string; available: string; pending: string };
}

/** Asserts that for every asset the ledger sums equal the balance. */
export async function assertLedgerMatches(db: Database, integratorId: string) {
  for (const row of await reconcile(db, integratorId)) {
    assert.equal(row.ledgerAvailable, row.available, `${row.assetId}: ledger available ≠ balance`);
    assert.equal(row.ledgerPending, row.pending, `${row.assetId}: ledger pending ≠ balance`);
  }
}

export async function countRows(db: Database, table: string, where = 'true', params: unknown[] = []) {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params);
  return rows[0]!.n;
}

/** The condition wait, kept here for the money tests that import it with these helpers. */
export { eventually } from './wait.js';

export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Opens an SSE stream and collects its events. `next()` resolves with the next event;
 * `ended` resolves when the server closes the stream; `comments` counts heartbeat lines.
 */
export async function openEventStream(url: string) {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
  const events: SseEvent[] = [];
  const waiters: Array<() => void> = [];
  let comments = 0;
  let read = 0;
  const ended = (async () => {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let index: number;
        while ((index = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, index);
          buffer = buffer.slice(index + 2);
          const lines = block.split('\n');
          if (lines.every((line) => line.startsWith(':'))) {
            comments++;
            continue;
          }
          const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
          const data = lines
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          events.push({ event, data });
          waiters.splice(0).forEach((wake) => wake());
        }
      }
    } catch {
      // aborted
    }
    waiters.splice(0).forEach((wake) => wake());
    return true;
  })();
  let finished = false;
  void ended.then(() => (finished = true));
  return {
    response,
    events,
    get comments() {
      return comments;
    },
    ended,
    async next(timeoutMs = 5000): Promise<SseEvent> {
      const deadline = Date.now() + timeoutMs;
      while (read >= events.length) {
        if (finished) throw new Error('stream ended');
        if (Date.now() > deadline) throw new Error('timed out waiting for an SSE event');
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return events[read++]!;
    },
    close: () => controller.abort(),
  };
}
