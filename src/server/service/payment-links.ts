/**
 * Payment links: the rules of DESIGN §4 applied to the spec's tolerant input, and the SQL of the
 * `payment_links` and `link_visits` tables. Routes call these functions; nothing else touches the tables.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  FIAT_DIGITS,
  compareDecimal,
  fiatDigits,
  formatFixed,
  fractionDigits,
  fromUnits,
  toDecimalString,
  toUnits,
} from '../../core/money.js';
import type {
  CartItem,
  CreatePaymentLinkInput,
  FieldError,
  LinkState,
  LinkType,
  ListPaymentLinksQuery,
  PaymentLink,
  PublicLink,
  UpdatePaymentLinkInput,
} from '../../core/schemas.js';
import { assetChainFacts, type ChainAdapter } from '../chain/types.js';
import type { Queryable } from '../db/index.js';
import { notFound, validationError } from './errors.js';
import { randomAlphanumeric, type Principal } from './keys.js';

/** The canonical, validated content of a link: what create and update both end in. */
export interface LinkDraft {
  title: string;
  description: string;
  linkType: LinkType;
  fiatAmount: string;
  fiatCurrency: string[];
  collectAddress: boolean;
  collectPhone: boolean;
  redirect: boolean;
  showConfirmationPage: boolean;
  successMessage: string;
  redirectUrl: string;
  cartItems: CartItem[];
  isActive: boolean;
  closesAt: Date | null;
  minAmount: string | null;
  maxAmount: string | null;
  suggestedAmounts: string[];
}

type CreateInput = z.output<typeof CreatePaymentLinkInput>;
type UpdateInput = z.output<typeof UpdatePaymentLinkInput>;

/** Largest amount a link may carry: comfortably inside NUMERIC(30, 6). */
const MAX_AMOUNT = '1000000000000';

const EMPTY_DRAFT: LinkDraft = {
  title: '',
  description: '',
  linkType: 'Standard',
  fiatAmount: '0',
  fiatCurrency: ['NGN'],
  collectAddress: false,
  collectPhone: false,
  redirect: false,
  showConfirmationPage: false,
  successMessage: '',
  redirectUrl: '',
  cartItems: [],
  isActive: true,
  closesAt: null,
  minAmount: null,
  maxAmount: null,
  suggestedAmounts: [],
};

/**
 * Applies a create or update body to `base` and checks the result as a whole. Throws one 400 that
 * names every offending field; returns the new draft otherwise.
 */
