/** `client.rates`: the exchange rates as they stand (`GET /rates`). */
import { RatesView } from '../core/schemas.js';
import type { RequestOptions, Transport } from './http.js';

export interface RatesResource {
  /**
   * Per code against the US dollar (`USD/NGN`, `USDT/USD`): the value quoted now or why not, the
   * sources' spread and each source's latest value; and every pair a session may be priced in.
   * Takes no parameters: call `get()`, `get(options)` or `get({}, options)`.
   */
  get(paramsOrOptions?: Record<string, never> | RequestOptions, options?: RequestOptions): Promise<RatesView>;
}

export function createRatesResource(transport: Transport): RatesResource {
  return {
    get: (paramsOrOptions, options) =>
      transport.request('GET', '/rates', (data) => RatesView.parse(data), options ?? (paramsOrOptions as RequestOptions | undefined) ?? {}),
  };
}
