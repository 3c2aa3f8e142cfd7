/**
 * Deposit addresses. The service holds only the account-level extended public key of the deposit
 * wallet (m/44'/60'/0'), so it can derive every deposit address (n = child 0/n, the path wallets
 * use for an account's n-th receiving address) but can never move what they hold. Moving it is
 * `paylink sweep`'s job, a separate process that holds the mnemonic and derives the same keys.
 */
import { ECDH } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { bytesToHex, type Address } from 'viem';
import { privateKeyToAccount, publicKeyToAddress, type PrivateKeyAccount } from 'viem/accounts';
import { checkAccountXpub } from './config.js';

/** The BIP-44 account path of the deposit wallet (Ethereum coin type, account 0). */
export const DEPOSIT_ACCOUNT_PATH = "m/44'/60'/0'";

/** Largest child index BIP-32 allows without hardening. */
export const MAX_DEPOSIT_INDEX = 2 ** 31 - 1;

function checkIndex(index: number) {
  if (!Number.isSafeInteger(index) || index < 0 || index > MAX_DEPOSIT_INDEX) {
    throw new RangeError(`deposit index must be a whole number from 0 to ${MAX_DEPOSIT_INDEX}, not ${index}`);
  }
}

/** Derives deposit addresses from an account-level xpub. */
export interface DepositAddresses {
  /** The EIP-55 address of deposit n (path m/44'/60'/0'/0/n). */
  address(index: number): Address;
}

/**
 * Deposit addresses from the account-level xpub of m/44'/60'/0'. Throws a `TypeError` naming the
 * problem when `xpub` is not one (a private key, the wrong depth, not base58).
 */
export function depositAddresses(xpub: string): DepositAddresses {
  const problem = checkAccountXpub(xpub);
  if (problem) throw new TypeError(`the deposit xpub ${problem}`);
  // The receiving branch (child 0) is derived once; each address is one more public derivation.
  const receiving = HDKey.fromExtendedKey(xpub).deriveChild(0);
  return {
    address(index) {
      checkIndex(index);
      const compressed = receiving.deriveChild(index).publicKey;
      if (!compressed) throw new Error('unreachable: a public derivation always yields a public key');
      // An address hashes the uncompressed key; node:crypto decompresses without another curve library.
      const uncompressed = ECDH.convertKey(Buffer.from(compressed), 'secp256k1', undefined, undefined, 'uncompressed') as Buffer;
      return publicKeyToAddress(bytesToHex(uncompressed));
    },
  };
}

/** The seed's root key; throws a `TypeError` (without echoing the words) when the mnemonic is invalid. */
function rootKey(mnemonic: string): HDKey {
  const words = mnemonic.trim().split(/\s+/).join(' ');
  if (!validateMnemonic(words, wordlist)) throw new TypeError('the mnemonic is not a valid BIP-39 English phrase (check the words and their order)');
  return HDKey.fromMasterSeed(mnemonicToSeedSync(words));
}

/** The account-level xpub (m/44'/60'/0') of a mnemonic: what the service is configured with. */
export function accountXpubFromMnemonic(mnemonic: string): string {
  return rootKey(mnemonic).derive(DEPOSIT_ACCOUNT_PATH).publicExtendedKey;
}

/** Derives the signing accounts of deposit addresses from the deposit wallet's mnemonic (sweep only). */
export interface DepositKeys {
  /** The account-level xpub these keys belong to, to check against `PAYLINK_EVM_XPUB`. */
  readonly xpub: string;
  /** The signing account of deposit n; its address equals `depositAddresses(xpub).address(n)`. */
  account(index: number): PrivateKeyAccount;
}

/** Deposit signing keys from a BIP-39 mnemonic, at the same path as `depositAddresses`. */
export function depositKeys(mnemonic: string): DepositKeys {
  const account = rootKey(mnemonic).derive(DEPOSIT_ACCOUNT_PATH);
  return {
    xpub: account.publicExtendedKey,
    account(index) {
      checkIndex(index);
      const privateKey = account.deriveChild(0).deriveChild(index).privateKey;
      if (!privateKey) throw new Error('unreachable: a private derivation always yields a private key');
      return privateKeyToAccount(bytesToHex(privateKey));
    },
  };
}
