/**
 * The CSV export of the merchant's payments: every page of the filtered list (not just the one on
 * screen), one row per checkout session, its values exactly as the API returns them (ISO times,
 * decimal strings), so a spreadsheet or an accounting import reads the same figures as the API.
 *
 * The file is RFC 4180 (CRLF rows, every field quoted, quotes doubled) with a UTF-8 byte-order mark so
 * that Excel reads accents and `₦` right. What the customer or the merchant typed can reach a
 * spreadsheet that evaluates formulas, and not always through a reader that splits on commas: in
 * locales whose list separator is `;` (most of Europe), a spreadsheet splits the same line on `;`, and
 * a naive import splits on tabs or line breaks. So a formula is defused wherever a cell could begin in
 * any of those readings: at the start of a value and after every `,` `;` tab or line break in it, a `'`
 * goes before a run of spaces, quotes and invisible characters that leads to `=`, `+`, `-`, `@`, a tab
 * or a carriage return, or a look-alike of one (`−`, fullwidth, small, super- and subscript forms: see
 * `LEADS_TO_FORMULA`), which spreadsheets read as text
 * (OWASP's advice against CSV injection). Phone numbers (`+234…`) are guarded too, which also keeps
 * Excel from reading them as numbers.
 */
import type { ListSessionsParams } from '../../../client/index.js';
import type { CheckoutSessionRecord } from '../../../core/schemas.js';
import type { AdminHost } from '../admin-context.js';

/** The columns of the export, named as the API names the fields, with how each is read from a session. */
export const PAYMENT_CSV_COLUMNS: readonly (readonly [string, (session: CheckoutSessionRecord) => string | null])[] = [
  ['id', (s) => s.id],
  ['createdAt', (s) => s.createdAt],
  ['status', (s) => s.status],
  ['linkId', (s) => s.linkId],
  ['slug', (s) => s.slug],
  ['linkTitle', (s) => s.linkTitle],
  ['reference', (s) => s.reference],
  ['fiatAmount', (s) => s.fiatAmount],
  ['fiatCurrency', (s) => s.fiatCurrency],
  ['assetId', (s) => s.assetId],
  ['blockchainId', (s) => s.blockchainId],
  ['networkName', (s) => s.networkName],
  ['cryptoAmount', (s) => s.cryptoAmount],
  ['paidAmount', (s) => s.paidAmount],
  ['lateAmount', (s) => s.lateAmount],
  ['payAddress', (s) => s.payAddress],
  ['customerAddress', (s) => s.customer.address],
  ['customerPhone', (s) => s.customer.phone],
  ['customerEmail', (s) => s.customer.email],
  ['paidAt', (s) => s.paidAt],
  ['expiresAt', (s) => s.expiresAt],
  // Space-separated: a hash never holds a space, and one cell keeps one row per payment.
  ['txHashes', (s) => s.transfers.map((transfer) => transfer.txHash).join(' ')],
  ['metadata', (s) => (Object.keys(s.metadata).length ? JSON.stringify(s.metadata) : '')],
  // After the first columns, so a sheet that reads those by position reads them still.
  ['orderId', (s) => s.orderId],
  ['clientReference', (s) => s.clientReference],
  ['refundedAmount', (s) => s.refundedAmount],
  ['paidBlockchainId', (s) => s.paidBlockchainId],
  ['finalizedAt', (s) => s.finalizedAt],
];

/** A finished export (`paylink-payments-export`'s detail): the file's name, its CSV text (without the byte-order mark) and its row count. */
export interface PaymentsExportDetail {
  fileName: string;
  csv: string;
  count: number;
}

/** Items per request of an export: the most the API serves in one page. */
export const EXPORT_PAGE_SIZE = 100;

/**
 * What leads to a formula, past what spreadsheets skip: spaces, quotes and invisible characters
 * (zero-width spaces and joiners, word joiner, byte-order mark, soft hyphen, bidi marks), then a
 * character that starts a formula: in ASCII, the minus sign `−` (U+2212), and every character that
 * Unicode's compatibility normalization (NFKC, which a spreadsheet or an import may apply) turns into
 * one: fullwidth `＝ ＋ － ＠`, small `﹦ ﹢ ﹣ ﹫`, superscript and subscript `⁺ ⁻ ⁼ ₊ ₋ ₌`, `⩵ ⩶` and
 * Hebrew's alternative plus `﬩`.
 */
