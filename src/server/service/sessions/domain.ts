/**
 * Checkout sessions: a quote for one payment of one link, the deposit address to pay it at, and
 * the transfers that pay it (settled by ./settlement.ts). The SQL is ./repository.ts's.
 *
 * Lifecycle (status, `core/rules/session.ts`):
 * - `awaiting_payment`: nothing received yet; the quote holds until `expiresAt` (15 minutes).
 * - `confirming` (real chains): a transfer made before `expiresAt` was seen on chain and waits for
 *   its confirmations (`confirmations` of `requiredConfirmations`); it cannot expire meanwhile. The
 *   sandbox credits at once and never shows it. See ../money-in/scanner.ts.
 * - `underpaid`: part received; `remainingAmount` says what is left; further transfers top it up.
 * - `paid` / `overpaid`: the full amount (or more) arrived before expiry. Terminal. The link's
 *   `paymentCount` is incremented once, in the transaction of the settling transfer.
 * - `expired`: the quote ran out before the full amount arrived. Terminal. Evaluated lazily on every
 *   read and by a background sweep, against the service clock (`deps.now()`). On a real chain, only
 *   once the scanner has read the chain up to `expiresAt`: while the node is down, an unpaid session
 *   stays `awaiting_payment`, because a transfer made in time may not have been seen yet.
 */
import { randomUUID } from 'node:crypto';
import { compareDecimal, fiatDigits, formatFixed, fromUnits, toDecimalString, type AssetId } from '../../../core/money.js';
import { checkAmount, checkDonationBounds } from '../../../core/rules/amount.js';
import { checkCustomer } from '../../../core/rules/customer.js';
import { checkSessionTags } from '../../../core/rules/session-tags.js';
import { CRYPTO_DIGITS, isUuid, MAX_AMOUNT, QUOTE_TTL_MS } from '../../../core/rules/limits.js';
import { OPEN_STATUSES, SETTLED_STATUSES } from '../../../core/rules/session.js';
import { RuleErrors } from '../../../core/rules/types.js';
import { assetsOf, findNetwork } from '../../../core/rules/networks.js';
import { SimulatePaymentInput, StartOrderSessionInput, StartSessionInput, type CheckoutSession, type FieldError } from '../../../core/schemas.js';
import { assetChainFacts, networkChain, type ChainAdapter, type Network } from '../../chain/types.js';
import type { Queryable } from '../../db/index.js';
import { parseWith } from '../context.js';
import { ApiError, notFound, ruleError, validationError } from '../errors.js';
import { defaultLogger } from '../../log.js';
import { recordEvent } from '../events/index.js';
import { getLinkBySlug, linkState } from '../links/index.js';
import type { MoneyServiceDeps } from '../money-deps.js';
import { expireDueOrders, lockOrder, readOrder, type OrderRow } from '../orders/index.js';
import { ruleMessage } from '../messages.js';
import { compareAcross, convertFiat, quoteCrypto, rateUnavailable } from '../rates/index.js';
import { announceSession } from './records.js';
import { expireDue, expireSession, findSession, findTransferSession, insertSession, nextDepositIndex, rateFields, type NewSession, type SessionRow } from './repository.js';
import { settleIncomingTransfer, units } from '../money-in/index.js';
import type { z } from 'zod';

