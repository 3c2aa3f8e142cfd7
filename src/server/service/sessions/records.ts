/**
 * The merchant's view of its checkout sessions: `GET /v1/checkout-session` and
 * `GET /v1/checkout-session/{id}` (keyed; another integrator's session is a 404), and the same object
 * as `data.object` of the session webhooks (`announceSession`). This is the only place a session's
 * customer details, reference and metadata leave the service; the keyless reads (./domain.ts) never
 * carry them.
 */
import type { z } from 'zod';
import { formatFiat } from '../../../core/money.js';
import { isUuid } from '../../../core/rules/limits.js';
import type { SessionEventType } from '../../../core/rules/webhooks.js';
import type { CheckoutSessionRecord, CheckoutSessionRecordList, FieldError, ListCheckoutSessionsQuery, PublicDonorList } from '../../../core/schemas.js';
import type { Queryable } from '../../db/index.js';
import { creationRange, pageMeta } from '../context.js';
import { notFound, validationError } from '../errors.js';
import { announce } from '../events/index.js';
import type { Principal } from '../keys/index.js';
import { assetAmount } from '../ledger/index.js';
import { rateBasisOf } from '../rates/index.js';
import {
  findSessionRecord,
  findTransfersOf,
  hideDonorRow,
  listPublicDonorRows,
  listSessionRecords as listRows,
  type SessionRecordRow,
  type TransferRow,
} from './record-repository.js';
import { quoteFields } from './wire.js';

/** A session row and its transfers as the merchant's API returns them. */
export function toSessionRecord(row: SessionRecordRow, transfers: readonly TransferRow[]): CheckoutSessionRecord {
  return {
    id: row.id,
    linkId: row.link_id,
    slug: row.slug,
    linkTitle: row.link_title,
    ...quoteFields(row),
    rateBasis: rateBasisOf(row.rate_basis),
    paidAmount: assetAmount(row.paid_amount),
    lateAmount: assetAmount(row.late_amount),
    reversedAmount: assetAmount(row.reversed_amount),
    payAddress: row.pay_address,
    paidBlockchainId: row.paid_blockchain_id,
    transfers: transfers.map((transfer) => ({
      txHash: transfer.tx_hash,
      blockchainId: transfer.blockchain_id,
      amount: assetAmount(transfer.amount),
      confirmedAt: transfer.received_at.toISOString(),
      late: transfer.kind === 'late_payment',
    })),
    reference: row.reference,
    metadata: row.metadata ?? {},
    clientReference: row.client_reference,
    customer: { address: row.customer_address, phone: row.customer_phone, email: row.customer_email },
    donorName: row.donor_name,
    message: row.donor_message,
    showPublicly: row.show_publicly,
    donorHiddenAt: row.donor_hidden_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    paidAt: row.settled_at?.toISOString() ?? null,
    finalizedAt: row.finalized_at?.toISOString() ?? null,
    expiresAt: row.expires_at.toISOString(),
    refundedAmount: assetAmount(row.refunded_amount),
    resolution: row.resolution,
    resolvedAt: row.resolved_at?.toISOString() ?? null,
    resolutionReason: row.resolution_reason,
  };
}

/** One session as its merchant sees it (read in `db`, which may be an open transaction), or undefined. */
export async function readSessionRecord(db: Queryable, id: string, integratorId?: string): Promise<CheckoutSessionRecord | undefined> {
  const row = await findSessionRecord(db, id, integratorId);
  return row && toSessionRecord(row, await findTransfersOf(db, [row.id]));
}

/** `GET /v1/checkout-session/{id}`: the caller's own session, else 404. */
export async function getSessionRecord(db: Queryable, principal: Principal, id: string): Promise<CheckoutSessionRecord> {
  const record = isUuid(id) ? await readSessionRecord(db, id, principal.integratorId) : undefined;
  if (!record) throw notFound('Checkout session');
  return record;
}

/** `GET /v1/checkout-session`: the caller's sessions, newest first, filtered (dates inclusive, on creation) and paged. */
export async function listSessionRecords(
  db: Queryable,
  principal: Principal,
  query: z.output<typeof ListCheckoutSessionsQuery>,
): Promise<CheckoutSessionRecordList> {
  const errors: FieldError[] = [];
  if (query.linkId !== undefined && !isUuid(query.linkId.trim())) errors.push({ path: 'linkId', message: 'linkId must be a payment link id (a UUID)' });
  const created = creationRange(query, errors);
  if (errors.length) throw validationError(errors);
  const { rows, totalItems } = await listRows(
    db,
    principal.integratorId,
    { linkId: query.linkId?.trim(), status: query.status, reference: query.reference?.trim() || undefined, ...created },
    query,
  );
  const transfers = await findTransfersOf(
    db,
    rows.map((row) => row.id),
  );
  return {
    items: rows.map((row) =>
      toSessionRecord(
        row,
        transfers.filter((transfer) => transfer.session_id === row.id),
      ),
    ),
    meta: pageMeta(totalItems, rows.length, query),
  };
}

/**
 * `POST /v1/checkout-session/{id}/hide-donor`: the caller's session, its donor no longer on its link's
 * page (the gift still counts toward the fundraiser); 404 when it is not the caller's.
 */
export async function hideDonor(db: Queryable, principal: Principal, id: string, now: Date): Promise<CheckoutSessionRecord> {
  if (!isUuid(id) || !(await hideDonorRow(db, id, principal.integratorId, now))) throw notFound('Checkout session');
  return getSessionRecord(db, principal, id);
}

/** `GET /v1/checkout/{slug}/donors`: the latest public donors of the link `linkId`, newest first. */
export async function listPublicDonors(db: Queryable, linkId: string, limit: number): Promise<PublicDonorList> {
  const rows = await listPublicDonorRows(db, linkId, limit);
  return {
    items: rows.map((row) => ({
      name: row.donor_name,
      message: row.donor_message,
      amount: formatFiat(row.fiat_amount, row.fiat_currency),
      currency: row.fiat_currency,
      paidAt: row.settled_at.toISOString(),
    })),
  };
}

/** The session webhooks (one list: `core/rules/webhooks.ts`). */
export type { SessionEventType };

/**
 * Announces `type` about a session in the transaction `tx` that changed it: its merchant's endpoints
 * that listen receive the session as `GET /v1/checkout-session/{id}` shows it after the change.
 */
export async function announceSession(tx: Queryable, type: SessionEventType, session: { id: string; integratorId: string }, at: Date): Promise<void> {
  await announce(tx, [{ type, id: session.id, integratorId: session.integratorId }], at, (id) => readSessionRecord(tx, id));
}
