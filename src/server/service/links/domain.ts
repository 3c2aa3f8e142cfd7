/**
 * Payment links: the rules of `core/rules/link.ts` applied to the spec's tolerant input (their
 * messages in the API's English), what a link looks like on the wire (keyed and public views), and
 * the use cases the routes call. The SQL is ./repository.ts's.
 */
import type { z } from 'zod';
import { formatFiat, priceCurrencyOf, toDecimalString } from '../../../core/money.js';
import { isUuid, SLUG_PATTERN } from '../../../core/rules/limits.js';
import { EMPTY_LINK_DRAFT, readLinkType, resolveLinkDraft, type LinkDraft, type LinkInput } from '../../../core/rules/link.js';
import type { CheckoutAsset, LinkState, ListPaymentLinksQuery, PaymentLink, PublicLink } from '../../../core/schemas.js';
import { assetChainFacts, type ChainAdapter } from '../../chain/types.js';
import type { Queryable } from '../../db/index.js';
import { notFound, ruleError, validationError } from '../errors.js';
import { recordEvent } from '../events/index.js';
import { runIdempotent, type IdempotencyState, type StoredResponse } from '../idempotency/index.js';
import type { Principal } from '../keys/index.js';
import { countVisit, findLink, findLinkBySlug, insertLink, listLinkRows, lockLink, updateLinkRow, type LinkRow } from './repository.js';

export type { LinkDraft } from '../../../core/rules/link.js';
export type { LinkRow } from './repository.js';

interface Transactional {
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
}

/**
 * Applies a create or update body to `base` and checks the result as a whole (`resolveLinkDraft`).
 * Throws one 400 that names every offending field; returns the new draft otherwise.
 */
export function buildDraft(base: LinkDraft, input: LinkInput, now: Date, isCreate: boolean): LinkDraft {
  const { draft, errors } = resolveLinkDraft(base, input, now, isCreate);
  if (errors.length) throw ruleError(errors);
  return draft;
}

/** The draft an update of a stored link starts from. */
function rowToDraft(row: LinkRow): LinkDraft {
  return {
    title: row.title,
    description: row.description,
    linkType: row.link_type,
    fiatAmount: toDecimalString(row.fiat_amount) ?? '0',
    fiatCurrency: row.fiat_currency,
    collectAddress: row.collect_address,
    collectPhone: row.collect_phone,
    redirect: row.redirect,
    showConfirmationPage: row.show_confirmation_page,
    successMessage: row.success_message,
    redirectUrl: row.redirect_url,
    cartItems: row.cart_items,
    isActive: row.is_active,
    closesAt: row.closes_at,
    minAmount: row.min_amount === null ? null : toDecimalString(row.min_amount),
    maxAmount: row.max_amount === null ? null : toDecimalString(row.max_amount),
    suggestedAmounts: row.suggested_amounts,
    goalAmount: row.goal_amount === null ? null : toDecimalString(row.goal_amount),
  };
}

