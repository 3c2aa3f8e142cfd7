/**
 * Texts and formats for a locale: the texts from the translation tables an element brings (each
 * element keeps its own, `en` being the fallback) and `Intl` for money, numbers and dates. Amounts
 * stay decimal strings all the way into `Intl.NumberFormat`, which formats a numeric string exactly
 * (no float rounding). DOM-free: it runs in Node as well.
 */

import { fractionDigits, toUnits } from '../core/money.js';

/** Display name of an asset (cNGN is written with a lower-case c by its issuer). */
export const assetName = (assetId: string) => (assetId == 'CNGN' ? 'cNGN' : assetId);

/** Texts and formatters for one locale; unknown or malformed locales fall back to English. */
export class Localizer<Messages extends Record<string, string> = Record<string, string>> {
  readonly locale: string = 'en';
  readonly #table?: Messages;

  /** `tables` by language (`{ en, fr }`); `t()` needs them, the formats do not. */
  constructor(locale?: string, tables: Record<string, Messages> = {}) {
    try {
      this.locale = Intl.getCanonicalLocales(locale || globalThis.navigator?.language)[0] ?? 'en';
    } catch {
      // A malformed `locale` attribute must not break the checkout: English it is.
    }
    this.#table = tables[this.locale.slice(0, 2)] ?? tables.en;
  }

  /** The text of `key`, `{name}` placeholders filled from `values`. */
  t(key: keyof Messages, values: Record<string, string | number> = {}): string {
    return this.#table![key]!.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]));
  }

  /** A number formatted from its exact decimal string. */
  number(amount: string, options?: Intl.NumberFormatOptions): string {
    return new Intl.NumberFormat(this.locale, options).format(amount as Intl.StringNumericLiteral);
  }

  /** A fiat amount with its currency's digits (Intl's default): `("19500.5", "NGN")` → `NGN 19,500.50`. */
  money(amount: string, currency: string): string {
    return this.number(amount, { style: 'currency', currency });
  }

  /**
   * Minor-unit digits of a fiat currency (ISO 4217, as `Intl` knows them: the same as
   * `FIAT_DIGITS` in core/money.ts, without shipping that table to the browser).
   */
  digits(currency: string): number {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits!;
  }

  /**
   * A crypto amount and its asset with all its digits (`25.12 USDT`, `12.187813 USDT`): never
   * rounded, since it may be the exact amount to send (up to a token's 18 decimals).
   */
  crypto(amount: string, assetId: string): string {
    return `${this.number(amount, { maximumFractionDigits: 18 })} ${assetName(assetId)}`;
  }

  /**
   * What one unit of an asset costs in a currency, from a session's `rate` (asset units per currency
   * unit): `1 USDT = NGN 1,612.40`, inverted exactly on bigints (cut at 9 decimals, then rounded by
   * `Intl` to the currency's digits). Empty where one unit costs under a cent (cNGN in dollars), which
   * those digits cannot show.
   */
  rate(rate: string, assetId: string, currency: string): string {
    const digits = fractionDigits(rate);
    // The price of one unit, in billionths of the currency.
    const price = 10n ** BigInt(digits + 9) / toUnits(rate, digits);
    return price < 1e7 ? '' : `1 ${assetName(assetId)} = ${this.money(`${price}e-9`, currency)}`;
  }

  /** A timestamp as a long date and short time in the reader's time zone. */
  date(iso: string): string {
    return new Date(iso).toLocaleString(this.locale, { dateStyle: 'long', timeStyle: 'short' });
  }
}
