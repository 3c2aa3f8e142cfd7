/**
 * Withdrawals (spec §2.3–2.4, §4.5–4.6; DESIGN §4): the rules on the request, the reservation of
 * funds, idempotency, and the SQL of `withdrawals` and `idempotency_keys`. The payout itself runs
 * in the background (./payouts.ts).
 *
 * Rules, each refused with a 400 naming the field:
 * - `assetId`: `USDT` or `CNGN`, any case (stored and returned uppercase);
 * - `blockchainId`: a configured network by id or alias, any case (`bsc`, `BSC`, `bnb-smart-chain`,
 *   `BNB Smart Chain`, `bep20`…; stored as the canonical id), carrying that asset;
 * - `address`: `0x` + 40 hex; mixed case must pass EIP-55 (stored in its checksummed spelling);
 * - `amount`: a number or decimal string, > 0, at most 6 decimals.
 * Then `amount` must be covered by the available balance of that asset: 422 `insufficient_balance`.
 *
 * `Idempotency-Key` (optional, 1–255 visible characters): the first request with a key stores its
 * response (200 or 422) with a hash of the normalized request; a replay with the same request gets
 * that response again (header `Idempotent-Replayed: true`) and moves no money; the same key with a
 * different request is 409 `idempotency_conflict`. Requests refused before any rule ran (400, 401)
 * are not stored. The key row is inserted first, in the transaction that moves the money, so a
 * concurrent twin waits on the unique key and then replays the committed response.
 */
import { createHash, randomUUID } from 'node:crypto';
import { compareDecimal, fractionDigits, toDecimalString, type AssetId } from '../../core/money.js';
import { CreateWithdrawalInput, ListWithdrawalsQuery, type FieldError, type Withdrawal, type WithdrawalStatus } from '../../core/schemas.js';
import { checkEvmAddress } from '../chain/evm.js';
import { findNetwork, type ChainAdapter } from '../chain/types.js';
import type { Database, Queryable } from '../db/index.js';
import { pageMeta, parseWith } from './context.js';
import { ApiError, notFound, validationError } from './errors.js';
import type { Principal } from './keys.js';
import { assetAmount, reserveForWithdrawal } from './ledger.js';
import type { z } from 'zod';

/** Largest single withdrawal: comfortably inside NUMERIC(30, 6). */
const MAX_AMOUNT = '1000000000000';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A withdrawal request after every rule has passed, in canonical form. */
export interface WithdrawalRequest {
  amount: string;
  assetId: AssetId;
  blockchainId: string;
  address: string;
}

/** Applies the rules to a request body; throws one 400 naming every offending field. */
export function parseWithdrawalRequest(body: unknown, chain: ChainAdapter): WithdrawalRequest {
  const input = parseWith(CreateWithdrawalInput, body);
  const errors: FieldError[] = [];
  const fail = (path: string, message: string) => errors.push({ path, message });

  const amount = toDecimalString(input.amount);
  if (amount === null || compareDecimal(amount, '0') <= 0) fail('amount', 'amount must be a positive number, such as 25 or "25.50"');
  else if (fractionDigits(amount) > 6) fail('amount', 'amount has at most 6 decimal places');
  else if (compareDecimal(amount, MAX_AMOUNT) > 0) fail('amount', `amount must be at most ${MAX_AMOUNT}`);

  const assetId = input.assetId.trim().toUpperCase();
  const assets = [...new Set(chain.networks.flatMap((n) => n.assets))];
  if (!assets.includes(assetId as AssetId)) fail('assetId', `assetId must be one of ${assets.join(', ')}`);

  const network = findNetwork(chain.networks, input.blockchainId);
  if (!network)
    fail('blockchainId', `blockchainId must name a supported network: ${chain.networks.map((n) => `${n.id} (${n.name})`).join(', ')}`);
  else if (assets.includes(assetId as AssetId) && !network.assets.includes(assetId as AssetId))
    fail('assetId', `${network.name} does not carry ${assetId}`);

  const address = checkEvmAddress(input.address);
  if (!address.ok) fail('address', address.message);

  if (errors.length || !network || !address.ok || amount === null) throw validationError(errors);
  return { amount, assetId: assetId as AssetId, blockchainId: network.id, address: address.address };
}

