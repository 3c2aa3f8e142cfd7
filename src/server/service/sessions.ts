/**
 * Checkout sessions: a quote for one payment of one link, the deposit address to pay it at, and
 * the transfers that pay it. The SQL of `checkout_sessions` and `chain_transfers` lives here.
 *
 * Lifecycle (status):
 * - `awaiting_payment`: nothing received yet; the quote holds until `expiresAt` (15 minutes).
 * - `underpaid`: part received; `remainingAmount` says what is left; further transfers top it up.
 * - `paid` / `overpaid`: the full amount (or more) arrived before expiry. Terminal. The link's
 *   `paymentCount` is incremented once, in the transaction of the settling transfer.
 * - `expired`: the quote ran out before the full amount arrived. Terminal. Evaluated lazily on every
 *   read and by a background sweep, against the service clock (`deps.now()`).
 *
 * Every transfer credits the integrator's balance by the amount received, in the transaction that
 * records it (ledger kind `payment`). A transfer that arrives AFTER expiry, or after the session is
 * already `paid`/`overpaid` (a second transfer reported by the chain), is still the merchant's
 * money: it is credited as ledger kind `late_payment` and kept in `late_amount`, but the session
 * keeps its status, `paidAmount` and `txHash`, and it is not counted as a link payment again.
 * A transfer is identified by its transaction hash: a hash is settled at most once per network
 * (unique constraint), so a transfer reported or simulated twice credits once.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { ASSET_DIGITS, compareDecimal, fiatDigits, formatFixed, fractionDigits, fromUnits, toDecimalString, toUnits, type AssetId } from '../../core/money.js';
import { SimulatePaymentInput, StartSessionInput, type CheckoutSession, type FieldError, type SessionStatus } from '../../core/schemas.js';
import { assetChainFacts, type ChainAdapter, type IncomingTransfer } from '../chain/types.js';
import type { Queryable } from '../db/index.js';
import { parseWith } from './context.js';
import { ApiError, notFound, validationError } from './errors.js';
import { notifySessionChanged } from './events.js';
import { applyLedgerChange, assetAmount } from './ledger.js';
import type { MoneyServiceDeps } from './money-deps.js';
import { getLinkBySlug, linkState } from './payment-links.js';
import { compareAcross, convertFiat, quoteCrypto } from './rates.js';

/** How long a quote holds. */
export const QUOTE_TTL_MS = 15 * 60 * 1000;

/** Largest donation or simulated transfer accepted: comfortably inside NUMERIC(30, 6). */
const MAX_AMOUNT = '1000000000000';

const OPEN_STATUSES: ReadonlySet<SessionStatus> = new Set(['awaiting_payment', 'underpaid']);
const SETTLED_STATUSES: ReadonlySet<SessionStatus> = new Set(['paid', 'overpaid']);

/** Statuses after which a session never changes again (its event stream ends). */
export const TERMINAL_STATUSES: ReadonlySet<SessionStatus> = new Set(['paid', 'overpaid', 'expired']);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface SessionRow {
  id: string;
  link_id: string;
  integrator_id: string;
  status: SessionStatus;
  fiat_amount: string;
  fiat_currency: string;
  asset_id: AssetId;
  blockchain_id: string;
  network_name: string;
  crypto_amount: string;
  paid_amount: string;
  late_amount: string;
  pay_address: string;
  tx_hash: string | null;
  expires_at: Date;
  created_at: Date;
  slug: string;
  redirect: boolean;
  show_confirmation_page: boolean;
  success_message: string;
  redirect_url: string;
}

const SESSION_SELECT = `SELECT s.id, s.link_id, s.integrator_id, s.status, s.fiat_amount, s.fiat_currency, s.asset_id,
  s.blockchain_id, s.network_name, s.crypto_amount, s.paid_amount, s.late_amount, s.pay_address, s.tx_hash,
  s.expires_at, s.created_at, l.slug, l.redirect, l.show_confirmation_page, l.success_message, l.redirect_url
  FROM checkout_sessions s JOIN payment_links l ON l.id = s.link_id`;

function units(value: string): bigint {
  return toUnits(assetAmount(value), 6);
}

