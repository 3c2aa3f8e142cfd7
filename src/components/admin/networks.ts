/**
 * The networks the service is configured with (`GET /withdrawal/networks`), as the payments views
 * need them: each network's block explorer, so that a transaction links to its page. The explorer is
 * the service's to say (`explorerUrl`, null on the sandbox chain, whose transactions exist nowhere
 * else): a payment on a network without one shows its hash and no link.
 *
 * The withdrawal form loads the same route for its own choices (`withdraw-form.ts`); it is left
 * standalone because the parity tests build it alone.
 */
import { isHttpUrl } from '../../core/rules/link.js';
import type { WithdrawalNetwork } from '../../core/schemas.js';
import type { AdminHost } from './admin-context.js';

/** The service's networks, loaded once per client, with their explorers. */
export class NetworkDirectory {
  /** The configured networks; undefined until the service answered. */
  networks: WithdrawalNetwork[] | undefined;
  private loading: Promise<void> | undefined;
  /** The client the networks were last asked through: new credentials ask again. */
  private askedWith: unknown;

  constructor(private readonly host: AdminHost) {}

  /** Loads the networks once per client (again after a failure, on the next call). */
  load(): Promise<void> {
    if (this.askedWith !== this.host.api) {
      this.askedWith = this.host.api;
      this.networks = undefined;
      this.loading = undefined;
    }
    if (this.networks) return Promise.resolve();
    this.loading ??= this.host.api.withdrawals
      .networks()
      .then(({ items }) => {
        this.networks = items;
        this.host.requestUpdate();
      })
      // Without them a transaction shows its hash without a link, which is never wrong.
      .catch(() => {})
      .finally(() => (this.loading = undefined));
    return this.loading;
  }

  /**
   * The explorer page of transaction `hash` on network `blockchainId`, or undefined when the network
   * has no explorer (the sandbox), is unknown, or names one that is not an http(s) address.
   */
  transactionUrl(blockchainId: string, hash: string): string | undefined {
    const explorer = this.networks?.find((network) => network.id === blockchainId)?.explorerUrl;
    if (!explorer || !isHttpUrl(explorer) || !/^0x[0-9a-fA-F]+$/.test(hash)) return undefined;
    return `${explorer.replace(/\/+$/, '')}/tx/${hash}`;
  }
}
