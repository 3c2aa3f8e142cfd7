/**
 * The two blocks the admin's views repeat: the error box (a reason, and "Try again" where trying
 * again can help) and the paged table (a `PagedResource` shown as a table with its loading, empty and
 * error states and its pagination). Their styles are beside them in `templates.styles.ts`.
 *
 * The table is declared by its columns, so that a new list (payments, webhook deliveries) says only
 * what each column shows. Under 600 px each row becomes a stacked card: every cell shows its
 * column's label beside its value. The label is `aria-hidden`: screen readers hear the column
 * header, since the table keeps its semantics (the roles are explicit because some browsers drop a
 * table's roles once CSS changes its `display`).
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { PageMeta } from '../../core/schemas.js';
import type { AdminText } from './admin-context.js';
import type { PagedResource } from './resource-controller.js';

/** Options of `errorBox`. */
export interface ErrorBoxOptions {
  /** Shows a "Try again" button that calls this. */
  retry?: () => unknown;
  /** A second line under the reason (e.g. that retrying is safe). */
  hint?: string;
  /** The box's part: `error` (a view's load) by default, `form-error` under a form. */
  part?: string;
}

/** The box that says why something failed, as an alert; nothing when `message` is ''. */
export function errorBox(text: AdminText, message: string, options: ErrorBoxOptions = {}): TemplateResult | typeof nothing {
  if (!message) return nothing;
  const { retry, hint, part = 'error' } = options;
  return html`<div part=${part} class="error-box" role="alert">
    <div>
      <p>${message}</p>
      ${hint ? html`<p class="hint">${hint}</p>` : nothing}
    </div>
    ${retry ? html`<button type="button" part="button retry" @click=${retry}>${text.t('tryAgain')}</button>` : nothing}
  </div>`;
}

/** One column of a paged table. */
export interface TableColumn<Item> {
  /** The column header, and the label beside each value when rows are stacked. */
  label: string;
  /** For a column that needs no visible header (the actions): read by screen readers only, no label when stacked. */
  labelHidden?: boolean;
  /** The cell that names its row (`<th scope="row">`); rows may have one. */
  rowHeader?: boolean;
  /** Classes of the header and the cells (`num`: right-aligned tabular digits). */
  class?: string;
  /** The cell's content. */
  cell(item: Item): unknown;
}

/** What `pagedTable` shows. */
export interface PagedTableOptions<Item> {
  text: AdminText;
  /** The list to show. */
  list: PagedResource<Item, Record<string, string>>;
  /** The table's caption and the name of its scrolling region. */
  label: string;
  /** The table's part (`links-table`) and each row's (`link-row`). */
  part: string;
  rowPart: string;
  columns: readonly TableColumn<Item>[];
  /** What an empty list says, without and with filters set. */
  empty: string;
  emptyFiltered: string;
  /** More parts of the pagination (`history-pagination`) and its accessible name. */
  paginationPart?: string;
  paginationLabel: string;
  /** The text between "Previous" and "Next" (defaults to "Page 2 of 3"). */
  pageInfo?(meta: PageMeta, position: { page: number; pages: number }): unknown;
  /** Called after the merchant moved to `page` (e.g. to move focus back to the heading). */
  paged?(page: number): void;
}

function row<Item>(item: Item, columns: readonly TableColumn<Item>[], rowPart: string): TemplateResult {
  return html`<tr role="row" part=${rowPart}>
    ${columns.map((column) => {
      const label = column.labelHidden ? nothing : html`<span part="cell-label" class="cell-label" aria-hidden="true">${column.label}</span>`;
      const content = html`${label}<div class="cell-value">${column.cell(item)}</div>`;
      return column.rowHeader
        ? html`<th scope="row" role="rowheader" class=${column.class ?? nothing}>${content}</th>`
        : html`<td role="cell" class=${column.class ?? nothing}>${content}</td>`;
    })}
  </tr>`;
}