const LEADS_TO_FORMULA =
  '[\\s"\\u00ad\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff]*[=+\\-@\\t\\r\\u2212\\u207a-\\u207c\\u208a-\\u208c\\u2a75\\u2a76\\ufb29\\ufe62\\ufe63\\ufe66\\ufe6b\\uff0b\\uff0d\\uff1d\\uff20]';
/** A separator or line break inside a value, where a cell begins in some reading of the file. */
const SEPARATOR_BEFORE_FORMULA = new RegExp(`([,;\\t\\r\\n])(?=${LEADS_TO_FORMULA})`, 'g');
const FORMULA_AT_START = new RegExp(`^(?=${LEADS_TO_FORMULA})`);

/** A value defused against formula injection (see the module comment): a `'` wherever a cell could start with a formula. */
export function guardFormulas(value: string): string {
  const inside = value.replace(SEPARATOR_BEFORE_FORMULA, "$1'");
  return FORMULA_AT_START.test(inside) ? `'${inside}` : inside;
}

/** One CSV field: guarded against formula injection, then quoted. */
export function csvCell(value: string | null | undefined): string {
  return `"${guardFormulas(value ?? '').replaceAll('"', '""')}"`;
}

/** The CSV text of `sessions` (header row first, CRLF line ends, no byte-order mark). */
export function paymentsCsv(sessions: readonly CheckoutSessionRecord[]): string {
  const rows = [PAYMENT_CSV_COLUMNS.map(([name]) => csvCell(name)).join(',')];
  for (const session of sessions) rows.push(PAYMENT_CSV_COLUMNS.map(([, read]) => csvCell(read(session))).join(','));
  return `${rows.join('\r\n')}\r\n`;
}

/** `paylink-payments-2025-03-01.csv`, dated with the merchant's own day. */
export function exportFileName(now: Date = new Date()): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `paylink-payments-${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}.csv`;
}

/**
 * Fetches every session the filters `query` select, page by page, newest first. The list is held
 * still for the export: sessions created after it started would push rows onto the next page and
 * repeat them, so the end of the range is capped at the start time, and a row seen twice is kept once.
 */
export async function fetchAllPayments(
  host: Pick<AdminHost, 'api'>,
  query: Omit<ListSessionsParams, 'page' | 'limit'>,
  signal: AbortSignal,
  progress?: (fetched: number, total: number) => void,
  startedAt: Date = new Date(),
): Promise<CheckoutSessionRecord[]> {
  const end = query.endDate === undefined ? undefined : new Date(query.endDate);
  const endDate = end && !Number.isNaN(end.getTime()) && end < startedAt ? query.endDate : startedAt.toISOString();
  const seen = new Set<string>();
  const sessions: CheckoutSessionRecord[] = [];
  for (let page = 1; ; page++) {
    const answer = await host.api.sessions.list({ ...query, endDate, page, limit: EXPORT_PAGE_SIZE }, { signal });
    for (const session of answer.items) {
      if (seen.has(session.id)) continue;
      seen.add(session.id);
      sessions.push(session);
    }
    progress?.(sessions.length, answer.meta.totalItems);
    if (answer.items.length === 0 || page >= answer.meta.totalPages) return sessions;
  }
}

/** Saves `csv` as `fileName` through the browser's download (with a byte-order mark for Excel). */
export function downloadCsv(csv: string, fileName: string, root: Node): void {
  const url = URL.createObjectURL(new Blob(['\uFEFF', csv], { type: 'text/csv;charset=utf-8' }));
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = fileName;
  anchor.hidden = true;
  // Firefox clicks only anchors that are in a document.
  root.appendChild(anchor);
  anchor.click();
  anchor.remove();
  // The download reads the blob after this returns: the URL must outlive the click.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
