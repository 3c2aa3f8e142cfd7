/**
 * `POST /v1/withdrawal` under load: the requests for one balance that arrive while its statement is
 * in flight are coalesced into the next one (group commit, ../coalesce.ts), each with its own answer.
 *
 * Every withdrawal of one balance (integrator, asset, network) must take that balance's row lock, so
 * concurrent requests for it run one after another whatever the pool size. Instead of a transaction
 * each (several round trips apiece, the pool's connections queued on one row while other requests
 * wait for a connection), this instance sends them in turns, one balance per lane: ONE statement per
 * turn (`recordWithdrawals`) records the whole batch, in arrival order.
 *
 * Nothing here decides anything: the statement walks the batch against the balance it locked, as if
 * the requests had come one by one (each reserved if what is still available covers it), refuses an
 * own deposit address, and stores each keyed request's answer with its change. Several instances, or
 * batches of one integrator on other balances, still meet in the database's locks and keys.
 *
 * Idempotency-Keys: a batch holds at most one request per key, so twins in one burst take turns: the
 * first is recorded, the next finds the key used and is answered from the database (`storedAnswer`:
 * the first's answer, or 409 for another request). When a twin on another balance or instance stored
 * a key first, the statement fails having changed nothing: the request whose key that was is answered
 * from it, and the rest of the batch goes again, no attempt counted against them (they did nothing wrong).
 *
 * When the statement fails, what each request is told depends on what is known of it:
 * - the database refused it for a serialization failure or a deadlock (nothing changed): the batch
 *   goes again after a short jittered pause, a few times at most;
 * - its answer was lost (the connection dropped, possibly after the COMMIT): the batch's withdrawals
 *   are looked up by their ids and keys, so each request recorded gets its true answer (the money
 *   moved: a 500 would make a client without a key send it again); a request found in neither is
 *   sent again with the same withdrawal id, which the table's key lets commit once at most; one
 *   whose outcome cannot be learned is told so (503 `withdrawal_outcome_unknown`: retry with the
 *   same Idempotency-Key).
 *
 * The payout workers hear of new withdrawals once the burst is recorded (`withdrawals.due`: this
 * instance's worker through `onRecorded`, every instance's through a NOTIFY), when no request is left
 * in the intake, or `announceWithinMs` after the first withdrawal not yet announced if requests keep
 * coming. Woken by the first turn of a burst, a worker would sign that one withdrawal alone and the
 * rest only after that round; woken after the burst, it signs them all in one batch.
 */
import { randomUUID } from 'node:crypto';
import type { WithdrawalRequest } from '../../../core/rules/withdrawal.js';
import type { PayoutRequest } from '../../chain/types.js';
import type { Database } from '../../db/index.js';
import { createCoalescer } from '../coalesce.js';
import { ApiError } from '../errors.js';
import { recordEvent } from '../events/index.js';
import { hashRequest, isKeyTaken, storedAnswer, usedKeys, type IdempotencyState, type StoredResponse } from '../idempotency/index.js';
import type { Principal } from '../keys/index.js';
import { recordedIds, recordWithdrawals, type WithdrawalRecordOutcome } from './repository.js';

/** The outcome of `POST /v1/withdrawal`: the status and body to send. */
export interface WithdrawalOutcome extends StoredResponse {
  statusCode: 200 | 422;
  /** The new withdrawal's id when this call created one. */
  createdId?: string;
}

/** Takes withdrawal requests and answers each, coalescing those of one balance (see the file's comment). */
export interface WithdrawalIntake {
  /** Records the withdrawal (or refuses it, or replays its key's answer); resolves with what to answer. */
  submit(principal: Principal, request: WithdrawalRequest, idempotency: IdempotencyState | undefined, now: Date): Promise<WithdrawalOutcome>;
}

