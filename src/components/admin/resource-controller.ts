/**
 * The loading skeleton every view of the admin shares: load, abort what a newer load replaces,
 * drop out-of-order answers, hand a 401 to the host's sign-in, keep any other error as a message for
 * the view's error box, and retry. A view says only how to fetch and what to do with a fresh answer.
 *
 * `PagedResource` adds what every list needs on top: the page, its size, filters (a change starts
 * again at page 1, optionally after a typing pause), and stepping back when a filter leaves the
 * merchant past the last page. The links list and the withdrawal history use it today; a payments
 * list or a webhook delivery log is one more instance with its own filters (see `query` for an export).
 *
 * Boundary: no rendering and no texts here (the views and `templates.ts` own those); nothing about
 * particular routes (the views pass a `fetch`).
 */
import type { ReactiveController } from 'lit';
import type { PageMeta } from '../../core/schemas.js';
import { errorMessage, type AdminHost } from './admin-context.js';

/** How a load behaves. */
export interface LoadOptions {
  /**
   * A background refresh (a poll, a return to the tab): what is shown stays as it is until the
   * answer arrives, and a failure is not worth a banner (the next refresh tries again).
   */
  quiet?: boolean;
  /** The merchant asked for this (a page, a filter): the view may announce what is now shown. */
  announce?: boolean;
}

/** What a view tells its resource. */
export interface ResourceOptions<T> {
  /** Fetches the resource. `signal` aborts when a newer load starts or the host leaves the page. */
  fetch(signal: AbortSignal): Promise<T>;
  /**
   * Called with each answer that is still the latest, before it is shown. Return false to discard
   * it (e.g. a list that must reload another page instead).
   */
  received?(data: T, previous: T | undefined, options: LoadOptions): boolean | void;
  /** Called when a load fails with an error the host did not take (not for aborted loads). */
  failed?(error: unknown, options: LoadOptions): void;
}

/** One remote resource as a view shows it: `data`, `loading`, `error`, `load()`, `retry()`. */
export class ResourceController<T> implements ReactiveController {
  /** The last answer, kept while a newer one loads (no blank flash). */
  data: T | undefined;
  /** True while a load that is not quiet runs. */
  loading = false;
  /** A message for the view's error box, or ''. */
  error = '';
  private sequence = 0;
  private aborter: AbortController | undefined;

  constructor(
    protected readonly host: AdminHost,
    private readonly options: ResourceOptions<T>,
  ) {
    host.addController(this);
  }

  /**
   * Loads the resource, replacing any load in flight. Resolves once the answer is shown (or dropped);
   * never rejects: failures become `error` or the host's sign-in.
   */
  async load(options: LoadOptions = {}): Promise<void> {
    this.aborter?.abort();
    const aborter = (this.aborter = new AbortController());
    const sequence = ++this.sequence;
    if (!options.quiet) {
      this.loading = true;
      this.error = '';
      this.host.requestUpdate();
    }
    try {
      const data = await this.options.fetch(aborter.signal);
      if (sequence !== this.sequence) return;
      if (this.options.received?.(data, this.data, options) === false) return;
      this.data = data;
      this.error = '';
    } catch (error) {
      if (sequence !== this.sequence || aborter.signal.aborted) return;
      if (this.host.handleAuthError(error)) return;
      this.options.failed?.(error, options);
      if (!options.quiet) this.error = errorMessage(this.host.text, error);
    } finally {
      if (sequence === this.sequence) {
        this.loading = false;
        this.host.requestUpdate();
      }
    }
  }

  /** Loads again as the merchant asked (the error box's "Try again"). */
  retry(): Promise<void> {
    return this.load({ announce: true });
  }

  /** Shows `data` at once (a link just saved, a row just edited) and drops any load in flight. */
  set(data: T | undefined): void {
    this.abort();
    this.data = data;
    this.error = '';
    this.host.requestUpdate();
  }

  /** Stops the load in flight, if any; what is shown stays. */
  abort(): void {
    this.aborter?.abort();
    this.sequence++;
    if (this.loading) {
      this.loading = false;
      this.host.requestUpdate();
    }
  }