interface WithdrawalRow {
  id: string;
  amount: string;
  asset_id: AssetId;
  blockchain_id: string;
  address: string;
  status: WithdrawalStatus;
  tx_hash: string | null;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, amount, asset_id, blockchain_id, address, status, tx_hash, failure_reason, created_at, updated_at';

export function toWithdrawal(row: WithdrawalRow): Withdrawal {
  return {
    id: row.id,
    amount: assetAmount(row.amount),
    assetId: row.asset_id,
    blockchainId: row.blockchain_id,
    address: row.address,
    status: row.status,
    txHash: row.tx_hash,
    failureReason: row.failure_reason,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The outcome of `POST /v1/withdrawal`: the status and body to send. */
export interface WithdrawalOutcome {
  statusCode: 200 | 422;
  body: Record<string, unknown>;
  /** True when this is the stored response of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
  /** The new withdrawal's id when this call created one. */
  createdId?: string;
}

/** Checks an `Idempotency-Key` header value. */
export function checkIdempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const key = value.trim();
  if (key === '' || key.length > 255 || !/^[\x21-\x7e]+$/.test(key))
    throw validationError([{ path: 'Idempotency-Key', message: 'Idempotency-Key must be 1 to 255 visible ASCII characters' }]);
  return key;
}

/**
 * Creates a withdrawal: in one transaction, claims the idempotency key (if any), then reserves the
 * funds (available → pending) under the balance row's lock together with the record and its
 * ledger entry (one statement). A short balance is a 422 that changes nothing.
 */
export async function createWithdrawal(
  db: Database,
  principal: Principal,
  request: WithdrawalRequest,
  idempotencyKey: string | undefined,
  now: Date,
): Promise<WithdrawalOutcome> {
  const requestHash = createHash('sha256')
    .update(JSON.stringify(['POST /v1/withdrawal', request.amount, request.assetId, request.blockchainId, request.address.toLowerCase()]))
    .digest('hex');
  return db.transaction(async (tx) => {
    if (idempotencyKey !== undefined) {
      const claimed = await tx.query(
        `INSERT INTO idempotency_keys (integrator_id, idempotency_key, request_hash, status_code, response_body)
         VALUES ($1, $2, $3, 0, '{}'::jsonb) ON CONFLICT DO NOTHING RETURNING 1`,
        [principal.integratorId, idempotencyKey, requestHash],
      );
      if (claimed.rows.length === 0) {
        const { rows } = await tx.query<{ request_hash: string; status_code: number; response_body: Record<string, unknown> }>(
          'SELECT request_hash, status_code, response_body FROM idempotency_keys WHERE integrator_id = $1 AND idempotency_key = $2',
          [principal.integratorId, idempotencyKey],
        );
        const stored = rows[0]!;
        if (stored.request_hash !== requestHash)
          throw new ApiError(409, 'idempotency_conflict', 'This Idempotency-Key was already used with a different request');
        return { statusCode: stored.status_code as 200 | 422, body: stored.response_body, replayed: true };
      }
    }

    const store = async (outcome: WithdrawalOutcome) => {
      if (idempotencyKey !== undefined)
        await tx.query(
          'UPDATE idempotency_keys SET status_code = $3, response_body = $4::jsonb WHERE integrator_id = $1 AND idempotency_key = $2',
          [principal.integratorId, idempotencyKey, outcome.statusCode, JSON.stringify(outcome.body)],
        );
      return outcome;
    };

    const id = randomUUID();
    const reserved = await reserveForWithdrawal(tx, {
      id,
      integratorId: principal.integratorId,
      assetId: request.assetId,
      amount: request.amount,
      blockchainId: request.blockchainId,
      address: request.address,
      createdAt: now,
    });
    if (!reserved) {
      const error = new ApiError(422, 'insufficient_balance', `The available ${request.assetId} balance does not cover ${request.amount} ${request.assetId}`);
      return store({ statusCode: 422, body: error.toJSON(), replayed: false });
    }
    return store({
      statusCode: 200,
      body: {
        message: `Withdrawal of ${request.amount} ${request.assetId} to ${request.address} initiated`,
        status: 'success',
        statusCode: 200,
        id,
      },
      replayed: false,
      createdId: id,
    });
  });
}

/** `GET /v1/withdrawal/{id}`: the caller's own withdrawal, else 404. */
export async function getWithdrawal(db: Queryable, principal: Principal, id: string): Promise<Withdrawal> {
  if (!UUID.test(id)) throw notFound('Withdrawal');
  const { rows } = await db.query<WithdrawalRow>(`SELECT ${COLUMNS} FROM withdrawals WHERE id = $1 AND integrator_id = $2`, [
    id,
    principal.integratorId,
  ]);
  if (!rows[0]) throw notFound('Withdrawal');
  return toWithdrawal(rows[0]);
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Reads a `startDate`/`endDate` filter: an ISO date (`2025-01-31`, a whole UTC day) or date-time
 * (`2025-01-31T12:00:00Z`; UTC when it has no offset). Both bounds are inclusive: an `endDate` that
 * is a date covers that whole day. Returns the bound as an instant (`end` is exclusive).
 */
function readDateBound(value: string, path: string, bound: 'start' | 'end'): { at: Date; exclusive: boolean } {
  const text = value.trim();
  const invalid = () =>
    validationError([{ path, message: `${path} must be an ISO 8601 date (2025-01-31) or date-time (2025-01-31T12:00:00Z)` }]);
  const date = DATE_ONLY.exec(text);
  if (date) {
    const at = new Date(`${text}T00:00:00.000Z`);
    if (Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== text) throw invalid();
    if (bound === 'end') return { at: new Date(at.getTime() + 24 * 60 * 60 * 1000), exclusive: true };
    return { at, exclusive: false };
  }
  const dateTime = DATE_TIME.exec(text);
  if (!dateTime) throw invalid();
  const dayPart = text.slice(0, 10);
  const check = new Date(`${dayPart}T00:00:00.000Z`);
  if (Number.isNaN(check.getTime()) || check.toISOString().slice(0, 10) !== dayPart) throw invalid();
  if (Number(dateTime[4]) > 23 || Number(dateTime[5]) > 59 || Number(dateTime[6] ?? 0) > 59) throw invalid();
  const at = new Date(dateTime[7] ? text : `${text}Z`);
  if (Number.isNaN(at.getTime())) throw invalid();
  return { at, exclusive: false };
}

/** `GET /v1/withdrawal`: the caller's withdrawals, newest first, filtered and paged. */
export async function listWithdrawals(db: Queryable, principal: Principal, rawQuery: Record<string, string>) {
  const query: z.output<typeof ListWithdrawalsQuery> = parseWith(ListWithdrawalsQuery, rawQuery);
  const where = ['integrator_id = $1'];
  const params: unknown[] = [principal.integratorId];
  if (query.status !== undefined) {
    params.push(query.status);
    where.push(`status = $${params.length}`);
  }
  const start = query.startDate !== undefined ? readDateBound(query.startDate, 'startDate', 'start') : undefined;
  const end = query.endDate !== undefined ? readDateBound(query.endDate, 'endDate', 'end') : undefined;
  if (start && end && start.at.getTime() >= end.at.getTime() + (end.exclusive ? 0 : 1))
    throw validationError([{ path: 'endDate', message: 'endDate must not be before startDate' }]);
  if (start) {
    params.push(start.at);
    where.push(`created_at >= $${params.length}`);
  }
  if (end) {
    params.push(end.at);
    where.push(`created_at ${end.exclusive ? '<' : '<='} $${params.length}`);
  }
  const filter = where.join(' AND ');
  const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM withdrawals WHERE ${filter}`, params);
  const { rows } = await db.query<WithdrawalRow>(
    `SELECT ${COLUMNS} FROM withdrawals WHERE ${filter}
     ORDER BY created_at DESC, id DESC LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
    params,
  );
  const totalItems = count.rows[0]?.total ?? 0;
  return {
    items: rows.map(toWithdrawal),
    meta: pageMeta(totalItems, rows.length, query),
  };
}
