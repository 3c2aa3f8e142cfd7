/**
 * The blocks the admin's views repeat: the error box (a reason, and "Try again" where trying again
 * can help), "Loading…", the "← Back" button of a detail, the paged table (a `PagedResource` shown as a table with its loading, empty and error
 * states and its pagination) and a list's filters (a select, a range of days, a reference, "Clear
 * filters"). Their styles are beside them in `templates.styles.ts`.
 *
 * The table is declared by its columns, so that a new list (payments, webhook deliveries) says only
 * what each column shows. Under 600 px each row becomes a stacked card: every cell shows its
 * column's label beside its value. The label is `aria-hidden`: screen readers hear the column
 * header, since the table keeps its semantics (the roles are explicit because some browsers drop a
 * table's roles once CSS changes its `display`).
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { AdminHost, AdminKey, AdminText } from './admin-context.js';
import type { LoadOptions, Page, PagedResource } from './resource-controller.js';

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

/** "Loading…" where a view's content will be. */
export function loadingPlaceholder(text: AdminText): TemplateResult {
  return html`<p part="loading" class="placeholder">${text.t('loading')}</p>`;
}

/** The "← Back to …" button above a detail or a second list. */
export function backButton(label: string, back: () => unknown): TemplateResult {
  return html`<button type="button" part="button back" class="ghost" @click=${back}><span aria-hidden="true">←</span> ${label}</button>`;
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
  host: AdminHost;
  /** The list to show. */
  list: PagedResource<Item, Record<string, string>>;
  /** The table's caption and the name of its scrolling region (the list's heading, as a rule). */
  label: string;
  /** The table's part (`links-table`) and each row's (`link-row`). */
  part: string;
  rowPart: string;
  columns: readonly TableColumn<Item>[];
  /** What an empty list says, without and with filters set (defaults to `empty`). */
  empty: string;
  emptyFiltered?: string;
  /** More parts of the pagination (`history-pagination`). */
  paginationPart?: string;
  /** The pagination's accessible name (defaults to "<label> – Pagination"). */
  paginationLabel?: string;
  /** The texts of the total beside "Page 2 of 3": one item, and `{count}` items. */
  counts?: readonly [one: AdminKey, many: AdminKey];
  /** What takes focus once the merchant moved to another page (the list's heading: `#links-heading`). */
  heading: string;
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
  const { host, list, columns, label, counts } = options;
  const text = host.text;
  const t = text.t.bind(text);
  const data = list.data;
  const { page, pages } = list.position;
  const pageOf = t('pageOf', { page, pages });
  const state =
    !data && list.loading
      ? loadingPlaceholder(text)
      : data && data.items.length === 0
        ? html`<p part="empty" class="placeholder">${list.filtered ? (options.emptyFiltered ?? options.empty) : options.empty}</p>`
        : data
          ? table(data.items, columns, label, options.part, options.rowPart)
          : nothing;
  const total = (count: number, [one, many]: readonly [AdminKey, AdminKey]) => (count === 1 ? t(one) : t(many, { count: text.count(count) }));
  const go = (target: number) => {
    void list.goTo(target);
    host.focusAfterRender(options.heading);
  };
  return html`${errorBox(text, list.error, { retry: () => list.retry() })}
    <!-- Focusable so that keyboard users can scroll a wide table sideways. -->
    <div class="table-wrap" role="region" tabindex="0" aria-label="${label}, ${pageOf}" aria-busy=${list.loading ? 'true' : 'false'}>
      ${state}
    </div>
    ${
      data && data.meta.totalItems > 0
        ? html`<nav part="pagination ${options.paginationPart ?? ''}" class="pagination" aria-label=${options.paginationLabel ?? `${label} – ${t('pagination')}`}>
          <button type="button" part="button previous-page" ?disabled=${page <= 1 || list.loading} @click=${() => go(page - 1)}>${t('previous')}</button>
          <span part="page-info">${counts ? html`${pageOf} · ${total(data.meta.totalItems, counts)}` : pageOf}</span>
          <button type="button" part="button next-page" ?disabled=${page >= pages || list.loading} @click=${() => go(page + 1)}>${t('next')}</button>
        </nav>`
        : nothing
    }`;
}

/**
 * The `received` of a list that says which page it now shows when the merchant asked for it (a page,
 * a filter): `key` is its message (`listLoaded`: "Page {page} of {pages}, {count} links.").
 */
export function announcePage(host: AdminHost, key: AdminKey): (data: Page<unknown>, previous: unknown, options: LoadOptions) => void {
  return ({ meta }, _previous, { announce }) => {
    if (announce) host.announce(host.text.t(key, { page: meta.currentPage, pages: Math.max(meta.totalPages, 1), count: meta.totalItems }));
  };
}

/** One choice of a list's select filter: its value and its label. */
export type FilterChoice = readonly [value: string, label: string];

/**
 * A list's select filter: `name` of `list`'s filters, '' being `any` ("All statuses"); the list is
 * filtered as soon as another choice is made. `id` names the select for its label.
 */
export function selectFilter<Filters extends Record<string, string>>(
  list: PagedResource<unknown, Filters>,
  name: keyof Filters & string,
  field: { id: string; part: string; label: string; any: string; choices: readonly FilterChoice[]; class?: string },
): TemplateResult {
  const value = list.filters[name];
  return html`<div class=${field.class ?? 'field'}>
    <label for=${field.id}>${field.label}</label>
    <select id=${field.id} part=${field.part} @change=${(event: Event) => void list.filter({ [name]: (event.target as HTMLSelectElement).value } as Partial<Filters>)}>
      ${[['', field.any] as const, ...field.choices].map(([choice, label]) => html`<option value=${choice} ?selected=${value === choice}>${label}</option>`)}
    </select>
  </div>`;
}

/**
 * A list's range of days (`fromDate`, `toDate`: `YYYY-MM-DD` in the merchant's time zone), each
 * bounding the other; `ids` and `parts` name the two inputs.
 */
export function dayRangeFilter(
  text: AdminText,
  list: PagedResource<unknown, { fromDate: string; toDate: string }>,
  ids: readonly [from: string, to: string],
  parts: readonly [from: string, to: string],
): TemplateResult {
  const { fromDate, toDate } = list.filters;
  const change = (name: 'fromDate' | 'toDate') => (event: Event) => void list.filter({ [name]: (event.target as HTMLInputElement).value });
  return html`<div class="field">
      <label for=${ids[0]}>${text.t('fromDate')}</label>
      <input id=${ids[0]} part=${parts[0]} type="date" .value=${fromDate} max=${toDate || nothing} @change=${change('fromDate')} />
    </div>
    <div class="field">
      <label for=${ids[1]}>${text.t('toDate')}</label>
      <input id=${ids[1]} part=${parts[1]} type="date" .value=${toDate} min=${fromDate || nothing} @change=${change('toDate')} />
    </div>`;
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
export function clearFiltersButton(
  text: AdminText,
  list: Pick<PagedResource<unknown, Record<string, string>>, 'filtered' | 'clearFilters'>,
): TemplateResult | typeof nothing {
  return list.filtered
    ? html`<button type="button" part="button clear-filters" class="ghost" @click=${() => list.clearFilters()}>${text.t('clearFilters')}</button>`
    : nothing;
}
