/**
 * Who the client is, for per-client limits (rate limit, event-stream cap): the merchant's `clientKey`,
 * else the trusted `X-Forwarded-For` hop (`trustProxy`), else the socket address the adapter passed.
 *
 * Boundary: the one place the proxy decides client identity; issue 15's per-client caps count by it.
 */
import type { ClientKeyResolver } from './exchange.js';
import type { ProxyRequestInfo } from './messages.js';

/** The options that decide client identity (see `PaylinkProxyOptions`). */
export interface ClientKeyOptions {
  trustProxy?: boolean | number | undefined;
  clientKey?: ((request: Request, info: ProxyRequestInfo | undefined) => string | undefined) | undefined;
  /** Where the one warning about a runtime without client addresses goes. Default `console.warn`. */
  warn?: ((message: string) => void) | undefined;
}

/**
 * The resolver. When no key can be found (no `clientKey`, no `clientIp`, no `incoming`), the request is
 * neither rate-limited nor counted, and the proxy warns once: one shared bucket would throttle every
 * customer at once.
 */
export function createClientKeyResolver(options: ClientKeyOptions): ClientKeyResolver {
  const custom = options.clientKey;
  const hops = options.trustProxy ? (options.trustProxy === true ? 1 : Math.max(1, Math.floor(options.trustProxy))) : 0;
  const warn = options.warn ?? ((message: string) => console.warn(message));
  let warned = false;

  return (incoming, info) => {
    let key: string | undefined = custom?.(incoming.request(), info) || undefined;
    if (key === undefined && hops > 0) {
      const chain = (incoming.header('x-forwarded-for') ?? '')
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean);
      key = chain[Math.max(0, chain.length - hops)];
    }
    key ??= info?.clientIp || info?.incoming?.socket?.remoteAddress || undefined;
    if (key === undefined && !warned) {
      warned = true;
      warn(
        'paylink proxy: no client address for this request, so it is not rate-limited. In this runtime, pass ' +
          '{ clientIp } as the second argument or set the clientKey option (or trustProxy behind your own load balancer).',
      );
    }
    return key;
  };
}
