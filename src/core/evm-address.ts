/**
 * EVM addresses (BNB Smart Chain and every other EVM network): `0x` + 40 hex digits, and when the
 * letters are mixed-case, the EIP-55 checksum they encode must hold. All-lowercase and all-uppercase
 * addresses carry no checksum and are accepted as they are (EIP-55's own rule).
 * Isomorphic: no DOM, no Node. Shared by the admin's withdrawal form and the service's validation.
 */
import { keccak256 } from './keccak.js';

/** What `checkAddress` found: usable, not an address at all, or a mixed-case address with a wrong checksum. */
export type AddressCheck = 'ok' | 'invalid_format' | 'bad_checksum';

const FORMAT = /^0x[0-9a-fA-F]{40}$/;
const encoder = new TextEncoder();

/** The Keccak-256 the checksums use: the small one, unless `useKeccak256` gave another. */
let hash: (bytes: Uint8Array) => Uint8Array = keccak256;

/**
 * Replaces the Keccak-256 of the checksums with an equal, faster one. The service does (a checksum
 * is a permutation on bigint lanes here, about a fifth of a withdrawal request's CPU); the browser
 * bundles keep the small one, whose weight is what they pay for.
 */
export function useKeccak256(fast: (bytes: Uint8Array) => Uint8Array): void {
  hash = fast;
}

/**
 * Checks `address` as a user would type it (surrounding whitespace is ignored):
 * `'invalid_format'` unless it is `0x` + 40 hex digits; `'bad_checksum'` when it is mixed-case and the
 * case does not match its EIP-55 checksum (a typo the checksum exists to catch); `'ok'` otherwise.
 */
export function checkAddress(address: string): AddressCheck {
  if (typeof address !== 'string') return 'invalid_format';
  const trimmed = address.trim();
  if (!FORMAT.test(trimmed)) return 'invalid_format';
  const body = trimmed.slice(2);
  const isSingleCase = body === body.toLowerCase() || body === body.toUpperCase();
  if (isSingleCase) return 'ok';
  return toChecksumAddress(trimmed) === trimmed ? 'ok' : 'bad_checksum';
}

/** True when `address` is an EVM address a payout can go to (see `checkAddress`). */
export function isValidEvmAddress(address: string): boolean {
  return checkAddress(address) === 'ok';
}

/**
 * The EIP-55 mixed-case form of `address`: each letter is uppercased when the matching nibble of
 * keccak-256(lowercase hex) is 8 or more. Throws a `TypeError` when `address` is not `0x` + 40 hex digits.
 */
export function toChecksumAddress(address: string): string {
  const trimmed = typeof address === 'string' ? address.trim() : '';
  if (!FORMAT.test(trimmed)) throw new TypeError('Not an EVM address: expected 0x followed by 40 hexadecimal digits');
  const lower = trimmed.slice(2).toLowerCase();
  const digest = hash(encoder.encode(lower));
  let result = '0x';
  for (let index = 0; index < 40; index++) {
    const char = lower[index]!;
    const byte = digest[index >> 1]!;
    const nibble = index % 2 === 0 ? byte >> 4 : byte & 0x0f;
    result += nibble >= 8 ? char.toUpperCase() : char;
  }
  return result;
}
