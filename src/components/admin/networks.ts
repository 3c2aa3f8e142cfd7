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

/** Chain ids of local development nodes (anvil and Hardhat: 31337; Ganache and geth --dev: 1337): test chains by convention. */
export const LOCAL_TEST_CHAIN_IDS: ReadonlySet<number> = new Set([31337, 1337]);

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
   * Why a payment on `blockchainId` has no explorer page, as a translation key and the network's chain
   * id, from what the service reports of the network: no chain id is the sandbox (nothing happened on
   * any chain), a development chain id (anvil's, Hardhat's, Ganache's) is a local test chain, anything
   * else a network whose explorer the service was not told. Undefined until the networks are known, or
   * when the network has an explorer.
   */
  noExplorerReason(blockchainId: string): { key: 'noExplorer' | 'noExplorerLocal' | 'noExplorerNetwork'; chainId: string } | undefined {
    if (!this.networks) return undefined;
    const network = this.networks.find((candidate) => candidate.id === blockchainId);
    if (network?.explorerUrl) return undefined;
    const chainId = network?.chainId ?? null;
    if (chainId === null) return { key: network ? 'noExplorer' : 'noExplorerNetwork', chainId: '' };
    return { key: LOCAL_TEST_CHAIN_IDS.has(chainId) ? 'noExplorerLocal' : 'noExplorerNetwork', chainId: String(chainId) };
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