/** A session as the public API returns it. */
function toCheckoutSession(row: SessionRow, chain: ChainAdapter): CheckoutSession {
  const crypto = units(row.crypto_amount);
  const paid = units(row.paid_amount);
  const remaining = row.status === 'expired' || crypto <= paid ? 0n : crypto - paid;
  const settled = SETTLED_STATUSES.has(row.status);
  return {
    id: row.id,
    slug: row.slug,
    status: row.status,
    fiatAmount: formatFixed(toDecimalString(row.fiat_amount) ?? '0', fiatDigits(row.fiat_currency)),
    fiatCurrency: row.fiat_currency,
    assetId: row.asset_id,
    blockchainId: row.blockchain_id,
    networkName: row.network_name,
    cryptoAmount: fromUnits(crypto, 6),
    paidAmount: fromUnits(paid, 6),
    remainingAmount: fromUnits(remaining, 6),
    payAddress: row.pay_address,
    txHash: row.tx_hash,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    sandbox: chain.sandbox,
    postpayAction: settled
      ? {
          redirect: row.redirect,
          showConfirmationPage: row.show_confirmation_page,
          successMessage: row.success_message,
          redirectUrl: row.redirect_url,
        }
      : null,
    ...chainFacts(chain, row),
    confirmations: null,
    requiredConfirmations: null,
  };
}

function chainFacts(chain: ChainAdapter, row: SessionRow) {
  const { decimals, ...facts } = assetChainFacts(chain.networks.find((n) => n.id === row.blockchain_id), row.asset_id);
  return { ...facts, tokenDecimals: decimals };
}

// ---------------------------------------------------------------------------------------------
// Starting a session

type StartInput = z.output<typeof StartSessionInput>;

/** E.164-ish: an optional +, then 7 to 15 digits not starting with 0, once spaces, dots, dashes and brackets are dropped. */
function normalizePhone(value: string): string | null {
  const compact = value.trim().replace(/[\s.\-()]/g, '');
  return /^\+?[1-9]\d{6,14}$/.test(compact) ? compact : null;
}

/**
 * `POST /v1/checkout/{slug}/sessions`. Standard links charge their fixed amount: a `fiatAmount`
 * that differs from it is refused (400), so a client can never change the price. Donation links
 * take the donor's `fiatAmount` (required), within the link's `minAmount`/`maxAmount`.
 * `fiatCurrency` is one of the link's currencies (default its price currency, the first); in
 * another currency the Standard price and the donation bounds are converted with the rate table.
 */
