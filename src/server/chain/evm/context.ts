/**
 * What the parts of a connected EVM chain share (./finality.ts, ./scan.ts, ./transfers.ts, ./fees.ts,
 * ./sign.ts, ./broadcast.ts, ./receipts.ts, ./nonces.ts): the settings, the node connection and the
 * configured tokens. Each part is a set of functions over this context; `EvmChain` (./chain.ts) puts
 * them behind one object.
 */
import { getAddress, isAddress, parseUnits, type Address, type Hex } from 'viem';
import { isDecimalString, type AssetId } from '../../../core/money.js';
import { checkEvmAddress } from './address.js';
import type { EvmConfig } from './config.js';
import type { EvmRpc, RpcOptions } from './rpc.js';

/** How the chain is used beyond the settings of the environment. */
export interface EvmChainOptions extends RpcOptions {
  /** Widest block range of one `eth_getLogs` (default 2000); a node's refusal narrows it (./scan.ts). */
  maxBlockRange?: number | undefined;
  /** Most deposit addresses in one `eth_getLogs` (default 500). */
  maxAddressesPerQuery?: number | undefined;
  /**
   * `auto` (default): EIP-1559 fees when the latest block has a non-zero base fee, else a legacy
   * gas price (BNB Smart Chain's base fee is zero and its validators order by gas price).
   */
  feeMode?: 'auto' | 'eip1559' | 'legacy' | undefined;
  /** Gas limit = estimate × this, rounded up (default 1.25: storage costs differ at execution). */
  gasMargin?: number | undefined;
}

/** A configured token, with the decimals its contract reports. */
export interface EvmToken {
  assetId: AssetId;
  /** EIP-55. */
  address: Address;
  decimals: number;
}

/** The shared state of one connected network. */
export interface ChainContext {
  readonly config: EvmConfig;
  readonly rpc: EvmRpc;
  readonly tokens: readonly EvmToken[];
  /** Tokens by lowercase contract address. */
  readonly byToken: ReadonlyMap<string, EvmToken>;
  readonly options: EvmChainOptions;
}

/** Builds the context of a connected network. */
export function chainContext(config: EvmConfig, rpc: EvmRpc, tokens: readonly EvmToken[], options: EvmChainOptions): ChainContext {
  return { config, rpc, tokens, byToken: new Map(tokens.map((t) => [t.address.toLowerCase(), t])), options };
}

/** Lowercase hex, as hashes are stored and compared. */
export function lower(hex: string): Hex {
  return hex.toLowerCase() as Hex;
}

/** The token of `assetId`, or throws a `RangeError` when the asset is not configured. */
export function tokenOf(ctx: ChainContext, assetId: AssetId): EvmToken {
  const token = ctx.tokens.find((t) => t.assetId === assetId);
  if (!token) throw new RangeError(`${assetId} is not configured on ${ctx.config.network} (PAYLINK_EVM_TOKENS)`);
  return token;
}

/** An address a caller gave, EIP-55 spelt; a `TypeError` saying why when it is not one. */
export function checkedAddress(input: string): Address {
  // viem's keccak is many times faster than the checkout's small one, and a batch of payouts checks
  // each recipient twice (estimate, then signing): the usual address (one case, or a right checksum)
  // is settled here, anything else gets the shared checker's verdict and wording.
  const trimmed = typeof input === 'string' ? input.trim() : input;
  if (isAddress(trimmed, { strict: true })) return getAddress(trimmed);
  const check = checkEvmAddress(input);
  if (!check.ok) throw new TypeError(check.message);
  return getAddress(check.address);
}

/** `amount` (a decimal string in the token's units) as base units; a `RangeError` when it has too many digits or is not positive. */
export function tokenUnits(amount: string, token: EvmToken): bigint {
  if (!isDecimalString(amount)) throw new RangeError(`amount must be a decimal string such as "12.5", not "${amount}"`);
  const fraction = amount.split('.')[1]?.replace(/0+$/, '') ?? '';
  if (fraction.length > token.decimals) throw new RangeError(`${token.assetId} has ${token.decimals} decimals; ${amount} has more`);
  const units = parseUnits(amount, token.decimals);
  if (units <= 0n) throw new RangeError('amount must be more than 0');
  return units;
}