/** A link as the API returns it (with the donation extras), and where it stands for a customer at `now`. */
export function toPaymentLink(row: LinkRow, publicUrl: string, withType: boolean, now: Date): PaymentLink {
  const currency = priceCurrencyOf(row.fiat_currency);
  const isDonation = row.link_type === 'Donation';
  return {
    id: row.id,
    slug: row.slug,
    url: `${publicUrl}/${row.slug}`,
    title: row.title,
    description: row.description,
    linkType: row.link_type,
    userId: row.user_id,
    integratorId: row.integrator_id,
    fiatAmount: formatFiat(row.fiat_amount, currency),
    fiatCurrency: row.fiat_currency,
    prepayOptions: { collectAddress: row.collect_address, collectPhone: row.collect_phone },
    postpayAction: {
      redirect: row.redirect,
      showConfirmationPage: row.show_confirmation_page,
      successMessage: row.success_message,
      redirectUrl: row.redirect_url,
    },
    cart: { items: row.cart_items.map((item) => ({ ...item, unitAmount: formatFiat(item.unitAmount, currency) })) },
    isActive: row.is_active,
    state: linkState(row, now),
    visitedCount: row.visited_count,
    paymentCount: row.payment_count,
    ...(isDonation
      ? {
          closesAt: row.closes_at?.toISOString() ?? null,
          minAmount: row.min_amount === null ? null : formatFiat(row.min_amount, currency),
          maxAmount: row.max_amount === null ? null : formatFiat(row.max_amount, currency),
          suggestedAmounts: row.suggested_amounts.map((a) => formatFiat(a, currency)),
          goalAmount: row.goal_amount === null ? null : formatFiat(row.goal_amount, currency),
          raised: formatFiat(row.raised, currency),
          donorCount: Number(row.donor_count),
        }
      : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    deletedAt: row.deleted_at?.toISOString() ?? null,
    ...(withType ? { __type: 'PaymentLink' as const } : {}),
  };
}

/** Where a link stands for a customer right now. */
export function linkState(row: Pick<LinkRow, 'is_active' | 'link_type' | 'closes_at'>, now: Date): LinkState {
  if (!row.is_active) return 'inactive';
  if (row.link_type === 'Donation' && row.closes_at && row.closes_at.getTime() <= now.getTime()) return 'closed';
  return 'open';
}

/** Every asset a checkout can be paid in, on each network that carries it (the public views' `assets`). */
export function payableAssets(chain: ChainAdapter): CheckoutAsset[] {
  return chain.networks.flatMap((network) =>
    network.assets.map((assetId) => ({ assetId, blockchainId: network.id, networkName: network.name, ...assetChainFacts(network, assetId) })),
  );
}

/**
 * The keyless view of `GET /v1/checkout/{slug}`: no owner ids, no counts of visits or payments, no
 * post-payment action; a donation's goal and what it raised, from how many donors.
 */
export function toPublicLink(row: LinkRow, publicUrl: string, chain: ChainAdapter, now: Date): PublicLink {
  const link = toPaymentLink(row, publicUrl, false, now);
  return {
    id: link.id,
    slug: link.slug,
    url: link.url,
    title: link.title,
    description: link.description,
    linkType: link.linkType,
    fiatAmount: link.fiatAmount,
    fiatCurrency: link.fiatCurrency,
    prepayOptions: link.prepayOptions,
    cart: link.cart,
    isActive: link.isActive,
    closesAt: link.closesAt ?? null,
    minAmount: link.minAmount ?? null,
    maxAmount: link.maxAmount ?? null,
    suggestedAmounts: link.suggestedAmounts ?? [],
    goalAmount: link.goalAmount ?? null,
    raised: link.raised ?? null,
    donorCount: link.donorCount ?? null,
    state: linkState(row, now),
    assets: payableAssets(chain),
    sandbox: chain.sandbox,
    merchantName: row.merchant_name || null,
  };
}

/** `POST /v1/payment-link`: a new link of the caller's, numbered after its last one. */
export async function createLink(db: Transactional, principal: Principal, input: LinkInput, now = new Date()): Promise<LinkRow> {
  const draft = buildDraft(EMPTY_LINK_DRAFT, input, now, true);
  return withFreshSlug(() => db.transaction((tx) => insertLink(tx, principal, draft, now)));
}

/**
 * `POST /v1/payment-link`: creates the link and answers it as the API shows it, once per
 * `Idempotency-Key` (a replay answers what the first request was answered; the key with another link
 * is a 409). Two requests are the same when their links are (the checked draft, not the spelling).
 */
export async function createLinkOnce(
  db: Transactional,
  principal: Principal,
  input: LinkInput,
  idempotency: IdempotencyState | undefined,
  now: Date,
  publicUrl: string,
): Promise<StoredResponse> {
  const draft = buildDraft(EMPTY_LINK_DRAFT, input, now, true);
  return withFreshSlug(() =>
    db.transaction((tx) =>
      runIdempotent(tx, idempotency, principal.integratorId, ['POST /v1/payment-link', draft], async () => {
        const row = await insertLink(tx, principal, draft, now);
        return { statusCode: 201, body: { ...toPaymentLink(row, publicUrl, false, now) } };
      }),
    ),
  );
}

/** Runs `insert` again when its random slug was taken: 62^10 slugs make a clash astronomically rare, but the unique index decides, not hope. */
async function withFreshSlug<T>(insert: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await insert();
    } catch (error) {
      if (attempt < 5 && (error as { code?: string }).code === '23505') continue;
      throw error;
    }
  }
}

/** `PATCH /v1/payment-link`: the merged link is checked as a whole; a refused update changes nothing. */
export async function updateLink(db: Transactional, principal: Principal, id: string, input: LinkInput, now = new Date()): Promise<LinkRow> {
  if (!isUuid(id)) throw notFound('Payment link');
  return db.transaction(async (tx) => {
    const row = await lockLink(tx, principal.integratorId, id);
    if (!row) throw notFound('Payment link');
    const draft = buildDraft(rowToDraft(row), input, now, false);
    const updated = await updateLinkRow(tx, row, draft, now);
    await recordEvent(tx, { type: 'link.changed', slug: row.slug });
    return updated;
  });
}

/** One of the caller's links, else 404. */
export async function getLink(db: Queryable, principal: Principal, id: string): Promise<LinkRow> {
  if (!isUuid(id)) throw notFound('Payment link');
  const row = await findLink(db, principal.integratorId, id);
  if (!row) throw notFound('Payment link');
  return row;
}

/** A link by its slug (the public routes and the hosted page), else 404. */
export async function getLinkBySlug(db: Queryable, slug: string): Promise<LinkRow> {
  if (!SLUG_PATTERN.test(slug)) throw notFound('Payment link');
  const row = await findLinkBySlug(db, slug);
  if (!row) throw notFound('Payment link');
  return row;
}

/** `GET /v1/payment-link`: one page of the caller's links, newest first, filtered. */
export async function listLinks(
  db: Queryable,
  principal: Principal,
  query: z.output<typeof ListPaymentLinksQuery>,
): Promise<{ rows: LinkRow[]; totalItems: number }> {
  let linkType: LinkRow['link_type'] | undefined;
  if (query.linkType !== undefined) {
    const type = readLinkType(query.linkType);
    if (type === null) throw validationError([{ path: 'linkType', message: 'linkType must be "Standard" or "Donation"' }]);
    linkType = type;
  }
  return listLinkRows(
    db,
    principal.integratorId,
    { linkType, isActive: query.isActive === undefined ? undefined : query.isActive === 'true', search: query.q?.trim() || undefined },
    query,
  );
}

/**
 * Counts a visit. A repeat of the same `visitId` within 30 minutes counts once; the insert-or-refresh
 * and the increment happen in one transaction, so concurrent visits count exactly.
 */
export async function recordVisit(db: Transactional & Queryable, slug: string, visitId: string): Promise<boolean> {
  const link = await getLinkBySlug(db, slug);
  return db.transaction((tx) => countVisit(tx, link.id, visitId));
}
