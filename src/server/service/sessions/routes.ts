/**
 * `/v1/checkout/*`: the keyless public API the checkout element calls (DESIGN §4, public checkout
 * API): a link's public view and its visits (served with the links room's functions), and sessions:
 * start one, read it, follow it live (SSE), and, on the sandbox chain, simulate the customer's transfer.
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { TERMINAL_STATUSES } from '../../../core/rules/session.js';
import { RecordVisitInput } from '../../../core/schemas.js';
import { type AppEnv, jsonBody, readJsonBody } from '../context.js';
import { recordVisit, toPublicLink, type LinkCache } from '../links/index.js';
import type { MoneyServiceDeps } from '../money-deps.js';
import { getSession, simulatePayment, startSession } from './domain.js';

export function checkoutRoutes(deps: MoneyServiceDeps, links: LinkCache) {
  const { db, chain, publicUrl } = deps;
  return new Hono<AppEnv>()
    .get('/:slug', async (c) => {
      const row = await links.get(c.req.param('slug'));
      return c.json(toPublicLink(row, publicUrl, chain, deps.now()));
    })
    .post('/:slug/visits', jsonBody(RecordVisitInput), async (c) => {
      const { visitId = randomUUID() } = c.req.valid('json');
      const counted = await recordVisit(db, c.req.param('slug'), visitId);
      return c.json({ counted, visitId }, 200);
    })
    .post('/:slug/sessions', async (c) => {
      const session = await startSession(deps, c.req.param('slug'), await readJsonBody(c));
      return c.json(session, 201);
    })
    .get('/sessions/:id', async (c) => c.json(await getSession(deps, c.req.param('id'))))
    .post('/sessions/:id/simulate-payment', async (c) => {
      const session = await simulatePayment(deps, c.req.param('id'), await readJsonBody(c));
      return c.json(session, 200);
    })
    .get('/sessions/:id/events', async (c) => {
      const id = c.req.param('id');
      await getSession(deps, id); // 404 as JSON before any stream starts
      c.header('X-Accel-Buffering', 'no');
      return streamSSE(c, (stream) => followSession(deps, id, stream));
    });
}

/**
 * Streams `event: status` with the session JSON: first the current state, then one event per
 * change, until a terminal status (then the stream closes). Changes arrive through NOTIFY from any
 * instance; every heartbeat also re-reads the session, so a lost notification (or an expiry no one
 * else noticed) still reaches the client within one heartbeat.
 */
async function followSession(
  deps: MoneyServiceDeps,
  id: string,
  stream: import('hono/streaming').SSEStreamingApi,
): Promise<void> {
  let changed = false;
  let closing = false;
  let wake: (() => void) | null = null;
  const unsubscribe = await deps.sessionEvents
    .subscribe(id, {
      onChange: () => {
        changed = true;
        wake?.();
      },
      onClose: () => {
        closing = true;
        wake?.();
      },
    })
    .catch(() => null);
  if (!unsubscribe) return;
  stream.onAbort(() => {
    closing = true;
    wake?.();
  });
  let last = '';
  try {
    while (!closing && !stream.aborted) {
      changed = false;
      const session = await getSession(deps, id);
      const json = JSON.stringify(session);
      if (json !== last) {
        await stream.writeSSE({ event: 'status', data: json });
        last = json;
      }
      if (TERMINAL_STATUSES.has(session.status)) break;
      const heartbeat = await new Promise<boolean>((resolve) => {
        if (changed || closing) return resolve(false);
        const timer = setTimeout(() => {
          wake = null;
          resolve(true);
        }, deps.sseHeartbeatMs);
        wake = () => {
          clearTimeout(timer);
          wake = null;
          resolve(false);
        };
      });
      if (heartbeat && !closing && !stream.aborted) await stream.write(': heartbeat\n\n');
    }
  } catch {
    // The client went away or the service is stopping: nothing to tell anyone.
  } finally {
    unsubscribe();
  }
}