export async function startSession(deps: MoneyServiceDeps, slug: string, body: unknown): Promise<CheckoutSession> {
  const { db, chain, rates } = deps;
  const link = await getLinkBySlug(db, slug);
  const input: StartInput = parseWith(StartSessionInput, body);
  const now = deps.now();
  const state = linkState(link, now);
  if (state === 'inactive') throw new ApiError(422, 'link_inactive', 'This payment link is not active');
  if (state === 'closed') throw new ApiError(410, 'link_closed', 'This donation is closed');

  const errors: FieldError[] = [];
  const fail = (path: string, message: string) => errors.push({ path, message });

  const assetId = input.assetId.trim().toUpperCase() as AssetId;
  const network = chain.networks.find((n) => n.assets.includes(assetId));
  if (!network) fail('assetId', `assetId must be one of ${[...new Set(chain.networks.flatMap((n) => n.assets))].join(', ')}`);

  const priceCurrency = link.fiat_currency[0] ?? 'NGN';
  const fiatCurrency = input.fiatCurrency === undefined ? priceCurrency : input.fiatCurrency.trim().toUpperCase();
  if (!link.fiat_currency.includes(fiatCurrency)) fail('fiatCurrency', `fiatCurrency must be one of ${link.fiat_currency.join(', ')}`);
  else if (rates.perUsd(fiatCurrency) === undefined || (network && rates.perUsd(assetId) === undefined))
    throw new ApiError(422, 'rate_unavailable', `No exchange rate is configured for ${fiatCurrency} to ${assetId}`);

  const digits = fiatDigits(fiatCurrency);
  let fiatAmount: string | null = null;
  if (!errors.some((e) => e.path === 'fiatCurrency')) {
    if (link.link_type === 'Standard') {
      const price = formatFixed(toDecimalString(link.fiat_amount) ?? '0', fiatDigits(priceCurrency));
      fiatAmount = convertFiat(rates, price, priceCurrency, fiatCurrency);
      if (input.fiatAmount !== undefined && fiatAmount !== null) {
        const sent = toDecimalString(input.fiatAmount);
        if (sent === null || compareDecimal(sent, fiatAmount) !== 0)
          fail('fiatAmount', `This link charges a fixed ${fiatAmount} ${fiatCurrency}; leave fiatAmount out or send exactly that`);
      }
    } else {
      const sent = input.fiatAmount === undefined ? undefined : toDecimalString(input.fiatAmount);
      if (sent === undefined) fail('fiatAmount', 'Enter the amount you want to give (fiatAmount)');
      else if (sent === null || compareDecimal(sent, '0') <= 0) fail('fiatAmount', 'fiatAmount must be a positive amount, such as 25.00');
      else if (fractionDigits(sent) > digits) fail('fiatAmount', `${fiatCurrency} amounts have at most ${digits} decimal places`);
      else if (compareDecimal(sent, MAX_AMOUNT) > 0) fail('fiatAmount', `fiatAmount must be at most ${MAX_AMOUNT}`);
      else {
        const min = link.min_amount === null ? null : toDecimalString(link.min_amount);
        const max = link.max_amount === null ? null : toDecimalString(link.max_amount);
        if (min !== null && compareAcross(rates, sent, fiatCurrency, min, priceCurrency) < 0)
          fail('fiatAmount', `The smallest amount accepted is ${formatFixed(min, fiatDigits(priceCurrency))} ${priceCurrency}`);
        else if (max !== null && compareAcross(rates, sent, fiatCurrency, max, priceCurrency) > 0)
          fail('fiatAmount', `The largest amount accepted is ${formatFixed(max, fiatDigits(priceCurrency))} ${priceCurrency}`);
        else fiatAmount = formatFixed(sent, digits);
      }
    }
  }

  const customer = input.customer ?? {};
  const address = customer.address?.trim() ?? '';
  const phoneInput = customer.phone?.trim() ?? '';
  const email = customer.email?.trim() ?? '';
  let phone: string | null = null;
  if (link.collect_address && address === '') fail('customer.address', 'This link asks for your address');
  if (phoneInput !== '') {
    phone = normalizePhone(phoneInput);
    if (phone === null) fail('customer.phone', 'Enter a phone number in international form, such as +2348012345678');
  } else if (link.collect_phone) fail('customer.phone', 'This link asks for your phone number');
  if (email !== '' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) fail('customer.email', 'Enter a valid email address');

  if (errors.length) throw validationError(errors);
  if (!network || fiatAmount === null) throw new Error('unreachable: validated above');

  const cryptoAmount = quoteCrypto(rates, fiatAmount, fiatCurrency, assetId);
  if (cryptoAmount === null) throw new ApiError(422, 'rate_unavailable', `No exchange rate is configured for ${fiatCurrency} to ${assetId}`);

  const id = randomUUID();
  const payAddress = await chain.depositAddress({ sessionId: id, blockchainId: network.id, assetId });
  const expiresAt = new Date(now.getTime() + QUOTE_TTL_MS);
  await db.query(
    `INSERT INTO checkout_sessions (id, link_id, integrator_id, status, fiat_amount, fiat_currency, asset_id, blockchain_id,
       network_name, crypto_amount, pay_address, customer_address, customer_phone, customer_email, expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, 'awaiting_payment', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15)`,
    [id, link.id, link.integrator_id, fiatAmount, fiatCurrency, assetId, network.id, network.name, cryptoAmount, payAddress,
      address || null, phone, email || null, expiresAt, now],
  );
  return getSession(deps, id);
}

// ---------------------------------------------------------------------------------------------
// Reading and expiring

/**
 * `GET /v1/checkout/sessions/{id}`. A session whose quote ran out is marked `expired` here (and its
 * watchers notified) if the sweep has not done it yet.
 */
export async function getSession(deps: MoneyServiceDeps, id: string): Promise<CheckoutSession> {
  if (!UUID.test(id)) throw notFound('Checkout session');
  const { rows } = await deps.db.query<SessionRow>(`${SESSION_SELECT} WHERE s.id = $1`, [id]);
  let row = rows[0];
  if (!row) throw notFound('Checkout session');
  const now = deps.now();
  if (OPEN_STATUSES.has(row.status) && row.expires_at.getTime() <= now.getTime()) {
    await deps.db.transaction(async (tx) => {
      const updated = await tx.query(
        `UPDATE checkout_sessions SET status = 'expired', updated_at = $2
         WHERE id = $1 AND status IN ('awaiting_payment', 'underpaid') AND expires_at <= $2 RETURNING id`,
        [id, now],
      );
      if (updated.rows.length) await notifySessionChanged(tx, id);
    });
    row = (await deps.db.query<SessionRow>(`${SESSION_SELECT} WHERE s.id = $1`, [id])).rows[0]!;
  }
  return toCheckoutSession(row, deps.chain);
}

