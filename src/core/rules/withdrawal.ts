/**
 * The rules of a withdrawal request, run by the service on `POST
 * /v1/withdrawal` and by the admin's withdrawal form before it asks for confirmation:
 * - `assetId`: an asset some configured network carries, any case (kept uppercase);
 * - `blockchainId`: a configured network by id or alias, any case (kept as its canonical id),
 *   carrying that asset;
 * - `address`: `0x` + 40 hex, not the zero address; mixed case must pass EIP-55 (kept in its
 *   checksummed spelling);
 * - `amount`: a number or decimal string, > 0, at most 6 decimals, at most `MAX_AMOUNT`.
 * Whether the balance covers the amount is the service's to say (422), not a rule of the request.
 * Isomorphic: no DOM, no Node, no zod.
 */
import { checkAddress, toChecksumAddress } from '../evm-address.js';
import type { AssetId } from '../money.js';
import { checkAmount } from './amount.js';
import { CRYPTO_DIGITS } from './limits.js';
import { assetsOf, findNetwork, type NetworkInfo } from './networks.js';
import { RuleErrors, type RuleError } from './types.js';

/** The statuses of a withdrawal: `pending → processing → success | failed`. */
export const WITHDRAWAL_STATUSES = ['pending', 'processing', 'success', 'failed'] as const;

/** The statuses of a withdrawal not finished yet: its funds reserved, its payout waiting (`pending`) or on its way (`processing`). */
export const UNFINISHED_WITHDRAWAL_STATUSES: ReadonlySet<(typeof WITHDRAWAL_STATUSES)[number]> = new Set(['pending', 'processing']);

/** A withdrawal body, with its types already checked. */
export interface WithdrawalInput {
  amount: number | string;
  address: string;
  blockchainId: string;
  assetId: string;
}

/** A withdrawal request after every rule has passed, in canonical form. */
export interface WithdrawalRequest {
  amount: string;
  assetId: AssetId;
  blockchainId: string;
  address: string;
}

/** What `checkWithdrawal` found: the canonical request, or the errors that refuse it. */
export type WithdrawalCheck = { ok: true; request: WithdrawalRequest } | { ok: false; errors: RuleError[] };

/** Checks an EVM address as typed; adds an error on `path` and returns null, or returns its EIP-55 spelling. */
export function checkEvmAddress(value: string, path: string, errors: RuleErrors): string | null {
  switch (checkAddress(value)) {
    case 'ok':
      return toChecksumAddress(value);
    case 'bad_checksum':
      return errors.fail(path, 'address.checksum');
    default:
      return errors.fail(path, 'address.format');
  }
}

/**
 * True for the zero address (`0x` and forty zeros): nobody holds its key, so a payout sent there is
 * burned (many tokens refuse it outright). A withdrawal to it is refused like a malformed address.
 */
export function isZeroAddress(address: string): boolean {
  return /^0x0{40}$/.test(address.trim());
}

/** Applies the rules to a withdrawal body against the configured `networks`, naming every offending field. */
export function checkWithdrawal(input: WithdrawalInput, networks: readonly NetworkInfo[]): WithdrawalCheck {
  const errors = new RuleErrors();
  const assetId = input.assetId.trim().toUpperCase() as AssetId;
  const assets = assetsOf(networks);
  const knownAsset = assets.includes(assetId);
  const amount = checkAmount(input.amount, 'amount', { digits: CRYPTO_DIGITS, unit: knownAsset ? assetId : 'Crypto', positive: true }, errors);

  if (!knownAsset) errors.fail('assetId', 'withdrawal.assetUnsupported', { assets: assets.join(', ') });

  const network = findNetwork(networks, input.blockchainId);
  if (!network) errors.fail('blockchainId', 'withdrawal.networkUnsupported', { networks: networks.map((n) => `${n.id} (${n.name})`).join(', ') });
  else if (knownAsset && !network.assets.includes(assetId)) errors.fail('assetId', 'withdrawal.networkAsset', { network: network.name, asset: assetId });

  let address = checkEvmAddress(input.address, 'address', errors);
  if (address !== null && isZeroAddress(address)) address = errors.fail('address', 'address.format');
  if (!errors.empty || !network || address === null || amount === null) return { ok: false, errors: errors.list };
  return { ok: true, request: { amount, assetId, blockchainId: network.id, address } };
}
