/**
 * The SQL of `payment_links`, `integrator_link_counts` and `link_visits`: nothing else in the
 * service writes them. Other rooms read a link's columns only through the fragments of `linkSql`.
 */
import { randomUUID } from 'node:crypto';
import type { LinkDraft } from '../../../core/rules/link.js';
import type { CartItem, LinkType } from '../../../core/schemas.js';
import type { Queryable } from '../../db/index.js';
import { integratorSql, nextLinkSeq, randomAlphanumeric } from '../keys/index.js';

/** A link as stored. */
export interface LinkRow {
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
  goal_amount: string | null;
  /** The running totals of its paid donations in its price currency (`link_fundraising`). */
  raised: string;
  donor_count: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  /** The owner's display name; only the public read by slug selects it. */
  merchant_name?: string | null;
}

/**
 * A link's fundraising totals in its price currency (one primary-key read of `link_fundraising`, also in
 * a `RETURNING` list): what its paid donations raised and how many there were.
 */
const TOTALS = (['raised', 'donors'] as const)
  .map(
    (column) =>
      `coalesce((SELECT f.${column} FROM link_fundraising f WHERE f.link_id = payment_links.id AND f.currency = payment_links.fiat_currency[1]), 0) AS ${column === 'donors' ? 'donor_count' : column}`,
  )
  .join(', ');

const COLUMNS = `id, integrator_id, user_id, slug, title, description, link_type, fiat_amount, fiat_currency,
  collect_address, collect_phone, redirect, show_confirmation_page, success_message, redirect_url, cart_items,
  is_active, visited_count, payment_count, closes_at, min_amount, max_amount, suggested_amounts, goal_amount, ${TOTALS},
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
    draft.goalAmount,
  ];
}

/**
 * Inserts a link in the caller's transaction, numbered after the integrator's last one (under the
 * integrator's row lock) with a new random slug, and counts it. A slug clash fails with the unique
 * index's error (23505); the caller retries with a new transaction.
 */
export async function insertLink(tx: Queryable, owner: { integratorId: string; userId: string }, draft: LinkDraft, now: Date): Promise<LinkRow> {
  const seq = await nextLinkSeq(tx, owner.integratorId);
  const { rows } = await tx.query<LinkRow>(
    `INSERT INTO payment_links (id, integrator_id, user_id, slug, title, description, link_type, fiat_amount,
       fiat_currency, collect_address, collect_phone, redirect, show_confirmation_page, success_message, redirect_url,
       cart_items, is_active, closes_at, min_amount, max_amount, suggested_amounts, goal_amount, created_at, updated_at, seq)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::jsonb, $17, $18, $19, $20, $21, $22, $23, $23, $24)
     RETURNING ${COLUMNS}`,
    [randomUUID(), owner.integratorId, owner.userId, randomAlphanumeric(10), ...draftParams(draft), now, seq],
  );
  await adjustLinkCount(tx, owner.integratorId, draft.linkType, draft.isActive, 1);
  return rows[0]!;
}

/** Locks and returns one of the integrator's links for an update in the caller's transaction. */
export async function lockLink(tx: Queryable, integratorId: string, id: string): Promise<LinkRow | undefined> {
  const { rows } = await tx.query<LinkRow>(`SELECT ${COLUMNS} FROM payment_links WHERE id = $1 AND integrator_id = $2 AND deleted_at IS NULL FOR UPDATE`, [
    id,
    integratorId,
  ]);
  return rows[0];
}

/** Writes `draft` over the locked link `row`, keeping the integrator's counts in step. */
export async function updateLinkRow(tx: Queryable, row: LinkRow, draft: LinkDraft, now: Date): Promise<LinkRow> {
  const updated = await tx.query<LinkRow>(
    `UPDATE payment_links SET title = $2, description = $3, link_type = $4, fiat_amount = $5, fiat_currency = $6,
       collect_address = $7, collect_phone = $8, redirect = $9, show_confirmation_page = $10, success_message = $11,
       redirect_url = $12, cart_items = $13::jsonb, is_active = $14, closes_at = $15, min_amount = $16, max_amount = $17,
       suggested_amounts = $18, goal_amount = $19, updated_at = $20
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [row.id, ...draftParams(draft), now],
  );
  if (row.link_type !== draft.linkType || row.is_active !== draft.isActive) {
    await adjustLinkCount(tx, row.integrator_id, row.link_type, row.is_active, -1);
    await adjustLinkCount(tx, row.integrator_id, draft.linkType, draft.isActive, 1);
  }
  return updated.rows[0]!;
}