export interface WithdrawalIntakeOptions {
  /** Most requests in one statement (default 100). */
  maxBatch?: number;
  /** Called once new withdrawals are recorded (see the file's comment): wake this instance's payout worker. */
  onRecorded?: () => void;
  /** Called with each turn's requests as its statement starts (some may be refused): the payouts prepare them meanwhile. */
  onTurn?: (requests: readonly PayoutRequest[]) => void;
  /** Longest a recorded withdrawal waits to be announced while requests keep coming, in ms (default 50). */
  announceWithinMs?: number;
}

/** How many times a batch may fail on a key that no look then finds stored before that error is its requests' answer. */
const KEY_RACE_ATTEMPTS = 5;
/** How many times one request's statement may meet a serialization failure or a deadlock before that error is its answer. */
const BUSY_ATTEMPTS = 5;
/** The pause before the first retry after a serialization failure or a deadlock, in ms: doubled each time, ±50 % at random. */
const BUSY_BACKOFF_MS = 5;
/** How many times one request may be sent again after its statement's answer was lost and it was found unrecorded. */
const LOST_REPLY_ATTEMPTS = 3;

interface Waiting {
  principal: Principal;
  request: WithdrawalRequest;
  idempotency: IdempotencyState | undefined;
  /** What makes two requests the same one (hashed for the key): the normalized request, the address in any case. */
  fingerprint: unknown[];
  id: string;
  createdAt: Date;
  /** This request's failed attempts, by cause (see the file's comment). */
  tries: { keyRace: number; busy: number; lost: number };
  resolve(outcome: WithdrawalOutcome): void;
  reject(error: unknown): void;
}

/** The answers of a request, one per outcome that stores one. */
function answersOf(request: WithdrawalRequest, id: string): Record<Exclude<WithdrawalRecordOutcome, 'key_used'>, WithdrawalOutcome> {
  const insufficient = new ApiError(
    422,
    'insufficient_balance',
    `The available ${request.assetId} balance on ${request.blockchainId} does not cover ${request.amount} ${request.assetId}`,
  );
  return {
    created: {
      statusCode: 200,
      body: { message: `Withdrawal of ${request.amount} ${request.assetId} to ${request.address} initiated`, status: 'success', statusCode: 200, id },
      createdId: id,
    },
    insufficient_balance: { statusCode: 422, body: { ...insufficient.toJSON() } },
    own_deposit_address: { statusCode: 422, body: { ...ownDepositAddress(request.address).toJSON() } },
  };
}

/**
 * Why a withdrawal to one of the merchant's own deposit addresses is refused rather than sent: the
 * scanner would read the payout as a customer's (late) payment and credit it back, so the merchant
 * would pay gas to move funds in a circle, and the tokens would then sit at a deposit address until a
 * sweep. Nothing useful can come of it, so it is refused before anything is reserved or sent.
 */
function ownDepositAddress(address: string): ApiError {
  const message = `${address} is one of your own deposit addresses (where a customer pays a checkout): a withdrawal there would come back as a late payment. Withdraw to a wallet you hold; to collect what deposit addresses received, run paylink sweep`;
  return new ApiError(422, 'own_deposit_address', message, [{ path: 'address', message }]);
}

/** What a request whose statement's answer was lost, and whose outcome could not be learned, is told. */
function outcomeUnknown(): ApiError {
  return new ApiError(
    503,
    'withdrawal_outcome_unknown',
    "The database's answer to this withdrawal was lost, so whether it was recorded is not known: retry with the same Idempotency-Key to get its answer (without one, look for it in GET /v1/withdrawal before sending it again)",
    undefined,
    { 'retry-after': '1' },
  );
}

/** Whether the database rolled the statement back for a serialization failure or a deadlock: it may simply go again. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

/**
 * Whether the database itself answered that the statement failed (a SQLSTATE of its own), so that it
 * changed nothing, rather than its answer being lost: not a lost connection (class 08), an operator's
 * intervention or a shutdown (57), a system error (58, XX), nor an error without a SQLSTATE (the
 * client's own, e.g. "Connection terminated").
 */
