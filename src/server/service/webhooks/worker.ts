/**
 * The delivery worker: sends what the outbox holds, at least once, each attempt by one
 * instance.
 *
 * The worker claims due deliveries in one statement (`FOR UPDATE SKIP LOCKED`) under a lease
 * (`leaseMs`, well over the 10 s an attempt may take), sends them, and records each attempt in its own
 * transaction, only under the claim that made it (and never claims again what it is still sending). So any number of instances share the queue
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
import type { Database, Queryable } from '../../db/index.js';
import { defaultLogger, type LogFields, type Logger } from '../../log.js';
import { runtimeMetrics } from '../../metrics/runtime.js';
import { createWakeUp } from '../../wake-up.js';
import { WEBHOOK_CHANNEL } from '../events/index.js';
import { claimDue, nextDueAt, recordAttempt, type AttemptOutcome, type ClaimedDelivery } from './delivery-repository.js';
import { sendAttempt } from './sender.js';
import type { WebhookSettings } from './settings.js';

/** What sending needs: the database, the service clock, and this instance's settings. */
export interface WebhookDeps {
  db: Database;
  now: () => Date;
  webhooks: WebhookSettings;
  /**
   * Where the worker's own failures are logged, and the reason of a failed connection (the delivery log
   * gives the key holder one sentence for all); default: the process's log.
   */
  log?: Logger | undefined;
}

export interface WebhookWorkerOptions {
  /** Longest an idle worker sleeps before looking again, in ms (default 5000); new events and due retries wake it sooner. */
  pollIntervalMs?: number;
  /** Attempts in flight at once (default 20). */
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
    { url: claimed.url, secret: claimed.secret, previousSecret: claimed.previous_secret, eventId: claimed.event_id, body: claimed.body },
    deps.webhooks,
    deps.now(),
    (reason) =>
      (deps.log ?? defaultLogger).warn('webhook_connect_failed', 'a webhook delivery could not connect to its endpoint', {
        endpointId: claimed.endpoint_id,
        deliveryId: claimed.id,
        reason,
      }),
  );
  runtimeMetrics.webhookAttempt(result.error === null);
  const now = deps.now();
  let outcome: AttemptOutcome = { status: 'delivered' };
  if (result.error !== null) {
    const retryAt = new Date(now.getTime() + retryDelayMs(claimed.attempt_count + 1, deps.webhooks.retryBaseMs));
    outcome = retryAt.getTime() <= claimed.retry_until.getTime() ? { status: 'pending', retryAt } : { status: 'failed' };
  }
  return deps.db.transaction((tx) => recordAttempt(tx, claimed, result, outcome, now));
}

/** Logs a failure of the worker itself (the database), never what a delivery carries. */
function logFailure(deps: WebhookDeps, code: string, message: string, error: unknown, fields: LogFields = {}): void {
  (deps.log ?? defaultLogger).error(code, message, { ...fields, error });
}

/**
 * Claims up to `batchSize` due deliveries (none of `skipIds`) and attempts them; resolves with how many
 * it claimed once all are recorded.
 */
export async function processDueDeliveries(deps: WebhookDeps, batchSize = 20, skipIds: readonly string[] = []): Promise<number> {
  const claimed = await claimBatch(deps, batchSize, skipIds);
  await Promise.all(claimed.map((delivery) => attemptLogged(deps, delivery)));
  return claimed.length;
}

function claimBatch(deps: WebhookDeps, batch: number, skipIds: readonly string[]): Promise<ClaimedDelivery[]> {
  return deps.db.transaction((tx) => claimDue(tx, { claimId: randomUUID(), now: deps.now(), leaseMs: deps.webhooks.leaseMs, batch, skipIds }));
}

function attemptLogged(deps: WebhookDeps, delivery: ClaimedDelivery): Promise<unknown> {
  return attempt(deps, delivery).catch((error) =>
    logFailure(deps, 'webhook_attempt_unrecorded', 'a webhook attempt could not be recorded: the delivery is tried again once its claim runs out', error, {
      deliveryId: delivery.id,
    }),
  );
}

/**
 * Claims one delivery for an attempt now, whatever its schedule, in the caller's transaction `tx`: the
 * one that made it due (a test event's insert, a manual retry's reschedule). A worker polling in
 * between would otherwise take it first, and the caller would answer before any attempt. Undefined
 * when another worker holds it at this moment (that worker's attempt is the one).
 */
export async function claimNow(tx: Queryable, deps: WebhookDeps, deliveryId: string): Promise<ClaimedDelivery | undefined> {
  const [claimed] = await claimDue(tx, { claimId: randomUUID(), now: deps.now(), leaseMs: deps.webhooks.leaseMs, batch: 1, onlyId: deliveryId });
  return claimed;
}

/** Sends a delivery that `claimNow` claimed and records the attempt; false when it claimed none, or the claim was taken over meanwhile. */
export async function attemptNow(deps: WebhookDeps, claimed: ClaimedDelivery | undefined): Promise<boolean> {
  return claimed ? attempt(deps, claimed) : false;
}

/**
 * Starts a worker (listening for new events); it runs until `stop()`. Up to `batchSize` attempts are in
 * flight at once, and a free slot is filled as soon as it frees: an endpoint that takes its full 10 s
 * holds one slot, never the deliveries to everyone else.
 */
export function startWebhookWorker(deps: WebhookDeps, options: WebhookWorkerOptions = {}): WebhookWorker {
  const pollIntervalMs = options.pollIntervalMs ?? 5000;
  const concurrency = options.batchSize ?? 20;
  const inFlight = new Map<string, Promise<unknown>>();
  let running = true;
  const alarm = createWakeUp();
  const kick = () => alarm.wake();
  const listening = deps.db.listen(WEBHOOK_CHANNEL, kick, kick).catch((error) => {
    logFailure(deps, 'webhook_listen_failed', 'the webhook worker could not LISTEN for new events: it polls instead', error);
    return undefined;
  });

  /** Claims what fits in the free slots and starts those attempts; resolves with how many it claimed. */
  const fill = async (): Promise<number> => {
    const free = concurrency - inFlight.size;
    if (free <= 0) return 0;
    const claimed = await claimBatch(deps, free, [...inFlight.keys()]);
    for (const delivery of claimed) {
      const done = attemptLogged(deps, delivery).finally(() => {
        inFlight.delete(delivery.id);
        kick(); // a slot is free, and a failed attempt may be due again soon
      });
      inFlight.set(delivery.id, done);
    }
    return claimed.length;
  };

  const loop = (async () => {
    while (running) {
      let claimed = 0;
      let wait = pollIntervalMs;
      try {
        alarm.reset();
        claimed = await fill();
        if (claimed === 0 && running && inFlight.size < concurrency) {
          const due = await nextDueAt(deps.db);
          // Not below 20 ms: a due delivery another worker is claiming right now must not make this one spin.
          if (due) wait = Math.min(pollIntervalMs, Math.max(20, due.getTime() - deps.now().getTime()));
        }
      } catch (error) {
        if (running) logFailure(deps, 'webhook_round_failed', 'a round of webhook deliveries failed; the next one tries again', error);
      }
      if (!running) break;
      if ((claimed > 0 && inFlight.size < concurrency) || alarm.woken) continue;
      await alarm.sleep(wait);
    }
  })();

  return {
    kick,
    runOnce: () => processDueDeliveries(deps, concurrency, [...inFlight.keys()]),
    async stop() {
      running = false;
      alarm.wake();
      await loop;
      await Promise.all(inFlight.values());
      const unlisten = await listening;
      await unlisten?.().catch(() => {});
    },
  };
}