/** A session as the public API returns it. */
function toCheckoutSession(row: SessionRow, chain: ChainAdapter): CheckoutSession {
  const crypto = units(row.crypto_amount);
  const paid = units(row.paid_amount);
  const remaining = row.status === 'expired' || crypto <= paid ? 0n : crypto - paid;
  const settled = SETTLED_STATUSES.has(row.status);
  const { decimals, addNetwork: _, ...facts } = assetChainFacts(chain.networks.find((n) => n.id === row.blockchain_id), row.asset_id);
  return {
    id: row.id,
    slug: row.slug,
    orderId: row.order_id,
    status: row.status,
    fiatAmount: formatFixed(toDecimalString(row.fiat_amount) ?? '0', fiatDigits(row.fiat_currency)),
    fiatCurrency: row.fiat_currency,
    assetId: row.asset_id,
    blockchainId: row.blockchain_id,
    networkName: row.network_name,
    cryptoAmount: fromUnits(crypto, CRYPTO_DIGITS),
    ...rateFields(row),
    paidAmount: fromUnits(paid, CRYPTO_DIGITS),
    remainingAmount: fromUnits(remaining, CRYPTO_DIGITS),
    payAddress: row.pay_address,
    // While confirming, the transfer being confirmed (its explorer link is what the customer wants).
    txHash: row.tx_hash ?? row.pending_tx_hash ?? null,
    paidBlockchainId: row.tx_hash ? row.paid_blockchain_id : (row.pending_blockchain_id ?? null),
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
    ...facts,
    tokenDecimals: decimals,
    confirmations: row.status === 'confirming' ? (row.confirmations ?? 0) : null,
    requiredConfirmations: row.status === 'confirming' ? (networkChain(chain, row.pending_blockchain_id ?? row.blockchain_id)?.incoming.confirmations ?? null) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Starting a session

/**
 * The network a session is paid on: the one named (`blockchainId`, by id or alias), which must carry
 * the asset; else the only network that carries it. An asset on several networks needs the name:
 * the 400 lists the choices. Problems go to `fail`, field by field.
 */
function chooseNetwork(chain: ChainAdapter, assetId: AssetId, named: string | undefined, fail: (path: string, message: string) => void) {
  const carrying = chain.networks.filter((n) => n.assets.includes(assetId));
  const choices = carrying.map((n) => `${n.id} (${n.name})`).join(', ');
  if (carrying.length === 0) {
    fail('assetId', `assetId must be one of ${assetsOf(chain.networks).join(', ')}`);
    return undefined;
  }
  if (named === undefined) {
    if (carrying.length === 1) return carrying[0];
    fail('blockchainId', `${assetId} is on several networks: choose one with blockchainId: ${choices}`);
    return undefined;
  }
  const network = findNetwork(carrying, named);
  if (!network) fail('blockchainId', `${assetId} can be paid on ${choices}`);
  return network;
}

type StartInput = z.output<typeof StartSessionInput>;

/** What a new session pays, at what price, for whom; the same for a link's session and an order's. */
interface SessionSpec
  extends Pick<
    NewSession,
    'linkId' | 'orderId' | 'integratorId' | 'fiatAmount' | 'fiatCurrency' | 'assetId' | 'customer' | 'reference' | 'metadata' | 'clientReference' | 'donation'
  > {
  network: Network;
  slug: string | null;
  postpay: Pick<SessionRow, 'redirect' | 'show_confirmation_page' | 'success_message' | 'redirect_url'>;
  /** The quote holds 15 minutes, but never past this (an order's own end). */
  latestExpiry?: Date;
}

/**
 * Quotes `spec` in its asset, gives it a deposit address and records it as `awaiting_payment`. With
 * `guard`, the record is written in one transaction with it (an order's sessions: the guard holds the
 * order and refuses when it can no longer be paid).
 */
async function openSession(deps: MoneyServiceDeps, spec: SessionSpec, now: Date, guard?: (tx: Queryable) => Promise<void>): Promise<CheckoutSession> {
  const { db, chain, rates } = deps;
  // Quotes read the book in memory, at this one instant: no database or network work.
  const quote = quoteCrypto(rates, spec.fiatAmount, spec.fiatCurrency, spec.assetId, now);
  if (!quote) throw rateUnavailable(rates, spec.fiatCurrency, spec.assetId, now);
  const { cryptoAmount } = quote;
  // Whatever the rate, no amount beyond what the ledger may carry is recorded.
  if (compareDecimal(cryptoAmount, MAX_AMOUNT) > 0 || compareDecimal(spec.fiatAmount, MAX_AMOUNT) > 0)
    throw new ApiError(422, 'amount_too_large', `At the current rates this payment comes to more than ${MAX_AMOUNT} (of ${spec.fiatCurrency} or ${spec.assetId}), the most one payment may carry`);
  const id = randomUUID();
  const depositIndex = await nextDepositIndex(db);
  const payAddress = await chain.depositAddress({ sessionId: id, blockchainId: spec.network.id, assetId: spec.assetId, index: depositIndex });
  const quoteEnd = now.getTime() + QUOTE_TTL_MS;
  const expiresAt = new Date(spec.latestExpiry ? Math.min(quoteEnd, spec.latestExpiry.getTime()) : quoteEnd);
  const session: NewSession = {
    id,
    linkId: spec.linkId,
    orderId: spec.orderId,
    integratorId: spec.integratorId,
    fiatAmount: spec.fiatAmount,
    fiatCurrency: spec.fiatCurrency,
    assetId: spec.assetId,
    blockchainId: spec.network.id,
    networkName: spec.network.name,
    cryptoAmount,
    rate: quote.rate,
    rateSource: quote.source,
    rateAt: quote.at,
    rateBasis: quote.basis,
    payAddress,
    depositIndex,
    customer: spec.customer,
    reference: spec.reference,
    metadata: spec.metadata,
    clientReference: spec.clientReference,
    donation: spec.donation,
    expiresAt,
    createdAt: now,
  };
  if (guard)
    await db.transaction(async (tx) => {
      await guard(tx);
      await insertSession(tx, session);
    });
  else await insertSession(db, session);
  // What was just written, answered without reading it back.
  return toCheckoutSession(
    {
      id,
      link_id: spec.linkId,
      order_id: spec.orderId,
      integrator_id: spec.integratorId,
      status: 'awaiting_payment',
      fiat_amount: spec.fiatAmount,
      fiat_currency: spec.fiatCurrency,
      asset_id: spec.assetId,
      blockchain_id: spec.network.id,
      network_name: spec.network.name,
      crypto_amount: cryptoAmount,
      rate: quote.rate,
      rate_source: quote.source,
      rate_at: quote.at,
      paid_amount: '0',
      late_amount: '0',
      pay_address: payAddress,
      tx_hash: null,
      paid_blockchain_id: null,
      confirmations: null,
      pending_tx_hash: null,
      expires_at: expiresAt,
      created_at: now,
      slug: spec.slug,
      ...spec.postpay,
    },
    chain,
  );
}

/**
 * `POST /v1/checkout/{slug}/sessions`. Standard links charge their fixed amount: a `fiatAmount`
 * that differs from it is refused (400), so a client can never change the price. Donation links
 * take the donor's `fiatAmount` (required), within the link's `minAmount`/`maxAmount`.
 * `fiatCurrency` is one of the link's currencies (default its price currency, the first); in
 * another currency the Standard price and the donation bounds are converted with the rates. Every
 * rate is read from the rates room's book in memory at one instant; without a fresh one the answer is
 * 503 `rate_unavailable`. The session records the rate it was quoted with (`rate`, `rateSource`, `rateAt`).
 * Customer details follow `core/rules/customer.ts`. A `reference` is what the page says: it is kept
 * as the session's `clientReference`, never as its `reference` (only an order names the merchant's).
 * A donor may give a name and a message and choose to be listed on the link's page (`showPublicly`);
 * a Standard link refuses them. A donation records what it will count toward the link's fundraiser
 * once paid: its amount in the price currency, converted at this instant's rates when the donor gave in
 * another of the link's currencies (without a rate for that conversion it counts toward none).
 */
export async function startSession(deps: MoneyServiceDeps, slug: string, body: unknown): Promise<CheckoutSession> {
  const { db, chain, rates } = deps;
  const link = await getLinkBySlug(db, slug);
  // Validated after the link is found: an unknown slug is a 404 whatever the body says.
  const input: StartInput = parseWith(StartSessionInput, body);
  const now = deps.now();
  const state = linkState(link, now);
  if (state === 'inactive') throw new ApiError(422, 'link_inactive', 'This payment link is not active');
  if (state === 'closed') throw new ApiError(410, 'link_closed', 'This donation is closed');

  const errors: FieldError[] = [];
  const fail = (path: string, message: string) => errors.push({ path, message });

  const assetId = input.assetId.trim().toUpperCase() as AssetId;
  const network = chooseNetwork(chain, assetId, input.blockchainId, fail);

  const priceCurrency = link.fiat_currency[0] ?? 'NGN';
  const fiatCurrency = input.fiatCurrency === undefined ? priceCurrency : input.fiatCurrency.trim().toUpperCase();
  if (!link.fiat_currency.includes(fiatCurrency)) fail('fiatCurrency', `fiatCurrency must be one of ${link.fiat_currency.join(', ')}`);
  // Quotes read the book in memory, at this one instant: no database or network work.
  else if (network && !rates.pair(assetId, fiatCurrency, now)) throw rateUnavailable(rates, fiatCurrency, assetId, now);
  const unavailable = () => rateUnavailable(rates, fiatCurrency, assetId, now, priceCurrency);

  const digits = fiatDigits(fiatCurrency);
  let fiatAmount: string | null = null;
  if (!errors.some((e) => e.path === 'fiatCurrency')) {
    if (link.link_type === 'Standard') {
      const price = formatFixed(toDecimalString(link.fiat_amount) ?? '0', fiatDigits(priceCurrency));
      fiatAmount = convertFiat(rates, price, priceCurrency, fiatCurrency, now) ?? null;
      if (fiatAmount === null) throw unavailable();
      if (input.fiatAmount !== undefined) refuseOtherAmount(input.fiatAmount, fiatAmount, fiatCurrency, 'link', fail);
    } else if (input.fiatAmount === undefined) {
      fail('fiatAmount', 'Enter the amount you want to give (fiatAmount)');
    } else {
      const amountErrors = new RuleErrors();
      const sent = checkAmount(input.fiatAmount, 'fiatAmount', { digits, unit: fiatCurrency, positive: true }, amountErrors);
      for (const error of amountErrors.list) fail(error.path, ruleMessage(error));
      if (sent !== null) {
        const min = link.min_amount === null ? null : toDecimalString(link.min_amount);
        const max = link.max_amount === null ? null : toDecimalString(link.max_amount);
        // The bounds are in the price currency: compared across currencies with the rates.
        const refused = checkDonationBounds(sent, min, max, (amount, bound) => {
          const order = compareAcross(rates, amount, fiatCurrency, bound, priceCurrency, now);
          if (order === undefined) throw unavailable();
          return order;
        });
        if (refused) {
          const bound = `${formatFixed(refused.params.amount, fiatDigits(priceCurrency))} ${priceCurrency}`;
          fail('fiatAmount', ruleMessage({ path: 'fiatAmount', key: refused.key, params: { amount: bound } }));
        } else fiatAmount = formatFixed(sent, digits);
      }
    }
  }

  const customer = checkedCustomer(input.customer, { collectAddress: link.collect_address, collectPhone: link.collect_phone }, fail);
  const { tags, errors: tagErrors } = checkSessionTags(input.reference, input.metadata);
  for (const error of tagErrors) fail(error.path, ruleMessage(error));
  const donor = readDonor(input, link.link_type === 'Donation', fail);

  if (errors.length) throw validationError(errors);
  if (!network || fiatAmount === null) throw new Error('unreachable: validated above');
  const raised = link.link_type === 'Donation' ? (convertFiat(rates, fiatAmount, fiatCurrency, priceCurrency, now) ?? null) : null;

  return openSession(
    deps,
    {
      linkId: link.id,
      orderId: null,
      integratorId: link.integrator_id,
      fiatAmount,
      fiatCurrency,
      assetId,
      network,
      customer,
      // Only the merchant names its order: what the page sent as `reference` is kept as what it said.
      reference: null,
      metadata: tags.metadata,
      clientReference: tags.reference,
      donation: { ...donor, raiseAmount: raised, raiseCurrency: raised === null ? null : priceCurrency },
      slug: link.slug,
      postpay: {
        redirect: link.redirect,
        show_confirmation_page: link.show_confirmation_page,
        success_message: link.success_message,
        redirect_url: link.redirect_url,
      },
    },
    now,
  );
}

/**
 * A donor's name, message and choice to be listed, as stored: trimmed (an empty text is none). The
 * schema has refused control characters and texts past their caps; a Standard link refuses them all.
 */
function readDonor(input: StartInput, isDonation: boolean, fail: (path: string, message: string) => void) {
  const name = input.donorName?.trim() || null;
  const message = input.message?.trim() || null;
  const showPublicly = input.showPublicly === true;
  if (!isDonation)
    for (const [path, given] of [['donorName', name], ['message', message], ['showPublicly', showPublicly]] as const)
      if (given) fail(path, `${path} applies to Donation links only`);
  return { name, message, showPublicly };
}

/** Refuses (400 on `fiatAmount`) an amount other than the fixed `price`: a page can never change it. */
function refuseOtherAmount(sentAmount: string | number, price: string, currency: string, what: 'link' | 'order', fail: (path: string, message: string) => void) {
  const sent = toDecimalString(sentAmount);
  if (sent === null || compareDecimal(sent, price) !== 0)
    fail('fiatAmount', `This ${what} charges a fixed ${price} ${currency}; leave fiatAmount out or send exactly that`);
}

/** The customer's details as stored, by `core/rules/customer.ts`; its refusals go to `fail`. */
function checkedCustomer(
  input: StartInput['customer'],
  asks: { collectAddress: boolean; collectPhone: boolean },
  fail: (path: string, message: string) => void,
): NewSession['customer'] {
  const { customer, errors } = checkCustomer(input, asks);
  for (const error of errors) fail(error.path, ruleMessage(error));
  return customer;
}

/** Why an order that is not open can't be paid: 409 once paid, 410 once expired or cancelled. */
function orderClosedError(status: OrderRow['status']): ApiError {
  if (status === 'paid') return new ApiError(409, 'order_paid', 'This order is already paid');
  if (status === 'cancelled') return new ApiError(410, 'order_cancelled', 'This order was cancelled by the merchant');
  return new ApiError(410, 'order_expired', 'This order has expired');
}

/**
 * `POST /v1/checkout/orders/{id}/sessions` (keyless): a session for the order's own amount and
 * currency (a `fiatAmount` or `fiatCurrency` other than the order's is a 400), carrying the order's
 * `reference` and `metadata`; a `reference` the page sends is its `clientReference`. The quote holds 15
 * minutes but never past the order's `expiresAt`. 409 `order_paid` once the order is paid, 410
 * `order_expired` / `order_cancelled` once it can't be; decided again under the order's lock as the
 * session is written, so no session starts on an order being paid at that moment.
 */
export async function startOrderSession(deps: MoneyServiceDeps, orderId: string, body: unknown): Promise<CheckoutSession> {
  const { db, chain, rates } = deps;
  const now = deps.now();
  const order = await readOrder(db, orderId, now);
  // Validated after the order is found: an unknown order is a 404 whatever the body says.
  const input = parseWith(StartOrderSessionInput, body);
  const payable = (row: OrderRow) => {
    if (row.status !== 'open') throw orderClosedError(row.status);
    if (row.expires_at.getTime() <= now.getTime()) throw orderClosedError('expired');
  };
  payable(order);

  const errors: FieldError[] = [];
  const fail = (path: string, message: string) => errors.push({ path, message });
  const assetId = input.assetId.trim().toUpperCase() as AssetId;
  const network = chooseNetwork(chain, assetId, input.blockchainId, fail);
  const fiatCurrency = order.fiat_currency;
  const fiatAmount = formatFixed(toDecimalString(order.fiat_amount) ?? '0', fiatDigits(fiatCurrency));
  if (input.fiatCurrency !== undefined && input.fiatCurrency.trim().toUpperCase() !== fiatCurrency)
    fail('fiatCurrency', `This order is priced in ${fiatCurrency}; leave fiatCurrency out or send exactly that`);
  if (input.fiatAmount !== undefined) refuseOtherAmount(input.fiatAmount, fiatAmount, fiatCurrency, 'order', fail);
  if (network && !rates.pair(assetId, fiatCurrency, now)) throw rateUnavailable(rates, fiatCurrency, assetId, now);
  const customer = checkedCustomer(input.customer, { collectAddress: order.collect_address, collectPhone: order.collect_phone }, fail);
  const { tags, errors: tagErrors } = checkSessionTags(input.reference, undefined);
  for (const error of tagErrors) fail(error.path, ruleMessage(error));
  if (errors.length) throw validationError(errors);
  if (!network) throw new Error('unreachable: validated above');

  return openSession(
    deps,
    {
      linkId: null,
      orderId: order.id,
      integratorId: order.integrator_id,
      fiatAmount,
      fiatCurrency,
      assetId,
      network,
      customer,
      reference: order.reference,
      metadata: order.metadata,
      clientReference: tags.reference,
      donation: null,
      slug: null,
      postpay: {
        redirect: order.redirect_url !== '',
        show_confirmation_page: order.show_confirmation_page,
        success_message: order.success_message,
        redirect_url: order.redirect_url,
      },
      latestExpiry: order.expires_at,
    },
    now,
    async (tx) => {
      const locked = await lockOrder(tx, order.id, 'share');
      if (!locked) throw notFound('Order');
      payable(locked);
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Reading and expiring

/**
 * `GET /v1/checkout/sessions/{id}`. A session whose quote ran out is marked `expired` here (and its
 * watchers notified) if the sweep has not done it yet.
 */
export async function getSession(deps: MoneyServiceDeps, id: string): Promise<CheckoutSession> {
  if (!isUuid(id)) throw notFound('Checkout session');
  let row = await findSession(deps.db, id);
  if (!row) throw notFound('Checkout session');
  const now = deps.now();
  if (OPEN_STATUSES.has(row.status) && row.expires_at.getTime() <= now.getTime()) {
    await expireIfDue(deps, id, now);
    row = (await findSession(deps.db, id))!;
  }
  return toCheckoutSession(row, deps.chain);
}

/** The networks whose scanners must have read past a session's expiry before it expires: every real one. */
function scannedNetworks(chain: ChainAdapter | undefined): string[] | undefined {
  return chain?.kind === 'real' ? chain.chains.map((c) => c.blockchainId) : undefined;
}

/**
 * Expires one open session whose quote has run out at `now` (on a real chain, once the scanner has
 * read past its expiry), if nothing else did first, announcing it (`session.changed`,
 * `checkout.session.expired`) in the same transaction. True when this call expired it.
 */
export async function expireIfDue(deps: Pick<MoneyServiceDeps, 'db'> & { chain?: ChainAdapter }, id: string, now: Date): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const expired = await expireSession(tx, id, now, scannedNetworks(deps.chain));
    if (!expired) return false;
    await recordEvent(tx, { type: 'session.changed', sessionId: id });
    await announceSession(tx, 'checkout.session.expired', expired, now);
    return true;
  });
}

/**
 * Marks every session whose quote has run out as `expired` (on a real chain, once the scanner has
 * read past its expiry); returns how many. Safe on many instances at once.
 */
export async function expireDueSessions(deps: Pick<MoneyServiceDeps, 'db' | 'now'> & { chain?: ChainAdapter }, batch = 500): Promise<number> {
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const expired = await expireDue(tx, now, batch, scannedNetworks(deps.chain));
    for (const session of expired) {
      await recordEvent(tx, { type: 'session.changed', sessionId: session.id });
      await announceSession(tx, 'checkout.session.expired', session, now);
    }
    return expired.length;
  });
}

