/**
 * The EVM family's secrets, shared by every network: the deposit wallet's account xpub
 * (`PAYLINK_EVM_XPUB`) and the hot wallet's key (`PAYLINK_EVM_PAYOUT_KEY_FILE`, or
 * `PAYLINK_EVM_PAYOUT_KEY`), read with the rest of the settings (./config.ts). A private key never
 * appears in a message, not even a malformed one, nor in a log line: `SecretKey` does not print.
 */
import { readFileSync, statSync } from 'node:fs';
import { HDKey } from '@scure/bip32';
import type { EvmConfigNeeds, Problem } from './config.js';

const REDACTED = '[redacted private key]';
const PRIVATE_KEY = /^(?:0x)?([0-9a-fA-F]{64})$/;

/**
 * A private key that does not print: `String()`, `JSON.stringify()` and `console.log()` of it (or of
 * a config holding it) show `[redacted private key]`. `reveal()` hands it to a signer.
 */
export class SecretKey {
  readonly #value: `0x${string}`;
  constructor(value: `0x${string}`) {
    this.#value = value;
  }
  /** The key itself: for a signer, never for a log. */
  reveal(): `0x${string}` {
    return this.#value;
  }
  toString(): string {
    return REDACTED;
  }
  toJSON(): string {
    return REDACTED;
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `SecretKey ${REDACTED}`;
  }
}

/** The shared secrets: the deposit xpub and the hot wallet's key. */
export function parseSecrets(read: (name: string) => string | undefined, needs: EvmConfigNeeds, problem: Problem, warnings: string[]) {
  // PAYLINK_EVM_XPUB
  const xpub = read('PAYLINK_EVM_XPUB');
  if (!xpub) {
    if (needs.xpub ?? true) {
      problem('PAYLINK_EVM_XPUB', "PAYLINK_EVM_XPUB is missing: set it to the account-level extended public key (xpub…) of m/44'/60'/0' of the deposit wallet");
    }
  } else {
    const message = checkAccountXpub(xpub);
    if (message) problem('PAYLINK_EVM_XPUB', `PAYLINK_EVM_XPUB ${message}`);
  }

  // PAYLINK_EVM_PAYOUT_KEY_FILE / PAYLINK_EVM_PAYOUT_KEY
  const keyFile = read('PAYLINK_EVM_PAYOUT_KEY_FILE');
  const keyValue = read('PAYLINK_EVM_PAYOUT_KEY');
  let payoutKey: `0x${string}` | undefined;
  if (keyFile && keyValue) {
    problem('PAYLINK_EVM_PAYOUT_KEY', 'PAYLINK_EVM_PAYOUT_KEY_FILE and PAYLINK_EVM_PAYOUT_KEY are both set: keep one (the file is safer)');
  } else if (keyFile) {
    let text: string | undefined;
    try {
      text = readFileSync(keyFile, 'utf8');
      const mode = statSync(keyFile).mode;
      if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
        warnings.push(`PAYLINK_EVM_PAYOUT_KEY_FILE ${keyFile} can be read by other users (mode ${(mode & 0o777).toString(8)}): chmod 600 it`);
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problem('PAYLINK_EVM_PAYOUT_KEY_FILE', `PAYLINK_EVM_PAYOUT_KEY_FILE ${keyFile} cannot be read (${code ?? 'error'})`);
    }
    if (text !== undefined) {
      const match = PRIVATE_KEY.exec(text.trim());
      if (match) payoutKey = `0x${match[1]!.toLowerCase()}`;
      else
        problem('PAYLINK_EVM_PAYOUT_KEY_FILE', `PAYLINK_EVM_PAYOUT_KEY_FILE ${keyFile} does not hold a private key (64 hexadecimal characters, 0x optional)`);
    }
  } else if (keyValue) {
    const match = PRIVATE_KEY.exec(keyValue);
    if (match) payoutKey = `0x${match[1]!.toLowerCase()}`;
    else problem('PAYLINK_EVM_PAYOUT_KEY', 'PAYLINK_EVM_PAYOUT_KEY is not a private key (64 hexadecimal characters, 0x optional)');
  } else if (needs.payoutKey ?? true) {
    problem(
      'PAYLINK_EVM_PAYOUT_KEY_FILE',
      "PAYLINK_EVM_PAYOUT_KEY_FILE is missing: name a file holding the hot wallet's private key (or set PAYLINK_EVM_PAYOUT_KEY)",
    );
  }
  if (payoutKey && /^0x0{64}$/.test(payoutKey)) {
    problem(keyFile ? 'PAYLINK_EVM_PAYOUT_KEY_FILE' : 'PAYLINK_EVM_PAYOUT_KEY', 'the payout key is zero, which is not a valid private key');
    payoutKey = undefined;
  }
  return { xpub, payoutKey: payoutKey ? new SecretKey(payoutKey) : undefined };
}

/** Why `xpub` is not an account-level public key (depth 3, no private part), or null when it is. */
export function checkAccountXpub(xpub: string): string | null {
  if (/^[xt]prv/i.test(xpub)) return 'is a private extended key (xprv): give the public one (xpub); the service must hold no deposit private key';
  let key: HDKey;
  try {
    key = HDKey.fromExtendedKey(xpub);
  } catch {
    return 'is not an extended public key (expected xpub… in base58, as wallets export it)';
  }
  if (key.privateKey) return 'holds a private key: give the public one (xpub)';
  if (key.depth !== 3) return `is at depth ${key.depth} of its wallet, not at the account level m/44'/60'/0' (depth 3)`;
  return null;
}
