/**
 * What the two views of a session say alike, mapped from its row once: the keyless `CheckoutSession`
 * (./domain.ts) and the merchant's `CheckoutSessionRecord` (./records.ts) write the quote (its order,
 * status, amounts, asset, network and rate) with the same fields and the same amount rules, and each
 * adds its own around it.
 */
import { formatFiat, toDecimalString } from '../../../core/money.js';
import type { CheckoutSession, CheckoutSessionRecord } from '../../../core/schemas.js';
import { assetAmount } from '../ledger/index.js';
import type { SessionRow } from './repository.js';

/** The columns of the quote, read by both views' queries. */
export type QuoteColumns = Pick<
  SessionRow,
  'order_id' | 'status' | 'fiat_amount' | 'fiat_currency' | 'asset_id' | 'blockchain_id' | 'network_name' | 'crypto_amount' | 'rate' | 'rate_source' | 'rate_at'
>;

/** The fields both views share, in the order both list them. */
type QuoteFields = Pick<
  CheckoutSession & CheckoutSessionRecord,
  'orderId' | 'status' | 'fiatAmount' | 'fiatCurrency' | 'assetId' | 'blockchainId' | 'networkName' | 'cryptoAmount' | 'rate' | 'rateSource' | 'rateAt'
>;

/**
 * A session's quote as both views write it: the fiat amount with its currency's digits, the crypto
 * amount with the asset's (`assetAmount`, as every amount of a session), the rate a canonical decimal.
 */
export function quoteFields(row: QuoteColumns): QuoteFields {
  return {
    orderId: row.order_id,
    status: row.status,
    fiatAmount: formatFiat(row.fiat_amount, row.fiat_currency),
    fiatCurrency: row.fiat_currency,
    assetId: row.asset_id,
    blockchainId: row.blockchain_id,
    networkName: row.network_name,
    cryptoAmount: assetAmount(row.crypto_amount),
    rate: row.rate === null ? null : toDecimalString(row.rate),
    rateSource: row.rate_source,
    rateAt: row.rate_at?.toISOString() ?? null,
  };
}
