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
 * a key first, the statement fails having changed nothing and the batch goes again.
 *
 * The payout workers hear of new withdrawals once the burst is recorded (`withdrawals.due`: this
 * instance's worker through `onRecorded`, every instance's through a NOTIFY), when no request is left
 * in the intake, or `announceWithinMs` after the first withdrawal not yet announced if requests keep
 * coming. Woken by the first turn of a burst, a worker would sign that one withdrawal alone and the
 * rest only after that round; woken after the burst, it signs them all in one batch.
 */
import { randomUUID } from 'node:crypto';
import type { WithdrawalRequest } from '../../../core/rules/withdrawal.js';
import type { Database } from '../../db/index.js';
import { createCoalescer } from '../coalesce.js';
import { ApiError } from '../errors.js';
import { recordEvent } from '../events/index.js';
import { hashRequest, isKeyTaken, storedAnswer, type IdempotencyState, type StoredResponse } from '../idempotency/index.js';
import type { Principal } from '../keys/index.js';
import { recordWithdrawals, type WithdrawalRecordOutcome } from './repository.js';

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
  /** Longest a recorded withdrawal waits to be announced while requests keep coming, in ms (default 50). */
  announceWithinMs?: number;
}

/** How many times one request's batch may fail on a key that another request stored first before that error is its answer. */
const KEY_RACE_ATTEMPTS = 5;

interface Waiting {
  principal: Principal;
  request: WithdrawalRequest;
  idempotency: IdempotencyState | undefined;
  /** What makes two requests the same one (hashed for the key): the normalized request, the address in any case. */
  fingerprint: unknown[];
  id: string;
  createdAt: Date;
  attempts: number;
  resolve(outcome: WithdrawalOutcome): void;
  reject(error: unknown): void;
}

/** The answers of a request, one per outcome that stores one. */
function answersOf(request: WithdrawalRequest, id: string): Record<Exclude<WithdrawalRecordOutcome, 'key_used'>, WithdrawalOutcome> {
  const insufficient = new ApiError(422, 'insufficient_balance', `The available ${request.assetId} balance on ${request.blockchainId} does not cover ${request.amount} ${request.assetId}`);
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

  const lanes = createCoalescer<Waiting>({
    maxBatch: options.maxBatch,
    take: oneTwinEach,
    async run(lane, batch, again) {
      const { principal, request } = batch[0]!;
      const answers = batch.map((item) => answersOf(item.request, item.id));
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
            idempotency: item.idempotency?.key === undefined ? undefined : { key: item.idempotency.key, requestHash: hashRequest(item.fingerprint), answers: answers[i]! },
          })),
        );
      } catch (error) {
        if (!isKeyTaken(error)) throw error;
        // Nothing was written, and the request that took the key has committed it: the next turn finds it used.
        const retry = batch.filter((item) => ++item.attempts < KEY_RACE_ATTEMPTS);
        for (const item of batch) if (!retry.includes(item)) item.reject(error);
        again(retry);
        return;
      }
      for (const [i, item] of batch.entries()) {
        const outcome = outcomes[i]!;
        if (outcome !== 'key_used') item.resolve(answers[i]![outcome]);
        else
          storedAnswer(db, item.idempotency, item.principal.integratorId, item.fingerprint).then(
            // Only this route's requests hash to this request's digest, so what is stored is one of its answers.
            (stored) => (stored ? item.resolve(stored as WithdrawalOutcome) : lanes.add(lane, item)),
            (error: unknown) => item.reject(error),
          );
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
          attempts: 0,
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
