/**
 * The route table's `/v1/checkout/*` operations: the keyless public API the checkout element calls: a
 * link's public view and its visits (served with the links room's functions), an order's public view
 * (the orders room's) and sessions of either: start one, read it, follow it live (SSE), and, on the
 * sandbox chain, simulate the customer's transfer.
 *
 * What faces the internet here is limited per client (`server/limits/options.ts`
 * has the defaults): session starts and visits by a token bucket each (429 with `Retry-After`, before
 * the body is read or the database touched), the visits one client adds to a link's `visitedCount`
 * (more are answered `counted: false` and write nothing), and open event streams per client and in total.
 */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import { TERMINAL_STATUSES } from '../../../core/rules/session.js';
import type { CheckoutSession } from '../../../core/schemas.js';
import { createClientAddressResolver } from '../../limits/client-address.js';
import { resolvePublicWriteLimits, resolveStreamLimits } from '../../limits/options.js';
import { createStreamCounter, streamRefusalError } from '../../limits/stream-counter.js';
import { defaultLogger } from '../../log.js';
import { createRateLimiter, type RateLimiter } from '../../limits/rate-limit.js';
import { type AppEnv, clientOf, readJsonBody } from '../context.js';
import { ApiError } from '../errors.js';
import { recordVisit, toPublicLink, type LinkCache } from '../links/index.js';
import type { MoneyServiceDeps } from '../money-deps.js';
import type { RoomOperations } from '../operations.js';
import { readOrder, toPublicOrder } from '../orders/index.js';
import { getSession, simulatePayment, startOrderSession, startSession } from './domain.js';
import { listPublicDonors } from './records.js';
import { createVisitGate } from './visit-gate.js';

/** The keyless checkout API's handlers by operation id. */
export function checkoutOperations(deps: MoneyServiceDeps, links: LinkCache) {
  const { db, chain, publicUrl } = deps;
  const log = deps.log ?? defaultLogger;
  const clientAddress = deps.clientAddress ?? createClientAddressResolver(undefined);
  const writes = resolvePublicWriteLimits(deps.limits);
  const streamCaps = resolveStreamLimits(deps.limits);
  const streams = createStreamCounter(streamCaps.maxEventStreamsPerClient, streamCaps.maxEventStreamsTotal);
  const visitGate = writes.maxVisitsPerClient === false ? undefined : createVisitGate({ maxPerClient: writes.maxVisitsPerClient });

  /** A token per request from the client's bucket; 429 past it, before anything is read. */
  const rateLimited = (limiter: RateLimiter | undefined, what: string): MiddlewareHandler<AppEnv> => {
    if (!limiter) return (_c, next) => next();
    return (c, next) => {
      const client = clientOf(c, clientAddress);
      if (client === undefined) return next();
      const decision = limiter.take(client);
      if (decision.allowed) return next();
      const seconds = String(decision.retryAfterSeconds);
      log.throttled('warn', 'rate_limited', `${what} refused past the per-client rate limit`, { requestId: c.get('requestId'), client });
      throw new ApiError(429, 'rate_limited', `Too many ${what}; retry in ${seconds} s`, undefined, { 'retry-after': seconds });
    };
  };
  const sessionsLimited = rateLimited(writes.sessionRateLimit === false ? undefined : createRateLimiter(writes.sessionRateLimit), 'checkout sessions');
  const visitsLimited = rateLimited(writes.visitRateLimit === false ? undefined : createRateLimiter(writes.visitRateLimit), 'visits');

  return {
    getPublicLink: async (c) => {
      const row = await links.get(c.req.param('slug'));
      return c.json(toPublicLink(row, publicUrl, chain, deps.now()));
    },
    recordVisit: {
      use: [visitsLimited],
      handler: async (c) => {
        const { visitId = randomUUID() } = c.req.valid('json');
        const slug = c.req.param('slug');
        const client = clientOf(c, clientAddress);
        const seat = client === undefined ? undefined : visitGate?.take(client, slug);
        if (seat === false) {
          // This client has added its share of visits to this link lately: answered, not counted, nothing written.
          await links.get(slug); // still a 404 for a link that does not exist
          return c.json({ counted: false, visitId }, 200);
        }
        const counted = await recordVisit(db, slug, visitId).catch((error: unknown) => {
          seat?.giveBack();
          throw error;
        });
        if (!counted) seat?.giveBack();
        return c.json({ counted, visitId }, 200);
      },
    },
    listPublicDonors: async (c) => {
      const link = await links.get(c.req.param('slug'));
      const donors = link.link_type === 'Donation' ? await listPublicDonors(db, link.id, c.req.valid('query').limit) : { items: [] };
      return c.json(donors);
    },
    startCheckoutSession: {
      use: [sessionsLimited],
      bodyInHandler: true,
      handler: async (c) => {
        const session = await startSession(deps, c.req.param('slug'), await readJsonBody(c));
        return c.json(session, 201);
      },
    },
    getPublicOrder: async (c) => c.json(toPublicOrder(await readOrder(db, c.req.param('id'), deps.now()), chain)),
    startOrderSession: {
      use: [sessionsLimited],
      bodyInHandler: true,
      handler: async (c) => {
        const session = await startOrderSession(deps, c.req.param('id'), await readJsonBody(c));
        return c.json(session, 201);
      },
    },
    getCheckoutSession: async (c) => c.json(await getSession(deps, c.req.param('id'))),
    streamCheckoutSession: async (c) => {
      const id = c.req.param('id');
      const client = clientOf(c, clientAddress);
      const release = streams.acquire(client);
      if (typeof release === 'string') {
        const refusal = streamRefusalError(release);
        log.throttled('warn', refusal.code, 'event streams refused', { requestId: c.get('requestId'), client, open: streams.open });
        throw new ApiError(refusal.status, refusal.code, refusal.message, undefined, { 'retry-after': refusal.retryAfter });
      }
      let feed: SessionFeed;
      try {
        feed = await SessionFeed.open(deps, id); // a 404 as JSON before any stream starts
      } catch (error) {
        release();
        throw error;
      }
      c.header('X-Accel-Buffering', 'no');
      return streamSSE(c, async (stream) => {
        try {
          await feed.follow(stream, deps.sseHeartbeatMs);
        } finally {
          release();
        }
      });
    },
    simulatePayment: {
      bodyInHandler: true,
      handler: async (c) => {
        const session = await simulatePayment(deps, c.req.param('id'), await readJsonBody(c));
        return c.json(session, 200);
      },
    },
  } satisfies RoomOperations;
}

