/**
 * The admin's loading skeleton on its own: `ResourceController` and `PagedResource` on a bare host,
 * with requests the test answers by hand (so the order of answers is the test's to choose).
 */
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { LitElement } from 'lit';
import { PaylinkAuthError, PaylinkServerError } from '../../src/client/errors.js';
import type { PaylinkClient } from '../../src/client/index.js';
import { AdminText, needsSignIn, type AdminHost } from '../../src/components/admin/admin-context.js';
import { PagedResource, ResourceController, type Page, type PageQuery } from '../../src/components/admin/resource-controller.js';

/** A bare host: records what the controllers ask of it. */
class TestHost extends LitElement implements AdminHost {
  readonly text = new AdminText('en');
  readonly pollInterval = 1000;
  readonly api = {} as PaylinkClient;
  signIns: unknown[] = [];
  announce(): void {}
  focusAfterRender(): void {}
  handleAuthError(error: unknown): boolean {
    if (!needsSignIn(error)) return false;
    this.signIns.push(error);
    return true;
  }
}
customElements.define('admin-resource-test-host', TestHost);

/** A request the test answers when it likes. */
interface Pending<T> {
  signal: AbortSignal;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferredFetch<T>() {
  const calls: Pending<T>[] = [];
  const fetch = (signal: AbortSignal) =>
    new Promise<T>((resolve, reject) => {
      calls.push({ signal, resolve, reject });
      signal.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')));
    });
  return { calls, fetch };
}

describe('ResourceController', () => {
  let host: TestHost;
  beforeEach(async () => {
    host = await fixture<TestHost>(html`<admin-resource-test-host></admin-resource-test-host>`);
  });

  it('drops an answer that a newer load replaced, and aborts its request', async () => {
    const { calls, fetch } = deferredFetch<string>();
    const resource = new ResourceController(host, { fetch });
    const first = resource.load();
    const second = resource.load();
    expect(calls[0]!.signal.aborted, 'the old request is aborted').to.equal(true);
    calls[1]!.resolve('new');
    await second;
    calls[0]!.resolve('old');
    await first;
    expect(resource.data).to.equal('new');
    expect(resource.loading).to.equal(false);
    expect(resource.error).to.equal('');
  });

  it('keeps a failure as a message, keeps what was shown, and clears it on a successful retry', async () => {
    const { calls, fetch } = deferredFetch<string>();
    const resource = new ResourceController(host, { fetch });
    let loading = resource.load();
    calls[0]!.resolve('first');
    await loading;
    loading = resource.load();
    calls[1]!.reject(new PaylinkServerError('The service is down for maintenance', 503, 'unavailable'));
    await loading;
    expect(resource.error).to.equal('The service is down for maintenance');
    expect(resource.data, 'what was shown stays').to.equal('first');
    loading = resource.retry();
    expect(resource.error, 'cleared while trying again').to.equal('');
    calls[2]!.resolve('second');
    await loading;
    expect(resource.data).to.equal('second');
    expect(resource.error).to.equal('');
  });

  it('hands a sign-in error to the host instead of showing it', async () => {
    const { calls, fetch } = deferredFetch<string>();
    const resource = new ResourceController(host, { fetch });
    const loading = resource.load();
    const error = new PaylinkAuthError('Sign in', 401, 'unauthorized');
    calls[0]!.reject(error);
    await loading;
    expect(host.signIns).to.deep.equal([error]);
    expect(resource.error).to.equal('');
  });

  it('shows a cross-site refusal as the view’s error, not as a sign-in', async () => {
    const { calls, fetch } = deferredFetch<string>();
    const resource = new ResourceController(host, { fetch });
    const loading = resource.load();
    calls[0]!.reject(new PaylinkAuthError('Cross-site write refused', 403, 'cross_site_request'));
    await loading;
    expect(host.signIns).to.deep.equal([]);
    expect(resource.error).to.equal('Cross-site write refused');
  });

  it('keeps a quiet refresh quiet: no loading state, no banner on failure', async () => {
    const { calls, fetch } = deferredFetch<string>();
    const resource = new ResourceController(host, { fetch });
    let loading = resource.load({ quiet: true });
    expect(resource.loading).to.equal(false);
    calls[0]!.reject(new PaylinkServerError('Bad gateway', 502, 'bad_gateway'));
    await loading;
    expect(resource.error).to.equal('');
    loading = resource.load({ quiet: true });
    calls[1]!.resolve('fresh');
    await loading;
    expect(resource.data).to.equal('fresh');
  });

  it('shows a value set by code at once and drops the load in flight', async () => {
    const { calls, fetch } = deferredFetch<string>();
    const resource = new ResourceController(host, { fetch });
    const loading = resource.load();
    resource.set('saved');
    expect(calls[0]!.signal.aborted).to.equal(true);
    expect(resource.loading).to.equal(false);
    await loading;
    expect(resource.data).to.equal('saved');
  });

  it('aborts its request when the host leaves the page', async () => {
    const { calls, fetch } = deferredFetch<string>();
    const resource = new ResourceController(host, { fetch });
    void resource.load();
    host.remove();
    expect(calls[0]!.signal.aborted).to.equal(true);
  });
});

describe('PagedResource', () => {
  type Filters = { status: string; q: string };
  let host: TestHost;
  let queries: PageQuery<Filters>[];
  let total: number;

  function pageOf(query: PageQuery<Filters>): Page<number> {
    const all = Array.from({ length: total }, (_, index) => index + 1);
    const items = all.slice((query.page - 1) * query.limit, query.page * query.limit);
    const totalPages = Math.ceil(total / query.limit);
    return { items, meta: { totalItems: total, itemCount: items.length, itemsPerPage: query.limit, totalPages, currentPage: query.page } };
  }

  function list() {
    return new PagedResource<number, Filters>(host, {
      pageSize: 10,
      filters: { status: '', q: '' },
      fetch: async (query) => {
        queries.push(query);
        return pageOf(query);
      },
    });
  }

  beforeEach(async () => {
    host = await fixture<TestHost>(html`<admin-resource-test-host></admin-resource-test-host>`);
    queries = [];
    total = 35;
  });

  it('sends only the filters that are set, with the page and its size', async () => {
    const resource = list();
    await resource.load();
    expect(queries.at(-1)).to.deep.equal({ page: 1, limit: 10 });
    await resource.goTo(3);
    await resource.filter({ status: 'paid', q: '  order 1042 ' });
    expect(queries.at(-1), 'a filter starts again at page 1; text is trimmed').to.deep.equal({ status: 'paid', q: 'order 1042', page: 1, limit: 10 });
    expect(resource.filtered).to.equal(true);
    expect(resource.query, 'what an export asks for').to.deep.equal({ status: 'paid', q: 'order 1042' });
    await resource.clearFilters();
    expect(queries.at(-1)).to.deep.equal({ page: 1, limit: 10 });
    expect(resource.filtered).to.equal(false);
  });

  it('steps back to the last page when the page asked for no longer exists', async () => {
    const resource = list();
    await resource.goTo(4);
    expect(resource.position).to.deep.equal({ page: 4, pages: 4 });
    total = 12;
    await resource.load();
    await waitUntil(() => resource.position.page === 2, 'the last page shown');
    expect(queries.map((query) => query.page).slice(-2)).to.deep.equal([4, 2]);
    expect(resource.position).to.deep.equal({ page: 2, pages: 2 });
    expect(resource.data!.items).to.deep.equal([11, 12]);
  });

  it('waits for a pause in typing, and a load asked for in between replaces the wait', async () => {
    const resource = list();
    await resource.load();
    void resource.filter({ q: 'te' }, 40);
    void resource.filter({ q: 'tea' }, 40);
    expect(queries).to.have.length(1);
    await waitUntil(() => queries.length === 2, 'the request after the pause');
    expect(queries.map((query) => query.q)).to.deep.equal([undefined, 'tea']);
    void resource.filter({ q: 'coffee' }, 40);
    await resource.load();
    // Time must pass: the pause's timer is what is tested. A timer of the same 40 ms set after it runs after
    // it, so by then a wait the load did not replace would have sent its request.
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(
      queries.map((query) => query.q),
      'one request for "coffee"',
    ).to.deep.equal([undefined, 'tea', 'coffee']);
  });
});
