/**
 * What the parts of `<paylink-admin>` share: the host contract their controllers talk to, the admin's
 * texts (its own translation tables on top of the shared `Localizer`'s `Intl` formats), and small
 * helpers for amounts, field errors and idempotency keys. The parts render into the host's one shadow
 * root, so every `part` is reachable with `::part()` and every label sits beside its control.
 */
import type { ReactiveControllerHost, TemplateResult } from 'lit';
import type { PaylinkClient } from '../../client/index.js';
import { PaylinkAuthError, PaylinkError, PaylinkNetworkError, type FieldError } from '../../client/errors.js';
import { readTypedAmount } from '../../core/rules/amount.js';
import { fillMessage } from '../../core/rules/types.js';
import { Localizer } from '../../internal/localize.js';
import { adminTable } from './admin-locales.js';
// French, built in here; dist/paylink.js leaves this import out (see the module).
import './locale-fr.js';
import en from './translations/en.js';

export type AdminMessages = typeof en;
export type AdminKey = keyof AdminMessages;

/** The admin's texts for one locale, with the shared `Localizer`'s number and money formats. */
export class AdminText {
  private readonly format: Localizer;
  private readonly table: AdminMessages;
  /** The locale's decimal separator (`.` or `,`), to read amounts typed by hand. */
  readonly decimalSeparator: string;

  constructor(locale: string | undefined) {
    this.format = new Localizer(locale);
    // A language whose table is not registered (dist/paylink.js without its locale file) shows English texts.
    this.table = adminTable(this.format.locale.split('-')[0]!.toLowerCase(), en) ?? en;
    this.decimalSeparator = this.format.decimalSeparator;
  }

  /** The locale of the formats (`fr-CA`). */
  get locale(): string {
    return this.format.locale;
  }

  /** The language of the texts: `locale`, or `en` where its table is missing. */
  get lang(): string {
    return this.table !== en || this.locale.startsWith('en') ? this.locale : 'en';
  }

  /** The text of `key`, with `{name}` placeholders filled from `values` (`fillMessage`). */
  t(key: AdminKey, values?: Record<string, string | number>): string {
    // `||`: a packed table (dist/) leaves empty the texts equal to English ones.
    return fillMessage(this.table[key] || en[key], values);
  }

  /** A fiat amount with its currency's digits (`₦19,500.50`); the bare amount and code if `Intl` can't. */
  money(amount: string, currency: string): string {
    try {
      return this.format.money(amount, currency);
    } catch {
      return `${amount} ${currency}`;
    }
  }

  /** A crypto amount and its asset, up to 6 decimals (`25.12 USDT`). */
  crypto(amount: string, assetId: string): string {
    return this.format.crypto(amount, assetId);
  }

  /** What one unit of the asset cost at a session's `rate` (`1 USDT = NGN 1,612.40`; empty under a cent). */
  rate(rate: string, assetId: string, currency: string): string {
    try {
      return this.format.rate(rate, assetId, currency);
    } catch {
      return '';
    }
  }

  /** A number formatted from its exact decimal string. */
  number(amount: string, options?: Intl.NumberFormatOptions): string {
    return this.format.number(amount, options);
  }

  /** A count with the locale's grouping (`12,480` / `12 480`). */
  count(value: number): string {
    return new Intl.NumberFormat(this.locale).format(value);
  }