/** Keeps integrator_link_counts in step with a link entering or leaving a (kind, state) group. */
async function adjustLinkCount(tx: Queryable, integratorId: string, linkType: LinkType, isActive: boolean, delta: 1 | -1) {
  if (delta < 0) {
    // The group's row exists: the link being moved out was counted in it.
    await tx.query('UPDATE integrator_link_counts SET n = n - 1 WHERE integrator_id = $1 AND link_type = $2 AND is_active = $3', [
      integratorId,
      linkType,
      isActive,
    ]);
    return;
  }
  await tx.query(
    `INSERT INTO integrator_link_counts (integrator_id, link_type, is_active, n) VALUES ($1, $2, $3, $4)
     ON CONFLICT (integrator_id, link_type, is_active) DO UPDATE SET n = integrator_link_counts.n + $4`,
    [integratorId, linkType, isActive, delta],
  );
}

/** One of the integrator's links by id, or undefined. */
export async function findLink(db: Queryable, integratorId: string, id: string): Promise<LinkRow | undefined> {
  const { rows } = await db.query<LinkRow>(`SELECT ${COLUMNS} FROM payment_links WHERE id = $1 AND integrator_id = $2 AND deleted_at IS NULL`, [
    id,
    integratorId,
  ]);
  return rows[0];
}

/** A link by slug, with its merchant's display name, or undefined. */
export async function findLinkBySlug(db: Queryable, slug: string): Promise<LinkRow | undefined> {
  const { rows } = await db.query<LinkRow>(
    `SELECT ${COLUMNS}, ${integratorSql.displayName('integrator_id')} AS merchant_name
     FROM payment_links WHERE slug = $1 AND deleted_at IS NULL`,
    [slug],
  );
  return rows[0];
}

/** Filters of `listLinkRows`. */
export interface LinkFilter {
  linkType?: LinkType | undefined;
  isActive?: boolean | undefined;
  /** Text searched in title, description and slug. */
  search?: string | undefined;
}

/**
 * One page of an integrator's links, newest first. Totals come from integrator_link_counts; an
 * unfiltered page is a range of `seq`, so a deep page costs what page 1 costs. Filtered pages use
 * OFFSET on the (integrator_id, seq) index, and a text search counts by scanning.
 */
