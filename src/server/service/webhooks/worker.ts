/**
 * The delivery worker (DESIGN §8): sends what the outbox holds, at least once, each attempt by one
 * instance.
 *
 * Each round claims a batch of due deliveries in one statement (`FOR UPDATE SKIP LOCKED`) under a
 * lease (`leaseMs`, well over the 10 s an attempt may take), sends them, and records each attempt in
 * its own transaction, only under the claim that made it. So any number of instances share the queue
 * and each attempt is made once; an instance that dies mid-send leaves its deliveries to the others
 * once the lease runs out, and they send the same event again (same id, new signature). Receivers
 * must therefore expect an event more than once and use its id to handle it once.
 *
 * A failed attempt is retried after `retryBaseMs`, then twice that, and so on, while the next try
 * falls within 3 days of the event (`retry_until`); then the delivery is `failed`. New events wake the
 * workers of every instance through `NOTIFY` (../events/record.ts); due retries are found by the
 * worker's own timer.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/index.js';
import { WEBHOOK_CHANNEL } from '../events/index.js';
import { claimDue, nextDueAt, recordAttempt, type AttemptOutcome, type ClaimedDelivery } from './delivery-repository.js';
import { sendAttempt } from './sender.js';
import type { WebhookSettings } from './settings.js';

/** What sending needs: the database, the service clock, and this instance's settings. */
export interface WebhookDeps {
  db: Database;
  now: () => Date;
  webhooks: WebhookSettings;
}

export interface WebhookWorkerOptions {
  /** Longest an idle worker sleeps before looking again, in ms (default 5000); new events and due retries wake it sooner. */
  pollIntervalMs?: number;
  /** Deliveries claimed (and sent concurrently) per round (default 20). */
  batchSize?: number;
}

export interface WebhookWorker {
  /** Look for work now. */
  kick(): void;
  /** One round: claims due deliveries and attempts each; resolves with how many. */
  runOnce(): Promise<number>;
  /** Stops claiming and waits for the attempts in flight (each at most the delivery timeout). */
  stop(): Promise<void>;
}

/** The delay before the retry that follows attempt number `attemptCount` (1-based): base, 2 × base, 4 × base… */
export function retryDelayMs(attemptCount: number, retryBaseMs: number): number {
  return retryBaseMs * 2 ** Math.min(Math.max(attemptCount - 1, 0), 40);
}

/** Sends one claimed delivery and records the attempt; false when the claim had been taken over meanwhile. */
async function attempt(deps: WebhookDeps, claimed: ClaimedDelivery): Promise<boolean> {
  const result = await sendAttempt(
    { url: claimed.url, secret: claimed.secret, eventId: claimed.event_id, body: claimed.body },
    deps.webhooks,
    deps.now(),
  );
  const now = deps.now();
  let outcome: AttemptOutcome = { status: 'delivered' };
  if (result.error !== null) {
    const retryAt = new Date(now.getTime() + retryDelayMs(claimed.attempt_count + 1, deps.webhooks.retryBaseMs));
    outcome = retryAt.getTime() <= claimed.retry_until.getTime() ? { status: 'pending', retryAt } : { status: 'failed' };
  }
  return deps.db.transaction((tx) => recordAttempt(tx, claimed, result, outcome, now));
}

/** Logs a failure of the worker itself (the database), never what a delivery carries. */
function logFailure(what: string, error: unknown): void {
  console.error(`[paylink] ${what}:`, error instanceof Error ? error.message : String(error));
}

/** One round: claims up to `batchSize` due deliveries and attempts them; resolves with how many it claimed. */
export async function processDueDeliveries(deps: WebhookDeps, batchSize = 20): Promise<number> {
  const claimed = await deps.db.transaction((tx) =>
    claimDue(tx, { claimId: randomUUID(), now: deps.now(), leaseMs: deps.webhooks.leaseMs, batch: batchSize }),
  );
  await Promise.all(claimed.map((delivery) => attempt(deps, delivery).catch((error) => logFailure(`webhook delivery ${delivery.id} not recorded`, error))));
  return claimed.length;
}

/**
 * Attempts one delivery now, whatever its schedule (a test event, a manual retry). Resolves false,
 * having sent nothing, when another worker holds it at this moment (that worker's attempt is the one).
 */
export async function deliverNow(deps: WebhookDeps, deliveryId: string): Promise<boolean> {
  const [claimed] = await deps.db.transaction((tx) =>
    claimDue(tx, { claimId: randomUUID(), now: deps.now(), leaseMs: deps.webhooks.leaseMs, batch: 1, onlyId: deliveryId }),
  );
  return claimed ? attempt(deps, claimed) : false;
}

/** Starts a worker loop (listening for new events); it runs until `stop()`. */
export function startWebhookWorker(deps: WebhookDeps, options: WebhookWorkerOptions = {}): WebhookWorker {
  const pollIntervalMs = options.pollIntervalMs ?? 5000;
  const batchSize = options.batchSize ?? 20;
  let running = true;
  let kicked = false;
  let wake: (() => void) | null = null;
  const kick = () => {
    kicked = true;
    wake?.();
  };
  const listening = deps.db.listen(WEBHOOK_CHANNEL, kick, kick).catch((error) => {
    logFailure('webhook worker could not LISTEN (it polls instead)', error);
    return undefined;
  });

  const runOnce = () => processDueDeliveries(deps, batchSize);
  const loop = (async () => {
    while (running) {
      let handled = 0;
      let wait = pollIntervalMs;
      try {
        kicked = false;
        handled = await runOnce();
        if (handled === 0 && running) {
          const due = await nextDueAt(deps.db);
          // Not below 20 ms: a due delivery another worker is claiming right now must not make this one spin.
          if (due) wait = Math.min(pollIntervalMs, Math.max(20, due.getTime() - deps.now().getTime()));
        }
      } catch (error) {
        if (running) logFailure('webhook round failed', error);
      }
      if (!running) break;
      if (handled > 0 || kicked) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          wake = null;
          resolve();
        }, wait);
        wake = () => {
          clearTimeout(timer);
          wake = null;
          resolve();
        };
      });
    }
  })();

  return {
    kick,
    runOnce,
    async stop() {
      running = false;
      wake?.();
      await loop;
      const unlisten = await listening;
      await unlisten?.().catch(() => {});
    },
  };
}
