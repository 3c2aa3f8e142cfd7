/**
 * The calls `<paylink-checkout>` makes to the public checkout API, through the
 * merchant's proxy: the requests and answers of the client's `checkout` resource
 * (`client/checkout.ts`), without what only its other callers need (the schema parsers, an
 * injectable EventSource, error callbacks, credentials, a keyed transport) — 0.4 kB of the
 * element's 15 kB budget instead of 1.3 kB. Every failure is a `PaylinkError` with the server's
 * status, code, message and field errors (`network_error` when no answer came, `invalid_response`
 * for a body that is not the API's). DOM-free: it needs only `fetch` and, to stream, `EventSource`.
 */
import { PaylinkError } from '../../client/errors.js';
import type { CheckoutSession, StartSessionInput, VisitResult } from '../../core/schemas.js';

/**
 * The public checkout API as the element calls it. `path` names what is paid, URL-encoded: a link's
 * slug, or `orders/<id>` for an order.
 */
export interface CheckoutCalls {
  /**
   * The public view of a link (`PublicLink`) or an order (`PublicOrder`); any other read of the
   * public API under the same root, e.g. a fundraiser's donors (`<slug>/donors?limit=5`).
   */
  link<T>(path: string): Promise<T>;
  /** Counts one visit of a link; `visitId` (from a first count) makes a reload count once. */
  visit(path: string, visitId?: string | null): Promise<VisitResult>;
  start(path: string, input: StartSessionInput): Promise<CheckoutSession>;
  session(id: string): Promise<CheckoutSession>;
  /** Sandbox only: pays the whole session. */
  simulate(id: string): Promise<CheckoutSession>;
  /**
   * Calls `onUpdate` with the session on every change, over Server-Sent Events, or by polling
   * every 2 s when a custom `fetch` was given (an EventSource cannot go through it) or the stream
   * fails. Stops on a 404, when the signal aborts, or when the returned function is called (the
   * element calls it at a final status).
   */
  watch(id: string, onUpdate: (session: CheckoutSession) => void): () => void;
}

/** The calls to the API mounted at `base`, through `customFetch` (else the global fetch), all aborted by `signal`. */
export function checkoutCalls(base: string, customFetch: typeof fetch | undefined, signal: AbortSignal): CheckoutCalls {
  const root = `${base.replace(/\/+$/, '')}/checkout/`;
  const e = encodeURIComponent;

  /** One call. Every good answer has an `id` (a visit: a `visitId`; a list: `items`); a page served in the proxy's place has not. */
  async function call<T>(path: string, body?: object): Promise<T> {
    let response: Response;
    try {
      response = await (customFetch ?? fetch)(root + path, {
        method: body ? 'POST' : 'GET',
        signal,
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : null,
      });
    } catch (cause) {
      throw (cause as Error).name == 'AbortError' ? cause : new PaylinkError('Could not reach the Paylink API', 0, 'network_error');
    }
    const { status } = response;
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new PaylinkError(data.message, status, data.code ?? `http_${status}`, data.errors);
    if ((data.id ?? data.visitId ?? data.items) == null) throw new PaylinkError('Unexpected response', status, 'invalid_response');
    return data;
  }
  const session = (id: string) => call<CheckoutSession>(`sessions/${e(id)}`);

  return {
    link: call,
    visit: (path, visitId) => call(`${path}/visits`, { visitId: visitId ?? undefined }),
    start: (path, input) => call(`${path}/sessions`, input),
    session,
    simulate: (id) => call(`sessions/${e(id)}/simulate-payment`, {}),
    watch(id, onUpdate) {
      let stopped = false;
      let timer: ReturnType<typeof setTimeout>;
      let source: EventSource | undefined;
      const stop = () => {
        stopped = true;
        clearTimeout(timer);
        source?.close();
      };
      const deliver = (next: CheckoutSession) => stopped || onUpdate(next);
      const poll = async () => {
        try {
          deliver(await session(id));
        } catch (error) {
          if ((error as PaylinkError).status == 404) stop();
        }
        if (!stopped) timer = setTimeout(poll, 2000);
      };
      signal.addEventListener('abort', stop);
      if (customFetch) poll();
      else {
        source = new EventSource(`${root}sessions/${e(id)}/events`);
        source.addEventListener('status', (event) => deliver(JSON.parse((event as MessageEvent<string>).data)));
        // EventSource would retry on its own, silently; polling is predictable, so a failed stream hands over to it.
        source.onerror = () => {
          source!.close();
          if (!stopped) poll();
        };
      }
      return stop;
    },
  };
}
