/**
 * The SQL that opens a checkout session: its deposit index and its row. Reading, paying and expiring it
 * are ./repository.ts's.
 */
import { type AssetId } from '../../../core/money.js';
import type { Queryable } from '../../db/index.js';

export interface NewSession {
  id: string;
  /** The link it pays, or the order (one of the two). */
  linkId: string | null;
  orderId: string | null;
  integratorId: string;
  fiatAmount: string;
  fiatCurrency: string;
  assetId: AssetId;
  blockchainId: string;
  networkName: string;
  cryptoAmount: string;
  /** The rate the quote was made with (rates/convert.ts), its sources and when it was fetched. */
  rate: string;
  rateSource: string;
  rateAt: Date;
  /** What the quote was made of, for audits (rates/book.ts `RateBasis`). */
  rateBasis: readonly unknown[];
  payAddress: string;
  /** From `nextDepositIndex`: the address is derived from it on real chains. */
  depositIndex: number;
  customer: { address: string | null; phone: string | null; email: string | null };
  /** The merchant's order id and string pairs (`core/rules/session-tags.ts`): an order's, or none. */
  reference: string | null;
  metadata: Record<string, string>;
  /** What the page said the payment was for (a keyless start's `reference`): never trusted. */
  clientReference: string | null;
  /**
   * A donation's donor (name, message, listed or not) and what it counts toward its link's fundraiser
   * once paid (its amount in the link's price currency, as quoted; null: nothing); null for others.
   */
  donation: {
    name: string | null;
    message: string | null;
    showPublicly: boolean;
    raiseAmount: string | null;
    raiseCurrency: string | null;
  } | null;
  expiresAt: Date;
  createdAt: Date;
}

/**
 * The next deposit index (`deposit_index_seq`): each is given once, ever, so a deposit address
 * derived from it belongs to one session only.
 */
export async function nextDepositIndex(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: string }>(`SELECT nextval('deposit_index_seq')::text AS n`);
  return Number(rows[0]!.n);
}

/** Records a new `awaiting_payment` session. */
export async function insertSession(db: Queryable, session: NewSession): Promise<void> {
  await db.query(
    `INSERT INTO checkout_sessions (id, link_id, integrator_id, status, fiat_amount, fiat_currency, asset_id, blockchain_id,
       network_name, crypto_amount, pay_address, customer_address, customer_phone, customer_email, expires_at, created_at, updated_at,
       deposit_index, reference, metadata, client_reference, order_id, rate, rate_source, rate_at, rate_basis,
       donor_name, donor_message, show_publicly, raise_amount, raise_currency)
     VALUES ($1, $2, $3, 'awaiting_payment', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15, $16, $17, $18::jsonb, $19, $20, $21, $22, $23, $24::jsonb,
       $25, $26, $27, $28, $29)`,
    [
      session.id,
      session.linkId,
      session.integratorId,
      session.fiatAmount,
      session.fiatCurrency,
      session.assetId,
      session.blockchainId,
      session.networkName,
      session.cryptoAmount,
      session.payAddress,
      session.customer.address,
      session.customer.phone,
      session.customer.email,
      session.expiresAt,
      session.createdAt,
      session.depositIndex,
      session.reference,
      JSON.stringify(session.metadata),
      session.clientReference,
      session.orderId,
      session.rate,
      session.rateSource,
      session.rateAt,
      JSON.stringify(session.rateBasis),
      session.donation?.name ?? null,
      session.donation?.message ?? null,
      session.donation?.showPublicly ?? false,
      session.donation?.raiseAmount ?? null,
      session.donation?.raiseCurrency ?? null,
    ],
  );
}
