/**
 * `/v1/checkout/*` sessions: start one, read it, follow it live (SSE), and, on the sandbox chain,
 * simulate the customer's transfer. Keyless, like the rest of the checkout API.
 */
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from '../context.js';
import { readJsonBody } from '../context.js';
import type { MoneyServiceDeps } from '../money-deps.js';
import { getSession, simulatePayment, startSession, TERMINAL_STATUSES } from '../sessions.js';

export function sessionRoutes(deps: MoneyServiceDeps) {
  return new Hono<AppEnv>()
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
