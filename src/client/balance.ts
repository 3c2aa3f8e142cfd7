/** `client.balance`: what the integrator holds per asset (`GET /balance`). */
import { Balance } from '../core/schemas.js';
import type { RequestOptions, Transport } from './http.js';

export interface BalanceResource {
  /**
   * The balance of every asset: `{ items: [{ assetId, available, pending }] }`, amounts as decimal strings.
   * Takes no parameters: call `get()`, `get(options)` or `get({}, options)`.
   */
  get(paramsOrOptions?: Record<string, never> | RequestOptions, options?: RequestOptions): Promise<Balance>;
}

export function createBalanceResource(transport: Transport): BalanceResource {
  return {
    get: (paramsOrOptions, options) =>
      transport.request('GET', '/balance', (data) => Balance.parse(data), options ?? (paramsOrOptions as RequestOptions | undefined) ?? {}),
  };
}
