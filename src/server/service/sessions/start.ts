/**
 * Starting a checkout session: for a payment link (`POST /v1/checkout/{slug}/sessions`) or a shop's
 * order (`POST /v1/checkout/orders/{id}/sessions`): what the customer sent is checked, the network
 * chosen, the price converted and quoted, and the session opened with its deposit address, in one
 * transaction. The lifecycle after that is ./domain.ts's; the SQL is ./repository.ts's.
 */
import { randomUUID } from 'node:crypto';
import { compareDecimal, fiatDigits, formatFiat, formatFixed, priceCurrencyOf, toDecimalString, type AssetId } from '../../../core/money.js';
import { checkAmount, checkDonationBounds } from '../../../core/rules/amount.js';
import { checkCustomer } from '../../../core/rules/customer.js';
import { checkSessionTags } from '../../../core/rules/session-tags.js';
import { MAX_AMOUNT, QUOTE_TTL_MS } from '../../../core/rules/limits.js';
import { RuleErrors } from '../../../core/rules/types.js';
import { assetsOf, findNetwork } from '../../../core/rules/networks.js';
import { StartOrderSessionInput, StartSessionInput, type CheckoutSession, type FieldError } from '../../../core/schemas.js';
import { type ChainAdapter, type Network } from '../../chain/types.js';
import type { Queryable } from '../../db/index.js';
import { parseWith } from '../context.js';
import { ApiError, notFound, validationError } from '../errors.js';
import { getLinkBySlug, linkState } from '../links/index.js';
import type { MoneyServiceDeps } from '../money-deps.js';
import { lockOrder, readOrder, type OrderRow } from '../orders/index.js';
import { ruleMessage } from '../messages.js';
import { compareAcross, convertFiat, quoteCrypto, rateUnavailable } from '../rates/index.js';
import { insertSession, nextDepositIndex, type NewSession } from './opening-repository.js';
import type { SessionRow } from './repository.js';
import type { z } from 'zod';
import { toCheckoutSession } from './domain.js';

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
interface SessionSpec extends Pick<
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
    throw new ApiError(
      422,
      'amount_too_large',
      `At the current rates this payment comes to more than ${MAX_AMOUNT} (of ${spec.fiatCurrency} or ${spec.assetId}), the most one payment may carry`,
    );
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

  const priceCurrency = priceCurrencyOf(link.fiat_currency);
  const fiatCurrency = input.fiatCurrency === undefined ? priceCurrency : input.fiatCurrency.trim().toUpperCase();
  if (!link.fiat_currency.includes(fiatCurrency)) fail('fiatCurrency', `fiatCurrency must be one of ${link.fiat_currency.join(', ')}`);
  // Quotes read the book in memory, at this one instant: no database or network work.
  else if (network && !rates.pair(assetId, fiatCurrency, now)) throw rateUnavailable(rates, fiatCurrency, assetId, now);
  const unavailable = () => rateUnavailable(rates, fiatCurrency, assetId, now, priceCurrency);

  const digits = fiatDigits(fiatCurrency);
  let fiatAmount: string | null = null;
  if (!errors.some((e) => e.path === 'fiatCurrency')) {
    if (link.link_type === 'Standard') {
      const price = formatFiat(link.fiat_amount, priceCurrency);
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
    for (const [path, given] of [
      ['donorName', name],
      ['message', message],
      ['showPublicly', showPublicly],
    ] as const)
      if (given) fail(path, `${path} applies to Donation links only`);
  return { name, message, showPublicly };
}

/** Refuses (400 on `fiatAmount`) an amount other than the fixed `price`: a page can never change it. */
function refuseOtherAmount(
  sentAmount: string | number,
  price: string,
  currency: string,
  what: 'link' | 'order',
  fail: (path: string, message: string) => void,
) {
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
  const fiatAmount = formatFiat(order.fiat_amount, fiatCurrency);
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