export function buildDraft(base: LinkDraft, input: CreateInput | UpdateInput, now: Date, isCreate: boolean): LinkDraft {
  const errors: FieldError[] = [];
  const fail = (path: string, message: string) => errors.push({ path, message });
  const draft: LinkDraft = { ...base, cartItems: [...base.cartItems], suggestedAmounts: [...base.suggestedAmounts] };

  if (input.title !== undefined) draft.title = input.title.trim();
  if (input.description !== undefined) draft.description = input.description;

  if (input.linkType !== undefined) {
    const wanted = input.linkType.trim().toLowerCase();
    if (wanted === 'standard') draft.linkType = 'Standard';
    else if (wanted === 'donation') draft.linkType = 'Donation';
    else fail('linkType', 'linkType must be "Standard" or "Donation"');
  }

  // fiatCurrency and fiatAmount may sit at the top level or, as some spec examples show, inside cart.
  const currencyInput = input.fiatCurrency ?? input.cart?.fiatCurrency;
  if (currencyInput !== undefined) {
    const codes = (Array.isArray(currencyInput) ? currencyInput : [currencyInput]).map((c) => c.trim().toUpperCase());
    const unknown = codes.filter((code) => !(code in FIAT_DIGITS));
    if (codes.length === 0) fail('fiatCurrency', 'fiatCurrency needs at least one currency code');
    else if (unknown.length) fail('fiatCurrency', `Unsupported currency: ${unknown.join(', ')}`);
    else draft.fiatCurrency = [...new Set(codes)];
  }
  const priceCurrency = draft.fiatCurrency[0] ?? 'NGN';
  const digits = fiatDigits(priceCurrency);

  const readAmount = (value: unknown, path: string, amountDigits = digits): string | null => {
    const amount = toDecimalString(value);
    if (amount === null) fail(path, 'Must be a non-negative decimal amount, such as 12.50');
    else if (fractionDigits(amount) > amountDigits)
      fail(path, `${priceCurrency} amounts have at most ${amountDigits} decimal places`);
    else if (compareDecimal(amount, MAX_AMOUNT) > 0) fail(path, `Must be at most ${MAX_AMOUNT}`);
    else return amount;
    return null;
  };

  const amountValue = input.fiatAmount ?? input.cart?.fiatAmount;
  const amountGiven = amountValue !== undefined;
  if (amountGiven) {
    const amount = readAmount(amountValue, input.fiatAmount !== undefined ? 'fiatAmount' : 'cart.fiatAmount');
    if (amount !== null) draft.fiatAmount = amount;
  }

  const itemsGiven = input.cart?.items !== undefined;
  if (input.cart?.items) {
    draft.cartItems = [];
    input.cart.items.forEach((item, index) => {
      const unitAmount = readAmount(item.unitAmount, `cart.items.${index}.unitAmount`);
      if (item.imageUrl !== undefined && item.imageUrl !== '' && !isHttpUrl(item.imageUrl, ['https:']))
        fail(`cart.items.${index}.imageUrl`, 'imageUrl must be an https:// URL');
      if (unitAmount === null) return;
      draft.cartItems.push({
        name: item.name,
        quantity: item.quantity,
        unitAmount,
        ...(item.description ? { description: item.description } : {}),
        ...(item.imageUrl ? { imageUrl: item.imageUrl } : {}),
      });
    });
  }

  const action = input.action;
  if (action) {
    if (action.successMessage !== undefined) draft.successMessage = action.successMessage;
    if (action.redirect !== undefined) draft.redirect = action.redirect;
    if (action.showConfirmationPage !== undefined) draft.showConfirmationPage = action.showConfirmationPage;
    if (action.isActive !== undefined) draft.isActive = action.isActive;
    const url = action.redirectUrl ?? action.redirectURL;
    if (url !== undefined) {
      const path = action.redirectUrl !== undefined ? 'action.redirectUrl' : 'action.redirectURL';
      if (url.trim() !== '' && !isHttpUrl(url.trim())) fail(path, 'redirectUrl must be an absolute http:// or https:// URL');
      else draft.redirectUrl = url.trim();
    }
  }
  if ('isActive' in input && input.isActive !== undefined) draft.isActive = input.isActive;
  if (draft.redirect && draft.redirectUrl === '')
    fail('action.redirectUrl', 'A redirect needs an http:// or https:// redirectUrl');

  if (input.options) {
    if (input.options.collectAddress !== undefined) draft.collectAddress = input.options.collectAddress;
    if (input.options.collectPhone !== undefined) draft.collectPhone = input.options.collectPhone;
  }

  // Donation extras.
  const donationFields = ['closesAt', 'minAmount', 'maxAmount', 'suggestedAmounts'] as const;
  if (draft.linkType === 'Standard') {
    for (const field of donationFields) {
      const value = input[field];
      if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0))
        fail(field, `${field} applies to Donation links only`);
    }
    Object.assign(draft, { closesAt: null, minAmount: null, maxAmount: null, suggestedAmounts: [] });
  } else {
    if (input.closesAt !== undefined) {
      if (input.closesAt === null || input.closesAt === '') draft.closesAt = null;
      else {
        const closesAt = new Date(input.closesAt);
        if (!/^\d{4}-\d{2}-\d{2}T/.test(input.closesAt) || Number.isNaN(closesAt.getTime()))
          fail('closesAt', 'closesAt must be an ISO 8601 date-time, such as 2030-01-31T18:00:00Z');
        else if (closesAt.getTime() <= now.getTime()) fail('closesAt', 'closesAt must be in the future');
        else draft.closesAt = closesAt;
      }
    }
    for (const field of ['minAmount', 'maxAmount'] as const) {
      const value = input[field];
      if (value === null) draft[field] = null;
      else if (value !== undefined) draft[field] = readAmount(value, field);
    }
    if (input.suggestedAmounts !== undefined) {
      const amounts = input.suggestedAmounts.map((value, index) => readAmount(value, `suggestedAmounts.${index}`));
      draft.suggestedAmounts = amounts.filter((a): a is string => a !== null);
    }
    if (draft.maxAmount !== null && compareDecimal(draft.maxAmount, '0') <= 0)
      fail('maxAmount', 'maxAmount must be greater than 0');
    if (draft.minAmount !== null && draft.maxAmount !== null && compareDecimal(draft.minAmount, draft.maxAmount) > 0)
      fail('minAmount', 'minAmount must not be greater than maxAmount');
    draft.suggestedAmounts.forEach((amount, index) => {
      if (compareDecimal(amount, '0') <= 0) fail(`suggestedAmounts.${index}`, 'Suggested amounts must be greater than 0');
      else if (draft.minAmount !== null && compareDecimal(amount, draft.minAmount) < 0)
        fail(`suggestedAmounts.${index}`, 'Suggested amounts must be at least minAmount');
      else if (draft.maxAmount !== null && compareDecimal(amount, draft.maxAmount) > 0)
        fail(`suggestedAmounts.${index}`, 'Suggested amounts must be at most maxAmount');
    });
  }

  // The price of a Standard link: its fixed amount, which equals its cart's total when it has one.
  if (draft.linkType === 'Standard' && errors.length === 0) {
    for (const [index, item] of draft.cartItems.entries()) {
      if (fractionDigits(item.unitAmount) > digits)
        fail(`cart.items.${index}.unitAmount`, `${priceCurrency} amounts have at most ${digits} decimal places`);
    }
    if (draft.cartItems.length > 0 && errors.length === 0) {
      const total = fromUnits(
        draft.cartItems.reduce((sum, item) => sum + toUnits(item.unitAmount, digits) * BigInt(item.quantity), 0n),
        digits,
      );
      if (amountGiven && compareDecimal(draft.fiatAmount, total) !== 0)
        fail(input.fiatAmount !== undefined ? 'fiatAmount' : 'cart.fiatAmount', `fiatAmount must equal the cart total (${total})`);
      else if (amountGiven || itemsGiven || compareDecimal(draft.fiatAmount, total) !== 0) draft.fiatAmount = total;
    }
    if (compareDecimal(draft.fiatAmount, '0') <= 0 && errors.length === 0)
      fail('fiatAmount', 'A Standard link needs a fiatAmount greater than 0 (or cart items)');
    if (fractionDigits(draft.fiatAmount) > digits && !errors.some((e) => e.path.endsWith('fiatAmount')))
      fail('fiatAmount', `${priceCurrency} amounts have at most ${digits} decimal places`);
  }

  if (isCreate && draft.title === '') fail('title', 'Title is required');
  if (errors.length) throw validationError(errors);
  return draft;
}