/** The table of `items`, its caption `label` (for screen readers) and its column headers. */
function table<Item>(items: readonly Item[], columns: readonly TableColumn<Item>[], label: string, part: string, rowPart: string): TemplateResult {
  return html`<table role="table" part=${part}>
    <caption class="visually-hidden">${label}</caption>
    <thead role="rowgroup">
      <tr role="row">
        ${columns.map(
          (column) =>
            html`<th scope="col" role="columnheader" class=${column.class ?? nothing}>
              ${column.labelHidden ? html`<span class="visually-hidden">${column.label}</span>` : column.label}
            </th>`,
        )}
      </tr>
    </thead>
    <tbody role="rowgroup">
      ${items.map((item) => row(item, columns, rowPart))}
    </tbody>
  </table>`;
}

/** What `itemsTable` shows: a short list that needs no paging (a payment's transactions). */
export interface ItemsTableOptions<Item> {
  items: readonly Item[];
  /** The table's caption and the name of its scrolling region. */
  label: string;
  part: string;
  rowPart: string;
  columns: readonly TableColumn<Item>[];
}

/** A list shown whole as a table, with the paged table's looks and its stacked rows under 600 px. */
export function itemsTable<Item>(options: ItemsTableOptions<Item>): TemplateResult {
  return html`<div class="table-wrap" role="region" tabindex="0" aria-label=${options.label}>
    ${table(options.items, options.columns, options.label, options.part, options.rowPart)}
  </div>`;
}

/** A paged list as a table, with its error box, loading and empty states, and pagination. */
export function pagedTable<Item>(options: PagedTableOptions<Item>): TemplateResult {
  const { text, list, columns, label } = options;
  const t = text.t.bind(text);
  const data = list.data;
  const { page, pages } = list.position;
  const state =
    !data && list.loading
      ? html`<p part="loading" class="placeholder">${t('loading')}</p>`
      : data && data.items.length === 0
        ? html`<p part="empty" class="placeholder">${list.filtered ? options.emptyFiltered : options.empty}</p>`
        : data
          ? table(data.items, columns, label, options.part, options.rowPart)
          : nothing;
  const go = (target: number) => {
    void list.goTo(target);
    options.paged?.(target);
  };
  return html`${errorBox(text, list.error, { retry: () => list.retry() })}
    <!-- Focusable so that keyboard users can scroll a wide table sideways. -->
    <div class="table-wrap" role="region" tabindex="0" aria-label="${label}, ${t('pageOf', { page, pages })}" aria-busy=${list.loading ? 'true' : 'false'}>
      ${state}
    </div>
    ${data && data.meta.totalItems > 0
      ? html`<nav part="pagination ${options.paginationPart ?? ''}" class="pagination" aria-label=${options.paginationLabel}>
          <button type="button" part="button previous-page" ?disabled=${page <= 1 || list.loading} @click=${() => go(page - 1)}>${t('previous')}</button>
          <span part="page-info">${options.pageInfo ? options.pageInfo(data.meta, { page, pages }) : t('pageOf', { page, pages })}</span>
          <button type="button" part="button next-page" ?disabled=${page >= pages || list.loading} @click=${() => go(page + 1)}>${t('next')}</button>
        </nav>`
      : nothing}`;
}

/** How long the reference filter waits after the last key before it asks (one request per pause, not per key). */
const REFERENCE_PAUSE_MS = 300;

/**
 * A list's exact-reference filter (the merchant's order id): a search field that filters `list` once
 * typing pauses. `id` names the input for its label; `part` is its part name.
 */
export function referenceFilter(text: AdminText, list: PagedResource<unknown, { reference: string }>, id: string, part: string): TemplateResult {
  return html`<div class="field reference-field">
    <label for=${id}>${text.t('reference')}</label>
    <input id=${id} part=${part} type="search" autocomplete="off" spellcheck="false" .value=${list.filters.reference}
      placeholder=${text.t('referencePlaceholder')}
      @input=${(event: Event) => void list.filter({ reference: (event.target as HTMLInputElement).value }, REFERENCE_PAUSE_MS)} />
  </div>`;
}

/** "Clear filters", shown only while a filter of `list` is set. */
export function clearFiltersButton(text: AdminText, list: Pick<PagedResource<unknown, Record<string, string>>, 'filtered' | 'clearFilters'>): TemplateResult | typeof nothing {
  return list.filtered
    ? html`<button type="button" part="button clear-filters" class="ghost" @click=${() => list.clearFilters()}>${text.t('clearFilters')}</button>`
    : nothing;
}
