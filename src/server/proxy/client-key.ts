/**
 * Who the client is, for per-client limits (rate limit, event-stream caps): the merchant's `clientKey`,
 * else the socket address the adapter passed, or the `X-Forwarded-For` entry `trustProxy` believes
 * (`server/limits/client-address.ts`, the service's rules too).
 *
 * Boundary: the one place the proxy decides client identity; every per-client cap counts by it, and
 * the forwarder tells the service the same client (`X-Forwarded-For`).
 */
import { createClientAddressResolver, type TrustProxy } from '../limits/client-address.js';
import { defaultLogger, type Logger } from '../log.js';
import type { ClientKeyResolver } from './exchange.js';
import type { ProxyRequestInfo } from './messages.js';

/** The options that decide client identity (see `PaylinkProxyOptions`). */
export interface ClientKeyOptions {
  trustProxy?: TrustProxy;
  clientKey?: ((request: Request, info: ProxyRequestInfo | undefined) => string | undefined) | undefined;
  /** Where the one warning about a runtime without client addresses goes. Default: `logger` (`client_address_unknown`). */
  warn?: ((message: string) => void) | undefined;
  /** The proxy's logger (default stderr). */
  logger?: Logger | undefined;
}

/**
 * The resolver. When no key can be found (no `clientKey`, no `clientIp`, no `incoming`), the request is
 * not rate-limited and its event streams count in the total only, and the proxy warns once: one shared
 * bucket would throttle every customer at once.
 */
export function createClientKeyResolver(options: ClientKeyOptions): ClientKeyResolver {
  const custom = options.clientKey;
  const address = createClientAddressResolver(options.trustProxy);
  const warn = options.warn ?? ((message: string) => (options.logger ?? defaultLogger).warn('client_address_unknown', message));
  let warned = false;

  return (incoming, info) => {
    let key: string | undefined = custom?.(incoming.request(), info) || undefined;
    if (key === undefined) {
      const peer = info?.clientIp || info?.incoming?.socket?.remoteAddress || undefined;
      key = address(peer, address.trusting ? incoming.header('x-forwarded-for') : null);
    }
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