function isHttpUrl(value: string, protocols = ['http:', 'https:']): boolean {
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Rows

interface LinkRow {
  id: string;
  integrator_id: string;
  user_id: string;
  slug: string;
  title: string;
  description: string;
  link_type: LinkType;
  fiat_amount: string;
  fiat_currency: string[];
  collect_address: boolean;
  collect_phone: boolean;
  redirect: boolean;
  show_confirmation_page: boolean;
  success_message: string;
  redirect_url: string;
  cart_items: CartItem[];
  is_active: boolean;
  visited_count: number;
  payment_count: number;
  closes_at: Date | null;
  min_amount: string | null;
  max_amount: string | null;
  suggested_amounts: string[];
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  /** The owner's display name; only the public read by slug selects it. */
  merchant_name?: string | null;
}

/** Trims the database's NUMERIC(30,6) rendering back to the currency's digits. */
function money(value: string, currency: string): string {
  return formatFixed(toDecimalString(value) ?? '0', fiatDigits(currency));
}

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
  };
}

/** A link as the API returns it (spec §2.1, with the DESIGN §4 donation extras). */
export function toPaymentLink(row: LinkRow, publicUrl: string, withType: boolean): PaymentLink {
  const currency = row.fiat_currency[0] ?? 'NGN';
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
    fiatAmount: money(row.fiat_amount, currency),
    fiatCurrency: row.fiat_currency,
    prepayOptions: { collectAddress: row.collect_address, collectPhone: row.collect_phone },
    postpayAction: {
      redirect: row.redirect,
      showConfirmationPage: row.show_confirmation_page,
      successMessage: row.success_message,
      redirectUrl: row.redirect_url,
    },
    cart: { items: row.cart_items.map((item) => ({ ...item, unitAmount: money(item.unitAmount, currency) })) },
    isActive: row.is_active,
    visitedCount: row.visited_count,
    paymentCount: row.payment_count,
    ...(isDonation
      ? {
          closesAt: row.closes_at?.toISOString() ?? null,
          minAmount: row.min_amount === null ? null : money(row.min_amount, currency),
          maxAmount: row.max_amount === null ? null : money(row.max_amount, currency),
          suggestedAmounts: row.suggested_amounts.map((a) => money(a, currency)),
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

/** The keyless view of `GET /v1/checkout/{slug}`: no owner ids, no counts, no post-payment action. */
export function toPublicLink(row: LinkRow, publicUrl: string, chain: ChainAdapter, now: Date): PublicLink {
  const link = toPaymentLink(row, publicUrl, false);
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
    state: linkState(row, now),
    assets: chain.networks.flatMap((network) =>
      network.assets.map((assetId) => ({ assetId, blockchainId: network.id, networkName: network.name, ...assetChainFacts(network, assetId) })),
    ),
    sandbox: chain.sandbox,
    merchantName: row.merchant_name || null,
  };
}

// ---------------------------------------------------------------------------------------------
// Repository

const COLUMNS = `id, integrator_id, user_id, slug, title, description, link_type, fiat_amount, fiat_currency,
  collect_address, collect_phone, redirect, show_confirmation_page, success_message, redirect_url, cart_items,
  is_active, visited_count, payment_count, closes_at, min_amount, max_amount, suggested_amounts,
  created_at, updated_at, deleted_at`;

function draftParams(draft: LinkDraft): unknown[] {
  return [
    draft.title,
    draft.description,
    draft.linkType,
    draft.fiatAmount,
    draft.fiatCurrency,
    draft.collectAddress,
    draft.collectPhone,
    draft.redirect,
    draft.showConfirmationPage,
    draft.successMessage,
    draft.redirectUrl,
    JSON.stringify(draft.cartItems),
    draft.isActive,
    draft.closesAt,
    draft.minAmount,
    draft.maxAmount,
    draft.suggestedAmounts,
  ];
}

export async function createLink(db: Transactional, principal: Principal, input: CreateInput, now = new Date()): Promise<LinkRow> {
  const draft = buildDraft(EMPTY_DRAFT, input, now, true);
  // 62^10 slugs: a clash is astronomically rare, but the unique index decides, not hope.
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        // Locks the integrator's row: seq stays gap-free and in creation order.
        const seq = await tx.query<{ link_seq: string | number }>(
          'UPDATE integrators SET link_seq = link_seq + 1 WHERE id = $1 RETURNING link_seq',
          [principal.integratorId],
        );
        const { rows } = await tx.query<LinkRow>(
          `INSERT INTO payment_links (id, integrator_id, user_id, slug, title, description, link_type, fiat_amount,
             fiat_currency, collect_address, collect_phone, redirect, show_confirmation_page, success_message, redirect_url,
             cart_items, is_active, closes_at, min_amount, max_amount, suggested_amounts, created_at, updated_at, seq)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::jsonb, $17, $18, $19, $20, $21, $22, $22, $23)
           RETURNING ${COLUMNS}`,
          [randomUUID(), principal.integratorId, principal.userId, randomAlphanumeric(10), ...draftParams(draft), now, seq.rows[0]!.link_seq],
        );
        await adjustLinkCount(tx, principal.integratorId, draft.linkType, draft.isActive, 1);
        return rows[0]!;
      });
    } catch (error) {
      if (attempt < 5 && (error as { code?: string }).code === '23505') continue;
      throw error;
    }
  }
}