/**
 * One stream's view of its session's topic (./events/session-events.ts): the topic reads the session
 * once per change for all its streams, and each stream writes what it has not written yet. Streams
 * `event: status` with the session JSON: first the current state, then one event per change, until a
 * terminal status (then the stream closes). A read that finds nothing new writes a heartbeat comment.
 * When the service stops, the stream says `retry:` (a reconnection delay, spread over a second so that
 * a thousand clients do not come back at once) and closes: an `EventSource` reconnects on its own,
 * through the load balancer to another instance, and hears the current state again.
 */
/** The reconnection delay an event stream is given when the service stops, plus up to the spread, in ms. */
const RECONNECT_MS = 250;
const RECONNECT_SPREAD_MS = 1000;

class SessionFeed {
  private latest: CheckoutSession | null = null;
  private heartbeat = false;
  private ended = false;
  private stopping = false;
  private wake: (() => void) | null = null;
  private unsubscribe: () => void = () => {};

  private constructor() {}

  /** Subscribes to `id` and waits for its first read: the session (or its 404) as of now. */
  static async open(deps: MoneyServiceDeps, id: string): Promise<SessionFeed> {
    const feed = new SessionFeed();
    let first!: { resolve(): void; reject(error: unknown): void };
    const firstRead = new Promise<void>((resolve, reject) => (first = { resolve, reject }));
    let started = false;
    feed.unsubscribe = await deps.sessionEvents.subscribe<CheckoutSession>(id, {
      read: () => getSession(deps, id),
      onRead: (session, cause) => {
        feed.take(session, cause);
        if (!started) {
          started = true;
          first.resolve();
        }
      },
      onReadError: (error) => {
        if (!started) {
          started = true;
          first.reject(error);
        }
        feed.end();
      },
      onClose: () => {
        if (!started) {
          started = true;
          first.reject(new ApiError(503, 'shutting_down', 'The service is stopping; retry in a moment'));
        }
        feed.stopping = true;
        feed.end();
      },
    });
    try {
      await firstRead;
    } catch (error) {
      feed.unsubscribe();
      throw error;
    }
    return feed;
  }

  private take(session: CheckoutSession, cause: string) {
    this.latest = session;
    if (cause === 'heartbeat') this.heartbeat = true;
    this.wake?.();
  }

  private end() {
    this.ended = true;
    this.wake?.();
  }

  /** Writes the session's states (and heartbeats) until it is terminal, the client goes or the service stops. */
  async follow(stream: SSEStreamingApi, heartbeatMs: number): Promise<void> {
    stream.onAbort(() => this.end());
    let written = '';
    try {
      while (!this.ended && !stream.aborted) {
        const session = this.latest;
        const heartbeat = this.heartbeat;
        this.latest = null;
        this.heartbeat = false;
        if (session) {
          const json = JSON.stringify(session);
          if (json !== written) {
            await stream.writeSSE({ event: 'status', data: json });
            written = json;
          } else if (heartbeat) {
            await stream.write(': heartbeat\n\n');
          }
          if (TERMINAL_STATUSES.has(session.status)) break;
        }
        if (this.latest || this.ended) continue;
        // Nothing new: wait for the topic (a change, a heartbeat read) or the end. The timer is a
        // backstop only: the topic's heartbeat read is what normally wakes a quiet stream.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, heartbeatMs * 2);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
      if (this.stopping && !stream.aborted) await stream.write(`retry: ${RECONNECT_MS + Math.floor(Math.random() * RECONNECT_SPREAD_MS)}\n\n`);
    } catch {
      // The client went away: nothing to tell anyone.
    } finally {
      this.unsubscribe();
    }
  }
}