  /** A short date and time, for tables. */
  shortDateTime(iso: string): string {
    return new Intl.DateTimeFormat(this.locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
  }
}

/**
 * One tab of the console. `<paylink-admin>` renders the tab bar from its list of tabs, loads a tab
 * when it is first shown (and again on `refresh()`), and tells it when it is shown or hidden. An
 * area is one class implementing this, one `AdminView` name, and a label in the translation tables.
 */
export interface AdminTab {
  /** The tab's label. */
  readonly label: AdminKey;
  /**
   * A shorter label shown instead where the tab bar is narrow (a phone); the accessible name stays
   * `label`, which contains it (WCAG 2.5.3, label in name).
   */
  readonly shortLabel?: AdminKey;
  /** Loads what the tab shows: on its first showing, on `refresh()`, after signing in again. */
  load(): Promise<void>;
  /** The tab was shown again (true) or hidden (false): refresh quietly, start or stop live updates. */
  shown?(visible: boolean): void;
  /** The tab panel's content. */
  render(): TemplateResult;
}

/** What the admin's controllers need from `<paylink-admin>`. */
export interface AdminHost extends ReactiveControllerHost, HTMLElement {
  /** The client for the admin routes, with the element's credentials. */
  readonly api: PaylinkClient;
  /** Texts and formats for the element's `locale`. */
  readonly text: AdminText;
  /** Milliseconds between two polls of pending withdrawals (pending balances: three times that). */
  readonly pollInterval: number;
  /** Announces `message` in the element's polite live region. */
  announce(message: string): void;
  /**
   * Handles what every view handles the same way: an error that asks for a sign-in (`needsSignIn`)
   * switches the element to its sign-in message (and returns true). Other errors return false and
   * are the caller's to show.
   */
  handleAuthError(error: unknown): boolean;
  /** Moves focus to the first element of the shadow root matching `selector`, after the next render. */
  focusAfterRender(selector: string): void;
  /** Opens the rates tab (from a payment's exchange rate). */
  showRates?(): void;
}

/**
 * True when `error` means the merchant must sign in: a 401, or a 403 from the proxy's `authorize`.
 * A 403 `cross_site_request` is not one: the proxy refused a write it took for cross-site (a reverse
 * proxy rewriting `Host` without `publicOrigin` set), and signing in again would change
 * nothing, so the view shows the proxy's reason instead.
 */
export function needsSignIn(error: unknown): error is PaylinkAuthError {
  return error instanceof PaylinkAuthError && error.code !== 'cross_site_request';
}

/** A readable message for an error no field claimed. */
export function errorMessage(text: AdminText, error: unknown): string {
  if (error instanceof PaylinkNetworkError) return text.t('networkFailed');
  if (error instanceof PaylinkError) return error.message;
  return text.t('genericError', { message: error instanceof Error ? error.message : String(error) });
}

/** True for an error worth retrying with the same request (no definitive answer from the service). */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof PaylinkError)) return true;
  return error instanceof PaylinkNetworkError || error.status === 0 || error.status === 429 || error.status >= 500;
}

/**
 * Spreads the server's field errors over the form's fields: `mapPath` names the field a server path
 * belongs to (or undefined); what no field claims is joined into `form`.
 */
export function fieldErrorsFrom(
  errors: readonly FieldError[],
  mapPath: (path: string) => string | undefined,
): { fields: Record<string, string>; unclaimed: string[] } {
  const fields: Record<string, string> = {};
  const unclaimed: string[] = [];
  for (const error of errors) {
    const field = mapPath(error.path);
    if (field === undefined) unclaimed.push(error.message);
    else fields[field] ??= error.message;
  }
  return { fields, unclaimed };
}

/**
 * What a typed amount sends: the plain decimal string `readTypedAmount` reads (`1 250,50` in French →
 * `1250.50`), '' when nothing is typed. What the rule can't read goes out marked unreadable (`1234.567?`):
 * as it stands it might pass the request rules as a plain decimal (`1234.567` in French is neither
 * grouped nor a decimal there), and the form's check must refuse it as the amount reader did.
 */
export function normalizeAmount(typed: string, decimalSeparator: string): string {
  const text = typed.trim();
  return text && (readTypedAmount(text, decimalSeparator) ?? `${text}?`);
}

/**
 * Copies `value` to the clipboard and says so (`copied`); where the page may not write the clipboard
 * (permissions, a plain-http page) it says so and selects the text of `fieldSelector` for a manual
 * copy. Resolves true when the clipboard took it; `failed` runs before the selection, so the view
 * can show its message first.
 */
export async function copyToClipboard(host: AdminHost, value: string, copied: string, fieldSelector: string, failed: () => void): Promise<boolean> {
  try {
    if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
    await navigator.clipboard.writeText(value);
    host.announce(copied);
    return true;
  } catch {
    failed();
    host.announce(host.text.t('copyFailed'));
    host.requestUpdate();
    await host.updateComplete;
    const field = host.shadowRoot?.querySelector<HTMLInputElement | HTMLTextAreaElement>(fieldSelector);
    field?.focus();
    field?.select();
    return false;
  }
}

/** A fresh `Idempotency-Key`: one per withdrawal the merchant means to make. */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  // crypto.randomUUID exists only in secure contexts; a page on plain http (a LAN demo) still has getRandomValues.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