/** Keeps integrator_link_counts in step with a link entering or leaving a (kind, state) group. */
async function adjustLinkCount(tx: Queryable, integratorId: string, linkType: LinkType, isActive: boolean, delta: 1 | -1) {
  if (delta < 0) {
    // The group's row exists: the link being moved out was counted in it.
    await tx.query(
      'UPDATE integrator_link_counts SET n = n - 1 WHERE integrator_id = $1 AND link_type = $2 AND is_active = $3',
      [integratorId, linkType, isActive],
    );
    return;
  }
  await tx.query(
    `INSERT INTO integrator_link_counts (integrator_id, link_type, is_active, n) VALUES ($1, $2, $3, $4)
     ON CONFLICT (integrator_id, link_type, is_active) DO UPDATE SET n = integrator_link_counts.n + $4`,
    [integratorId, linkType, isActive, delta],
  );
}

interface Transactional {
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
}

/** Every change of a link is announced on this channel (payload: its slug), for the caches of ./link-cache.ts. */
export const LINK_CHANNEL = 'paylink_link_changed';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function updateLink(
  db: Transactional,
  principal: Principal,
  id: string,
  input: UpdateInput,
  now = new Date(),
): Promise<LinkRow> {
  if (!UUID.test(id)) throw notFound('Payment link');
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<LinkRow>(
      `SELECT ${COLUMNS} FROM payment_links WHERE id = $1 AND integrator_id = $2 AND deleted_at IS NULL FOR UPDATE`,
      [id, principal.integratorId],
    );
    const row = rows[0];
    if (!row) throw notFound('Payment link');
    const draft = buildDraft(rowToDraft(row), input, now, false);
    const updated = await tx.query<LinkRow>(
      `UPDATE payment_links SET title = $2, description = $3, link_type = $4, fiat_amount = $5, fiat_currency = $6,
         collect_address = $7, collect_phone = $8, redirect = $9, show_confirmation_page = $10, success_message = $11,
         redirect_url = $12, cart_items = $13::jsonb, is_active = $14, closes_at = $15, min_amount = $16, max_amount = $17,
         suggested_amounts = $18, updated_at = $19
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, ...draftParams(draft), now],
    );
    if (row.link_type !== draft.linkType || row.is_active !== draft.isActive) {
      await adjustLinkCount(tx, row.integrator_id, row.link_type, row.is_active, -1);
      await adjustLinkCount(tx, row.integrator_id, draft.linkType, draft.isActive, 1);
    }
    await tx.query('SELECT pg_notify($1, $2)', [LINK_CHANNEL, row.slug]);
    return updated.rows[0]!;
  });
}

export async function getLink(db: Queryable, principal: Principal, id: string): Promise<LinkRow> {
  if (!UUID.test(id)) throw notFound('Payment link');
  const { rows } = await db.query<LinkRow>(
    `SELECT ${COLUMNS} FROM payment_links WHERE id = $1 AND integrator_id = $2 AND deleted_at IS NULL`,
    [id, principal.integratorId],
  );
  if (!rows[0]) throw notFound('Payment link');
  return rows[0];
}

export async function getLinkBySlug(db: Queryable, slug: string): Promise<LinkRow> {
  if (!/^[A-Za-z0-9]{1,64}$/.test(slug)) throw notFound('Payment link');
  const { rows } = await db.query<LinkRow>(
    `SELECT ${COLUMNS}, (SELECT name FROM integrators i WHERE i.id = integrator_id) AS merchant_name
     FROM payment_links WHERE slug = $1 AND deleted_at IS NULL`,
    [slug],
  );
  if (!rows[0]) throw notFound('Payment link');
  return rows[0];
}

/**
 * One page of an integrator's links, newest first. Totals come from integrator_link_counts; an
 * unfiltered page is a range of `seq`, so a deep page costs what page 1 costs. Filtered pages use
 * OFFSET on the (integrator_id, seq) index, and a text search (`q`) counts by scanning.
 */
export async function listLinks(
  db: Queryable,
  principal: Principal,
  query: z.output<typeof ListPaymentLinksQuery>,
): Promise<{ rows: LinkRow[]; totalItems: number }> {
  const where = ['integrator_id = $1', 'deleted_at IS NULL'];
  const countWhere = ['integrator_id = $1'];
  const params: unknown[] = [principal.integratorId];
  if (query.linkType !== undefined) {
    const type = query.linkType.toLowerCase();
    if (type !== 'standard' && type !== 'donation')
      throw validationError([{ path: 'linkType', message: 'linkType must be "Standard" or "Donation"' }]);
    params.push(type === 'standard' ? 'Standard' : 'Donation');
    where.push(`link_type = $${params.length}`);
    countWhere.push(`link_type = $${params.length}`);
  }
  if (query.isActive !== undefined) {
    params.push(query.isActive === 'true');
    where.push(`is_active = $${params.length}`);
    countWhere.push(`is_active = $${params.length}`);
  }
  const offset = (query.page - 1) * query.limit;
  const search = query.q?.trim();
  if (search) {
    params.push(`%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`(title ILIKE $${params.length} OR description ILIKE $${params.length} OR slug ILIKE $${params.length})`);
    const filter = where.join(' AND ');
    const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM payment_links WHERE ${filter}`, params);
    const { rows } = await db.query<LinkRow>(
      `SELECT ${COLUMNS} FROM payment_links WHERE ${filter} ORDER BY seq DESC LIMIT ${query.limit} OFFSET ${offset}`,
      params,
    );
    return { rows, totalItems: count.rows[0]?.total ?? 0 };
  }
  const count = await db.query<{ total: string | number }>(
    `SELECT coalesce(sum(n), 0)::bigint AS total FROM integrator_link_counts WHERE ${countWhere.join(' AND ')}`,
    params,
  );
  const totalItems = Number(count.rows[0]?.total ?? 0);
  if (offset >= totalItems) return { rows: [], totalItems };
  if (params.length === 1) {
    // No filter: page p is the seq range just below link_seq - offset.
    const { rows } = await db.query<LinkRow>(
      `SELECT ${COLUMNS} FROM payment_links
       WHERE integrator_id = $1 AND deleted_at IS NULL
         AND seq <= (SELECT link_seq FROM integrators WHERE id = $1) - ${offset}
       ORDER BY seq DESC LIMIT ${query.limit}`,
      params,
    );
    return { rows, totalItems };
  }
  const { rows } = await db.query<LinkRow>(
    `SELECT ${COLUMNS} FROM payment_links WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ${query.limit} OFFSET ${offset}`,
    params,
  );
  return { rows, totalItems };
}

/**
 * Counts a visit. A repeat of the same `visitId` within 30 minutes counts once; the insert-or-refresh
 * and the increment happen in one transaction, so concurrent visits count exactly.
 */
export async function recordVisit(
  db: { transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> },
  slug: string,
  visitId: string,
): Promise<boolean> {
  const link = await getLinkBySlug(db as unknown as Queryable, slug);
  return db.transaction(async (tx) => {
    const { rows } = await tx.query(
      `INSERT INTO link_visits (link_id, visit_id, counted_at) VALUES ($1, $2, now())
       ON CONFLICT (link_id, visit_id) DO UPDATE SET counted_at = now()
         WHERE link_visits.counted_at < now() - interval '30 minutes'
       RETURNING 1`,
      [link.id, visitId],
    );
    if (rows.length === 0) return false;
    await tx.query('UPDATE payment_links SET visited_count = visited_count + 1 WHERE id = $1', [link.id]);
    return true;
  });
}

export type { LinkRow };
