/**
 * The sandbox family: no real funds move. Its adapter (./chain.ts) fabricates transfers and pays
 * out directly; its addresses follow the EVM rules, since the networks it plays are EVM networks.
 */
import { checkEvmAddress } from '../evm/address.js';
import { ChainSettingsError, type ChainFamily } from '../family.js';
import { createSandboxChain } from './chain.js';

/** The sandbox, as the registry lists it. */
export const sandboxFamily: ChainFamily = {
  name: 'sandbox',
  summary: 'no real funds move: anyone can mark a session paid (POST …/simulate-payment). For tests and test mode.',
  realMoney: false,
  checkAddress: checkEvmAddress,
  async connect(_env, options = {}) {
    if (options.otherProblems?.length) throw new ChainSettingsError(options.otherProblems);
    return createSandboxChain();
  },
  describe() {
    return [{ code: 'sandbox_chain', message: 'Sandbox chain: no real funds move, and anyone can mark a session paid. For tests and test mode only.' }];
  },
};
