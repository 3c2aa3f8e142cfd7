/**
 * One request's way through the proxy: the `Exchange` every guard reads and adds to, and the `Guard`
 * contract. A guard either answers (a refusal, a preflight) and so ends the request, or lets it through,
 * possibly leaving something for later: headers every answer carries (CORS), a body it read, a
 * cleanup for when the answer has settled (an event-stream slot).
 *
 * Boundary: the place new protections of one request plug in (stream caps, stricter limits per route):
 * write a guard, add it to the chain `proxy.ts` builds from the route table. Guards never forward; the
 * forwarder never refuses. (Limits on connections act earlier, in the Node server: `server/limits/`.)
 */
import type { ProxyIncoming, ProxyOutgoing, ProxyRequestInfo } from './messages.js';
import type { ProxyArea, ProxyRoute } from './routes.js';

/** A refusal (or a complete answer such as a preflight), or `undefined` to let the request through. */
export type GuardVerdict = ProxyOutgoing | undefined;

/** One check of the chain. Synchronous where it can be (most are): the chain awaits only promises. */
export type Guard = (exchange: Exchange) => GuardVerdict | Promise<GuardVerdict>;

/** Resolves the key a client is counted under (rate limit, stream caps); `undefined` when it can't be told apart. */
export type ClientKeyResolver = (incoming: ProxyIncoming, info: ProxyRequestInfo | undefined) => string | undefined;

/** The state of one request between guards. */
export class Exchange {
  readonly incoming: ProxyIncoming;
  readonly info: ProxyRequestInfo | undefined;
  readonly area: ProxyArea;
  /** The path below the area's prefix (`''` or `/…`). */
  readonly rest: string;
  /** Set by the route guard. */
  route: ProxyRoute | undefined;
  /** Headers every answer to this request carries, refusals included (CORS, so a page can read a 429). */
  answerHeaders: Readonly<Record<string, string>> | undefined;
  /** The request body, once the body guard has read and checked it. */
  body: Uint8Array | undefined;
  /** The request's id (`X-Request-Id`, `server/log.ts`): answered, forwarded upstream, and on its log lines. */
  requestId = '';
  private cleanups: (() => void)[] | undefined;
  private readonly resolveClientKey: ClientKeyResolver;
  private clientKeyResolved = false;
  private clientKeyValue: string | undefined;

  constructor(incoming: ProxyIncoming, info: ProxyRequestInfo | undefined, area: ProxyArea, rest: string, clientKey: ClientKeyResolver) {
    this.incoming = incoming;
    this.info = info;
    this.area = area;
    this.rest = rest;
    this.resolveClientKey = clientKey;
  }

  /** The client's key (resolved once per request). */
  clientKey(): string | undefined {
    if (!this.clientKeyResolved) {
      this.clientKeyResolved = true;
      this.clientKeyValue = this.resolveClientKey(this.incoming, this.info);
    }
    return this.clientKeyValue;
  }

  /** Runs `cleanup` once the answer has settled: at once for bytes, when a stream ends, fails or its client goes. */
  onSettled(cleanup: () => void): void {
    (this.cleanups ??= []).push(cleanup);
  }

  /** Whether anything waits for the answer to settle. */
  get holdsResources(): boolean {
    return this.cleanups !== undefined;
  }

  /** Runs the cleanups (once). */
  settle(): void {
    const cleanups = this.cleanups;
    this.cleanups = undefined;
    if (cleanups) for (const cleanup of cleanups) cleanup();
  }
}

/**
 * Runs `guards` in order; the first verdict ends the chain. Synchronous until a guard answers with a
 * promise, so a chain of synchronous guards costs no await.
 */
export function runGuards(guards: readonly Guard[], exchange: Exchange, from = 0): GuardVerdict | Promise<GuardVerdict> {
  for (let i = from; i < guards.length; i++) {
    const verdict = guards[i]!(exchange);
    if (verdict instanceof Promise) return verdict.then((settled) => settled ?? runGuards(guards, exchange, i + 1));
    if (verdict) return verdict;
  }
  return undefined;
}
