/**
 * The chain families the service can run on: the one place a family is registered. `paylink serve
 * --chain <name>` (and `PAYLINK_CHAIN`) takes the name of one of them; nothing else names a family.
 * A family's heavy modules load only when it connects (see each `family.ts`).
 */
import { evmFamily } from './evm/family.js';
import type { ChainFamily } from './family.js';
import { sandboxFamily } from './sandbox/family.js';

/** Every registered family, in the order the command's help lists them. */
export const CHAIN_FAMILIES: readonly ChainFamily[] = [sandboxFamily, evmFamily];

/** The family named `name` (exactly, as `--chain` takes it), or undefined. */
export function chainFamily(name: string): ChainFamily | undefined {
  return CHAIN_FAMILIES.find((family) => family.name === name);
}

/** The registered names, for messages: `sandbox or evm`. */
export function chainFamilyNames(separator = ' or '): string {
  return CHAIN_FAMILIES.map((family) => family.name).join(separator);
}