/**
 * Runs `expireDueSessions`, then the orders room's `expireDueOrders` (an order expires once none of its
 * sessions can still pay it), every `intervalMs`; returns the stop function.
 */
export function startExpirySweep(deps: Pick<MoneyServiceDeps, 'db' | 'now' | 'log'> & { chain?: ChainAdapter }, intervalMs: number): () => Promise<void> {
  const log = deps.log ?? defaultLogger;
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(() => expireDueSessions(deps))
      .then(() => expireDueOrders(deps))
      .catch((error: unknown) => log.error('expiry_sweep_failed', 'the expiry sweep of sessions and orders failed', { error }));
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

// ---------------------------------------------------------------------------------------------
// Simulated payments

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
  if (chain.kind !== 'sandbox') throw new ApiError(404, 'not_found', 'simulate-payment exists only on the sandbox chain');
  const input = parseWith(SimulatePaymentInput, body);
  const session = await getSession(deps, id);

  let amount: string | undefined;
  if (input.amount !== undefined) {
    const errors = new RuleErrors();
    amount = checkAmount(input.amount, 'amount', { digits: CRYPTO_DIGITS, unit: session.assetId, positive: true }, errors) ?? undefined;
    if (!errors.empty) throw ruleError(errors.list);
  }

  const txHash = input.txHash?.toLowerCase();
  if (txHash) {
    const seenFor = await findTransferSession(db, session.blockchainId, txHash);
    if (seenFor === session.id) return session;
    if (seenFor !== undefined) throw new ApiError(409, 'tx_hash_conflict', 'This transaction hash was already recorded for another session');
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