  hostDisconnected(): void {
    this.abort();
  }
}

/** A page of a list, as every list route of the service answers. */
export interface Page<Item> {
  items: Item[];
  meta: PageMeta;
}

/** The query of one page: the filters (empty ones left out) with `page` and `limit`. */
export type PageQuery<Filters> = Partial<Filters> & { page: number; limit: number };

/** What a list tells its resource. */
export interface PagedOptions<Item, Filters extends Record<string, string>> extends Omit<ResourceOptions<Page<Item>>, 'fetch'> {
  /** Items per page. */
  pageSize: number;
  /** Every filter with its empty value (''), which is also what "clear filters" restores. */
  filters: Filters;
  /** Fetches one page. */
  fetch(query: PageQuery<Filters>, signal: AbortSignal): Promise<Page<Item>>;
}

/** A paged, filtered list: `page`, `filters`, `goTo()`, `filter()`, on top of `ResourceController`. */
export class PagedResource<Item, Filters extends Record<string, string>> extends ResourceController<Page<Item>> {
  /** The page asked for (the answer's `meta.currentPage` is what is shown). */
  page = 1;
  /** Items per page. */
  pageSize: number;
  /** The filters as the merchant set them ('' for "any"). */
  filters: Filters;
  private readonly empty: Filters;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(host: AdminHost, options: PagedOptions<Item, Filters>) {
    const { received } = options;
    super(host, {
      fetch: (signal) => options.fetch(this.pageQuery(), signal),
      failed: options.failed,
      received: (data, previous, loadOptions) => {
        // A filter or a deletion can leave the merchant past the last page: show the last one there is.
        const { totalPages } = data.meta;
        if (data.items.length === 0 && this.page > 1 && totalPages >= 1 && this.page > totalPages) {
          this.page = totalPages;
          void this.load(loadOptions);
          return false;
        }
        return received?.(data, previous, loadOptions);
      },
    });
    this.pageSize = options.pageSize;
    this.empty = { ...options.filters };
    this.filters = { ...options.filters };
  }

  /** The filters that are set, without paging: what an export of the whole filtered list asks for. */
  get query(): Partial<Filters> {
    const query: Partial<Filters> = {};
    for (const [name, value] of Object.entries(this.filters) as [keyof Filters, string][]) {
      const trimmed = value.trim();
      if (trimmed) query[name] = trimmed as Filters[keyof Filters];
    }
    return query;
  }

  /** True while any filter is set (an empty list then says "no match", not "nothing yet"). */
  get filtered(): boolean {
    return Object.keys(this.query).length > 0;
  }

  /** The page shown and how many there are (at least 1). */
  get position(): { page: number; pages: number } {
    const meta = this.data?.meta;
    return { page: meta?.currentPage ?? this.page, pages: Math.max(meta?.totalPages ?? 1, 1) };
  }

  override load(options?: LoadOptions): Promise<void> {
    clearTimeout(this.timer);
    return super.load(options);
  }

  /** Shows page `page` of the same filters. */
  goTo(page: number): Promise<void> {
    this.page = page;
    return this.load({ announce: true });
  }

  /**
   * Changes filters and starts again at page 1: at once, or `delay` ms after the last change
   * (typing in a search box; the promise then settles at once). A load asked for in between
   * (Enter) replaces the delayed one.
   */
  filter(patch: Partial<Filters>, delay = 0): Promise<void> {
    this.filters = { ...this.filters, ...patch };
    clearTimeout(this.timer);
    if (delay > 0) {
      this.timer = setTimeout(() => {
        this.page = 1;
        void this.load({ announce: true });
      }, delay);
      this.host.requestUpdate();
      return Promise.resolve();
    }
    this.page = 1;
    return this.load({ announce: true });
  }

  /** Clears every filter. */
  clearFilters(): Promise<void> {
    return this.filter({ ...this.empty });
  }

  override hostDisconnected(): void {
    clearTimeout(this.timer);
    super.hostDisconnected();
  }

  private pageQuery(): PageQuery<Filters> {
    return { ...this.query, page: this.page, limit: this.pageSize };
  }
}
