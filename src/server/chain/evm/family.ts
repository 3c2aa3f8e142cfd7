/**
 * The EVM family, as the registry lists it: its settings (`PAYLINK_EVM_*`, ./config.ts) and its
 * adapter (./adapter.ts) are loaded only when it is chosen, so choosing the sandbox never loads viem.
 */
import type { ChainAdapter } from '../types.js';
import { ChainSettingsError, ChainUnavailableError, type ChainFamily, type StartLine } from '../family.js';
import { checkEvmAddress } from './address.js';

/** How `serve` describes real networks on start: each one, its tokens, and the hot wallet (never its key). */
function describeEvm(chain: ChainAdapter): StartLine[] {
  if (chain.kind !== 'real') return [];
  const lines: StartLine[] = chain.chains.map((c, i) => {
    const network = chain.networks[i]!;
    const tokens = Object.entries(network.tokens ?? {}).map(([asset, token]) => `${asset} ${token.address} (${token.decimals} decimals)`);
    return {
      code: 'evm_network',
      message: `EVM chain: ${network.name} (chain id ${network.chainId}, network id "${network.id}"), ${c.incoming.confirmations} confirmations. Tokens: ${tokens.join(', ')}.`,
      fields: { network: network.id, chainId: network.chainId ?? 0, confirmations: c.incoming.confirmations },
    };
  });
  const hot = chain.chains.find((c) => c.outgoing)?.outgoing?.hotWallet;
  lines.push(
    hot
      ? { code: 'hot_wallet', message: `Payouts from the hot wallet ${hot}.`, fields: { hotWallet: hot } }
      : { code: 'hot_wallet', message: 'No hot wallet: withdrawals wait.' },
  );
  return lines;
}

/** EVM networks through JSON-RPC, as the registry lists them. */
export const evmFamily: ChainFamily = {
  name: 'evm',
  summary: 'a real EVM network through JSON-RPC (needs the PAYLINK_EVM_* settings and PAYLINK_RATES_SOURCES).',
  realMoney: true,
  checkAddress: checkEvmAddress,
  async connect(env, options = {}) {
    const { EvmConfigError, parseEvmNetworks } = await import('./config.js');
    const { connectEvmAdapter } = await import('./adapter.js');
    const otherProblems = options.otherProblems ?? [];
    let configs;
    try {
      configs = parseEvmNetworks(env);
    } catch (error) {
      if (!(error instanceof EvmConfigError)) throw error;
      throw new ChainSettingsError([...otherProblems, error.message]);
    }
    if (otherProblems.length) throw new ChainSettingsError(otherProblems);
    for (const warning of configs[0]!.warnings) options.say?.('warn', 'evm_config_warning', warning);
    const say = options.say;
    try {
      return await connectEvmAdapter(configs, say ? { log: (line) => say('warn', 'evm_node_waiting', line) } : {});
    } catch (error) {
      throw new ChainUnavailableError(`cannot use the EVM node: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
        code: 'evm_node_unusable',
      });
    }
  },
  describe: describeEvm,
};