/** Marks every session whose quote has run out as `expired`; returns how many. Safe on many instances at once. */
export async function expireDueSessions(deps: Pick<MoneyServiceDeps, 'db' | 'now'>, batch = 500): Promise<number> {
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `UPDATE checkout_sessions SET status = 'expired', updated_at = $1
       WHERE id IN (SELECT id FROM checkout_sessions
                    WHERE status IN ('awaiting_payment', 'underpaid') AND expires_at <= $1
                    ORDER BY expires_at LIMIT ${batch} FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [now],
    );
    for (const row of rows) await notifySessionChanged(tx, row.id);
    return rows.length;
  });
}

/** Runs `expireDueSessions` every `intervalMs`; returns the stop function. */
export function startExpirySweep(deps: Pick<MoneyServiceDeps, 'db' | 'now'>, intervalMs: number): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => expireDueSessions(deps)).catch((error) => console.error('[paylink] expiry sweep failed', error));
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

// ---------------------------------------------------------------------------------------------
// Payments

export interface SettleOptions {
  /** Refuse (409 `already_paid`) a new transfer to a session that is already paid. */
  refuseWhenSettled?: boolean;
}

/**
 * Records an incoming transfer reported by the chain and credits the integrator, all in one
 * transaction with the session's new status, the link's `paymentCount` (when this transfer
 * settles the session) and the status notification. Returns the session's id and whether the
 * transfer had already been recorded (then nothing changed).
 */
export async function settleIncomingTransfer(
  deps: MoneyServiceDeps,
  transfer: IncomingTransfer,
  options: SettleOptions = {},
): Promise<{ sessionId: string; duplicate: boolean }> {
  const amount = toDecimalString(transfer.amount);
  if (amount === null || compareDecimal(amount, '0') <= 0 || fractionDigits(amount) > (ASSET_DIGITS[transfer.assetId] ?? 6))
    throw new ApiError(422, 'invalid_transfer', 'A transfer needs a positive amount with at most 6 decimals');
  const txHash = transfer.txHash.toLowerCase();
  return deps.db.transaction(async (tx) => {
    // The session row lock orders every transfer to one session, across instances.
    const { rows } = await tx.query<{
      id: string;
      link_id: string;
      integrator_id: string;
      status: SessionStatus;
      asset_id: AssetId;
      crypto_amount: string;
      paid_amount: string;
      late_amount: string;
      expires_at: Date;
    }>(
      `SELECT id, link_id, integrator_id, status, asset_id, crypto_amount, paid_amount, late_amount, expires_at
       FROM checkout_sessions WHERE blockchain_id = $1 AND lower(pay_address) = lower($2) FOR UPDATE`,
      [transfer.blockchainId, transfer.toAddress],
    );
    const session = rows[0];
    if (!session) throw new ApiError(404, 'unknown_deposit_address', 'No checkout session has this deposit address');
    if (session.asset_id !== transfer.assetId)
      throw new ApiError(422, 'asset_mismatch', `This session is paid in ${session.asset_id}, not ${transfer.assetId}`);

    const seen = await tx.query<{ session_id: string }>(
      'SELECT session_id FROM chain_transfers WHERE blockchain_id = $1 AND tx_hash = $2',
      [transfer.blockchainId, txHash],
    );
    if (seen.rows[0]) {
      if (seen.rows[0].session_id === session.id) return { sessionId: session.id, duplicate: true };
      throw new ApiError(409, 'tx_hash_conflict', 'This transaction hash was already recorded for another session');
    }

    const now = deps.now();
    let status = session.status;
    if (OPEN_STATUSES.has(status) && session.expires_at.getTime() <= now.getTime()) status = 'expired';
    if (SETTLED_STATUSES.has(status) && options.refuseWhenSettled)
      throw new ApiError(409, 'already_paid', 'This checkout session is already paid');

    // Terminal sessions never change status again: a transfer after expiry or after settlement is late.
    const kind = status === 'expired' || SETTLED_STATUSES.has(status) ? 'late_payment' : 'payment';
    const transferId = randomUUID();
    const inserted = await tx.query(
      `INSERT INTO chain_transfers (id, session_id, blockchain_id, tx_hash, asset_id, amount, to_address, kind, sandbox, received_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING id`,
      [transferId, session.id, transfer.blockchainId, txHash, transfer.assetId, amount, transfer.toAddress, kind, transfer.sandbox, now],
    );
    // Only a concurrent twin of this very hash gets here (the unique key decided against us).
    if (inserted.rows.length === 0) throw new ApiError(409, 'tx_hash_conflict', 'This transaction hash is being recorded already');

    await applyLedgerChange(tx, {
      integratorId: session.integrator_id,
      assetId: session.asset_id,
      kind,
      availableDelta: amount,
      pendingDelta: '0',
      transferId,
    });

    const crypto = units(session.crypto_amount);
    let paid = units(session.paid_amount);
    let late = units(session.late_amount);
    const received = toUnits(amount, 6);
    if (kind === 'payment') {
      paid += received;
      status = paid < crypto ? 'underpaid' : paid === crypto ? 'paid' : 'overpaid';
    } else {
      late += received;
    }
    const settlesNow = !SETTLED_STATUSES.has(session.status) && SETTLED_STATUSES.has(status);
    await tx.query(
      `UPDATE checkout_sessions SET status = $2, paid_amount = $3, late_amount = $4,
         tx_hash = CASE WHEN $5::boolean THEN $6 ELSE tx_hash END,
         settled_at = CASE WHEN $7::boolean THEN $8::timestamptz ELSE settled_at END, updated_at = $8
       WHERE id = $1`,
      [session.id, status, fromUnits(paid, 6), fromUnits(late, 6), kind === 'payment', txHash, settlesNow, now],
    );
    if (settlesNow) await tx.query('UPDATE payment_links SET payment_count = payment_count + 1 WHERE id = $1', [session.link_id]);
    await notifySessionChanged(tx, session.id);
    return { sessionId: session.id, duplicate: false };
  });
}

/**
 * `POST /v1/checkout/sessions/{id}/simulate-payment` (sandbox chain only): an incoming transfer of
 * `amount` (default: what is left to pay, or the full amount once expired). Idempotency:
 * - with `txHash`, a hash already recorded for this session changes nothing and returns the
 *   session (200); a hash recorded for another session is 409 `tx_hash_conflict`;
 * - a new transfer to a session that is already paid is 409 `already_paid`, decided under the
 *   session's row lock, so two concurrent simulations of the full amount credit once.
 */
export async function simulatePayment(deps: MoneyServiceDeps, id: string, body: unknown): Promise<CheckoutSession> {
  const { chain, db } = deps;
  if (!chain.sandbox || !chain.simulateIncomingTransfer)
    throw new ApiError(404, 'not_found', 'simulate-payment exists only on the sandbox chain');
  const input = parseWith(SimulatePaymentInput, body);
  const session = await getSession(deps, id);

  let amount: string | undefined;
  if (input.amount !== undefined) {
    const parsed = toDecimalString(input.amount);
    if (parsed === null || compareDecimal(parsed, '0') <= 0)
      throw validationError([{ path: 'amount', message: 'amount must be a positive decimal, such as 12.5' }]);
    if (fractionDigits(parsed) > 6)
      throw validationError([{ path: 'amount', message: `${session.assetId} amounts have at most 6 decimal places` }]);
    if (compareDecimal(parsed, MAX_AMOUNT) > 0) throw validationError([{ path: 'amount', message: `amount must be at most ${MAX_AMOUNT}` }]);
    amount = parsed;
  }

  const txHash = input.txHash?.toLowerCase();
  if (txHash) {
    const seen = await db.query<{ session_id: string }>(
      'SELECT session_id FROM chain_transfers WHERE blockchain_id = $1 AND tx_hash = $2',
      [session.blockchainId, txHash],
    );
    if (seen.rows[0]?.session_id === session.id) return session;
    if (seen.rows[0]) throw new ApiError(409, 'tx_hash_conflict', 'This transaction hash was already recorded for another session');
  }
  if (SETTLED_STATUSES.has(session.status)) throw new ApiError(409, 'already_paid', 'This checkout session is already paid');

  if (amount === undefined) amount = compareDecimal(session.remainingAmount, '0') > 0 ? session.remainingAmount : session.cryptoAmount;
  const transfer = await chain.simulateIncomingTransfer({
    blockchainId: session.blockchainId,
    assetId: session.assetId,
    toAddress: session.payAddress,
    amount,
    txHash,
  });
  await settleIncomingTransfer(deps, transfer, { refuseWhenSettled: true });
  return getSession(deps, id);
}
