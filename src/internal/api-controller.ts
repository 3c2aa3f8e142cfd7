/**
 * Owns an element's traffic with the Paylink API: the checkout client for the host's `apiBase`
 * and injected `fetch`; aborts requests and stops following a session when the host leaves the
 * page, so no response lands on a detached element.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { createCheckoutApi, createPublicTransport, type CheckoutApi, type CheckoutSession } from '../client/checkout.js';

export interface ApiHost extends ReactiveControllerHost {
  apiBase: string;
  fetch?: typeof fetch | undefined;
}

export class ApiController implements ReactiveController {
  /** Aborted when the host is disconnected; pass it to every request. */
  signal!: AbortSignal;
  private aborter?: AbortController;
  private stopWatching?: () => void;

  constructor(private readonly host: ApiHost) {
    host.addController(this);
    this.hostConnected();
  }

  /** The checkout resource for the host's current `apiBase` and `fetch` (cheap to build). */
  get checkout(): CheckoutApi {
    return createCheckoutApi(createPublicTransport(this.host.apiBase, this.host.fetch));
  }

  /** Follows one session's status (replacing any session followed before). */
  watch(id: string, onUpdate: (session: CheckoutSession) => void): void {
    this.unwatch();
    this.stopWatching = this.checkout.watchSession(id, onUpdate, { signal: this.signal });
  }

  unwatch(): void {
    this.stopWatching?.();
  }

  hostConnected(): void {
    if (!this.aborter || this.signal.aborted) this.signal = (this.aborter = new AbortController()).signal;
  }

  hostDisconnected(): void {
    this.aborter!.abort();
  }
}
