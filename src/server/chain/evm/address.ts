/**
 * The service's side of EVM addresses: the one checker in `core/evm-address.ts` (shared with the
 * admin form) turned into a result with the API's wording, and keccak for the sandbox's hashes (both
 * with @noble/hashes' Keccak on the server).
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { checkAddress, toChecksumAddress, useKeccak256 } from '../../../core/evm-address.js';

// The service checks addresses in every withdrawal request and payout: with @noble/hashes' Keccak
// (the same digest, many times faster than the browser bundles' small one).
useKeccak256(keccak_256);

/** Keccak-256 of a UTF-8 string, as lowercase hex without `0x`. */
export function keccakHex(text: string): string {
  return Buffer.from(keccak_256(new TextEncoder().encode(text))).toString('hex');
}

export type AddressCheck = { ok: true; address: string } | { ok: false; message: string };

/**
 * Checks an address a user typed. On success `address` is its EIP-55 spelling, which is how the
 * service stores and returns it.
 */
export function checkEvmAddress(input: string): AddressCheck {
  switch (checkAddress(input)) {
    case 'ok':
      return { ok: true, address: toChecksumAddress(input) };
    case 'bad_checksum':
      return { ok: false, message: 'address fails its EIP-55 checksum (a character is mistyped or its case is wrong)' };
    default:
      return { ok: false, message: 'address must be an EVM address: 0x followed by 40 hexadecimal characters' };
  }
}
