/**
 * The sandbox chain: a stand-in for a real network that moves no funds. Everything it produces is
 * clearly marked as sandbox data.
 */
import { BSC, type ChainAdapter, type Network } from './types.js';

export interface SandboxChainOptions {
  networks?: Network[];
}

export function createSandboxChain(options: SandboxChainOptions = {}): ChainAdapter {
  return { sandbox: true, networks: options.networks ?? [BSC] };
}