function isRefusedByDatabase(error: unknown): boolean {
  // The server's error message has a severity; a socket's error can have a five-letter code too (EPIPE).
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof severity === 'string' && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^(08|57|58|XX)/.test(code);
}

/** The Idempotency-Keys of `items` (those that have one). */
const keysOf = (items: readonly Waiting[]) => items.flatMap((item) => (item.idempotency?.key === undefined ? [] : [item.idempotency.key]));

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The next batch, in arrival order: at most one request per Idempotency-Key (a twin waits for the next turn). */
function oneTwinEach(waiting: readonly Waiting[], maxBatch: number): Waiting[] {
  const keys = new Set<string>();
  const batch: Waiting[] = [];
  for (const item of waiting) {
    if (batch.length >= maxBatch) break;
    const key = item.idempotency?.key;
    if (key !== undefined) {
      if (keys.has(key)) continue;
      keys.add(key);
    }
    batch.push(item);
  }
  return batch;
}

/** An intake on `db`: one per app, so its lanes are this instance's. */
export function createWithdrawalIntake(db: Database, options: WithdrawalIntakeOptions = {}): WithdrawalIntake {
  let inIntake = 0;
  let unannounced: NodeJS.Timeout | undefined;
  const announce = () => {
    clearTimeout(unannounced);
    unannounced = undefined;
    options.onRecorded?.();
    // A wake-up, not a record: should it fail, the workers still find the withdrawals when they next look.
    recordEvent(db, { type: 'withdrawals.due' }).catch(() => {});
  };
  const answered = (created: boolean) => {
    inIntake--;
    if (created && !unannounced) (unannounced = setTimeout(announce, options.announceWithinMs ?? 50)).unref();
    if (inIntake === 0 && unannounced) announce();
  };

  /** Answers a request whose key was used before: the stored answer (a replay or 409), or another turn if none is stored. */
  const answerFromKey = (lane: string, item: Waiting) =>
    storedAnswer(db, item.idempotency, item.principal.integratorId, item.fingerprint).then(
      // Only this route's requests hash to this request's digest, so what is stored is one of its answers.
      (stored) => (stored ? item.resolve(stored as WithdrawalOutcome) : lanes.add(lane, item)),
      (error: unknown) => item.reject(error),
    );

  /**
   * Hands `batch` back for another turn after a failed attempt, counted (under `cause`) against the
   * requests of `counted`; each of them out of attempts is answered `refusal` instead.
   */
  const retry = (
    batch: readonly Waiting[],
    counted: readonly Waiting[],
    cause: keyof Waiting['tries'],
    limit: number,
    refusal: unknown,
    again: (items: readonly Waiting[]) => void,
  ) => {
    const out = new Set(counted.filter((item) => ++item.tries[cause] >= limit));
    for (const item of out) item.reject(refusal);
    again(batch.filter((item) => !out.has(item)));
  };

  /**
   * After a statement whose answer was lost (or that met what an earlier, lost attempt of this batch
   * recorded): answers each request from what was committed, and sends again, with the same
   * withdrawal id, each that was not recorded.
   */
  const settleFromCommitted = async (lane: string, batch: Waiting[], answers: ReturnType<typeof answersOf>[], again: (items: readonly Waiting[]) => void) => {
    const integratorId = batch[0]!.principal.integratorId;
    let recorded: Set<string>;
    let keysUsed: Set<string>;
    try {
      recorded = await recordedIds(
        db,
        integratorId,
        batch.map((item) => item.id),
      );
      keysUsed = await usedKeys(db, integratorId, keysOf(batch));
    } catch {
      for (const item of batch) item.reject(outcomeUnknown());
      return;
    }
    const unrecorded: Waiting[] = [];
    for (const [i, item] of batch.entries()) {
      if (recorded.has(item.id)) item.resolve(answers[i]!.created);
      else if (item.idempotency?.key !== undefined && keysUsed.has(item.idempotency.key)) void answerFromKey(lane, item);
      else unrecorded.push(item);
    }
    retry(unrecorded, unrecorded, 'lost', LOST_REPLY_ATTEMPTS, outcomeUnknown(), again);
  };

  const lanes = createCoalescer<Waiting>({
    maxBatch: options.maxBatch,
    take: oneTwinEach,
    async run(lane, batch, again) {
      const { principal, request } = batch[0]!;
      const answers = batch.map((item) => answersOf(item.request, item.id));
      options.onTurn?.(
        batch.map((item) => ({
          withdrawalId: item.id,
          blockchainId: item.request.blockchainId,
          assetId: item.request.assetId,
          address: item.request.address,
          amount: item.request.amount,
        })),
      );
      let outcomes: WithdrawalRecordOutcome[];
      try {
        outcomes = await recordWithdrawals(
          db,
          { integratorId: principal.integratorId, assetId: request.assetId, blockchainId: request.blockchainId },
          batch.map((item, i) => ({
            id: item.id,
            amount: item.request.amount,
            address: item.request.address,
            createdAt: item.createdAt,
            idempotency:
              item.idempotency?.key === undefined ? undefined : { key: item.idempotency.key, requestHash: hashRequest(item.fingerprint), answers: answers[i]! },
          })),
        );
      } catch (error) {
        if (isKeyTaken(error)) {
          // Nothing was written, and the request that took the key has committed it. The requests whose
          // keys are now used are answered from them (a replay, or 409); the others go again, their
          // attempts uncounted: they did nothing wrong, and each such turn answers at least one request.
          const taken = await usedKeys(db, principal.integratorId, keysOf(batch)).catch(() => undefined);
          const raced = batch.filter((item) => item.idempotency?.key !== undefined && taken?.has(item.idempotency.key));
          for (const item of raced) void answerFromKey(lane, item);
          if (raced.length > 0) again(batch.filter((item) => !raced.includes(item)));
          // Should the look fail or find none, every request counts it: the retries stay bounded.
          else retry(batch, batch, 'keyRace', KEY_RACE_ATTEMPTS, error, again);
          return;
        }
        if (isBusy(error)) {
          // Nothing was written: the same batch (and whoever arrived meanwhile) goes again after a
          // pause, jittered so that two instances that collided do not collide again.
          const tries = Math.max(...batch.map((item) => item.tries.busy));
          await pause(BUSY_BACKOFF_MS * 2 ** tries * (0.5 + Math.random()));
          retry(batch, batch, 'busy', BUSY_ATTEMPTS, error, again);
          return;
        }
        // The database refused the statement, so it changed nothing; unless an earlier attempt's answer
        // was lost (what it recorded may be what this one met), that is the answer.
        if (isRefusedByDatabase(error) && batch.every((item) => item.tries.lost === 0)) throw error;
        await settleFromCommitted(lane, batch, answers, again);
        return;
      }
      for (const [i, item] of batch.entries()) {
        const outcome = outcomes[i]!;
        if (outcome !== 'key_used') item.resolve(answers[i]![outcome]);
        else void answerFromKey(lane, item);
      }
    },
  });

  return {
    submit(principal, request, idempotency, now) {
      const fingerprint = ['POST /v1/withdrawal', request.amount, request.assetId, request.blockchainId, request.address.toLowerCase()];
      inIntake++;
      return new Promise((resolve, reject) =>
        lanes.add(`${principal.integratorId} ${request.assetId} ${request.blockchainId}`, {
          principal,
          request,
          idempotency,
          fingerprint,
          id: randomUUID(),
          createdAt: now,
          tries: { keyRace: 0, busy: 0, lost: 0 },
          resolve: (outcome) => {
            resolve(outcome);
            answered(outcome.createdId !== undefined);
          },
          reject: (error) => {
            reject(error);
            answered(false);
          },
        }),
      );
    },
  };
}