export async function listLinkRows(
  db: Queryable,
  integratorId: string,
  filter: LinkFilter,
  page: { page: number; limit: number },
): Promise<{ rows: LinkRow[]; totalItems: number }> {
  const where = ['integrator_id = $1', 'deleted_at IS NULL'];
  const countWhere = ['integrator_id = $1'];
  const params: unknown[] = [integratorId];
  if (filter.linkType !== undefined) {
    params.push(filter.linkType);
    where.push(`link_type = $${params.length}`);
    countWhere.push(`link_type = $${params.length}`);
  }
  if (filter.isActive !== undefined) {
    params.push(filter.isActive);
    where.push(`is_active = $${params.length}`);
    countWhere.push(`is_active = $${params.length}`);
  }
  const offset = (page.page - 1) * page.limit;
  if (filter.search) {
    params.push(`%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`(title ILIKE $${params.length} OR description ILIKE $${params.length} OR slug ILIKE $${params.length})`);
    const condition = where.join(' AND ');
    const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM payment_links WHERE ${condition}`, params);
    const { rows } = await db.query<LinkRow>(
      `SELECT ${COLUMNS} FROM payment_links WHERE ${condition} ORDER BY seq DESC LIMIT ${page.limit} OFFSET ${offset}`,
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
    // No filter: page p is the seq range just below the integrator's last seq - offset.
    const { rows } = await db.query<LinkRow>(
      `SELECT ${COLUMNS} FROM payment_links
       WHERE integrator_id = $1 AND deleted_at IS NULL
         AND seq <= ${integratorSql.lastLinkSeq('$1')} - ${offset}
       ORDER BY seq DESC LIMIT ${page.limit}`,
      params,
    );
    return { rows, totalItems };
  }
  const { rows } = await db.query<LinkRow>(
    `SELECT ${COLUMNS} FROM payment_links WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ${page.limit} OFFSET ${offset}`,
    params,
  );
  return { rows, totalItems };
}

/**
 * Counts a visit of link `linkId` in the caller's transaction: a repeat of the same `visitId` within
 * 30 minutes counts once. Returns whether this visit counted.
 */
export async function countVisit(tx: Queryable, linkId: string, visitId: string): Promise<boolean> {
  const { rows } = await tx.query(
    `INSERT INTO link_visits (link_id, visit_id, counted_at) VALUES ($1, $2, now())
     ON CONFLICT (link_id, visit_id) DO UPDATE SET counted_at = now()
       WHERE link_visits.counted_at < now() - interval '30 minutes'
     RETURNING 1`,
    [linkId, visitId],
  );
  if (rows.length === 0) return false;
  await tx.query('UPDATE payment_links SET visited_count = visited_count + 1 WHERE id = $1', [linkId]);
  return true;
}

/** Counts one payment of link `linkId`, in the transaction of the transfer that settled its session; its slug. */
export async function countPaymentRow(tx: Queryable, linkId: string): Promise<string | undefined> {
  const { rows } = await tx.query<{ slug: string }>('UPDATE payment_links SET payment_count = payment_count + 1 WHERE id = $1 RETURNING slug', [linkId]);
  return rows[0]?.slug;
}

/** Takes back the payment a link counted, when the chain took that payment back (a reorg before it was final); its slug. */
export async function uncountPaymentRow(tx: Queryable, linkId: string): Promise<string | undefined> {
  const { rows } = await tx.query<{ slug: string }>(
    'UPDATE payment_links SET payment_count = payment_count - 1 WHERE id = $1 AND payment_count > 0 RETURNING slug',
    [linkId],
  );
  return rows[0]?.slug;
}

/**
 * Adds one gift (`sign` 1) to a link's fundraising totals in `currency`, or takes one back (-1), in the
 * caller's transaction (the one that settles or reverses the session): the row's lock orders concurrent
 * settlements of one link, as `payment_count`'s does.
 */
export async function addToFundraising(tx: Queryable, linkId: string, gift: { amount: string; currency: string }, sign: 1 | -1): Promise<void> {
  await tx.query(
    `INSERT INTO link_fundraising (link_id, currency, raised, donors) VALUES ($1, $2, greatest($3::numeric * $4::int, 0), greatest($4::int, 0))
     ON CONFLICT (link_id, currency) DO UPDATE SET
       raised = greatest(link_fundraising.raised + $3::numeric * $4::int, 0), donors = greatest(link_fundraising.donors + $4::int, 0)`,
    [linkId, gift.currency, gift.amount, sign],
  );
}

/**
 * SQL fragments other rooms' reads may embed, so the columns of `payment_links` are named only here:
 * a checkout session's read joins its link (when it pays one) for the slug, title and post-payment action.
 */
export const linkSql = {
  /** `LEFT JOIN payment_links <alias> ON <alias>.id = <linkIdColumn>` (a session of an order has no link). */
  join: (alias: string, linkIdColumn: string) => `LEFT JOIN payment_links ${alias} ON ${alias}.id = ${linkIdColumn}`,
  /** The link's slug. */
  slug: (alias: string) => `${alias}.slug`,
  /** The link's title. */
  title: (alias: string) => `${alias}.title`,
  /** The link's post-payment action, column by column. */
  postpay: (alias: string) => ({
    redirect: `${alias}.redirect`,
    show_confirmation_page: `${alias}.show_confirmation_page`,
    success_message: `${alias}.success_message`,
    redirect_url: `${alias}.redirect_url`,
  }),
};
