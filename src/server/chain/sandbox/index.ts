/**
 * The sandbox family: a stand-in for real networks that moves no funds (./chain.ts). Its entry in
 * the registry (./family.ts) is the registry's alone to import.
 */
export { BSC, createSandboxChain, SANDBOX_FAILING_ADDRESS, sandboxPayoutHash, type SandboxChain, type SandboxChainOptions } from './chain.js';
