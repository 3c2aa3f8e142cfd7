/**
 * Texts and formats for a locale: one translation table per language (`translations/en.ts` is
 * the fallback) and `Intl` for money, numbers and dates. Amounts stay decimal strings all the way
 * into `Intl.NumberFormat`, which formats a numeric string exactly (no float rounding).
 */
import en from './translations/en.js';
import fr from './translations/fr.js';

export type Messages = typeof en;
export type MessageKey = keyof Messages;

const tables: Record<string, Messages> = { en, fr };

/** Display name of an asset (cNGN is written with a lower-case c by its issuer). */
export const assetName = (assetId: string) => (assetId == 'CNGN' ? 'cNGN' : assetId);

/** Texts and formatters for one locale; unknown or malformed locales fall back to English. */
export class Localizer {
  readonly locale: string = 'en';
  private readonly table: Messages = en;

  constructor(locale?: string) {
    try {
      this.locale = Intl.getCanonicalLocales(locale || navigator.language)[0]!;
      this.table = tables[this.locale.slice(0, 2)] ?? en;
    } catch {
      // A malformed `locale` attribute must not break the checkout: English it is.
    }
  }

  /** The text of `key`, `{name}` placeholders filled from `values`. */
  t(key: MessageKey, values: Record<string, string | number> = {}): string {
    return this.table[key].replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]));
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

  /** A crypto amount and its asset, up to 6 decimals: `25.12 USDT`. */
  crypto(amount: string, assetId: string): string {
    return `${this.number(amount, { maximumFractionDigits: 6 })} ${assetName(assetId)}`;
  }

  /** A timestamp as a long date and short time in the reader's time zone. */
  date(iso: string): string {
    return new Date(iso).toLocaleString(this.locale, { dateStyle: 'long', timeStyle: 'short' });
  }
}
