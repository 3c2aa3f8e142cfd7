/**
 * `paylink keys xpub --mnemonic-file F`: what the service is configured with, from the deposit
 * wallet's BIP-39 words, without the service ever holding them. It prints the account-level extended
 * public key (m/44'/60'/0', `PAYLINK_EVM_XPUB`) alone on stdout, and on stderr the first deposit
 * addresses it derives (m/44'/60'/0'/0/n), so the merchant can check them against the wallet the
 * words came from. The words are never printed, nor any private key.
 */
import { accountXpubFromMnemonic, DEPOSIT_ACCOUNT_PATH, depositAddresses } from './chain/evm/addresses.js';
import { readMnemonicFile, UsageError } from './mnemonic-file.js';

/** How many deposit addresses `keys xpub` shows to check against the wallet. */
export const XPUB_CHECK_ADDRESSES = 5;

/** What `keys xpub` prints: the xpub (stdout) and the lines that explain it (stderr). */
export interface XpubReport {
  xpub: string;
  /** The first deposit addresses, child 0/n for n = 0, 1, … */
  addresses: string[];
  /** Human lines for stderr: the path, the addresses, how to set the service up. */
  lines: string[];
}

/** Derives the report from the words in `mnemonicFile`; a bad phrase is a `UsageError` that does not echo it. */
export function xpubReport(mnemonicFile: string | undefined): XpubReport {
  const mnemonic = readMnemonicFile(mnemonicFile, 'keys xpub');
  let xpub: string;
  try {
    xpub = accountXpubFromMnemonic(mnemonic);
  } catch (error) {
    throw new UsageError(`--mnemonic-file ${mnemonicFile}: ${(error as Error).message}`);
  }
  const derive = depositAddresses(xpub);
  const addresses = Array.from({ length: XPUB_CHECK_ADDRESSES }, (_, n) => derive.address(n));
  const lines = [
    `Account ${DEPOSIT_ACCOUNT_PATH} of the words in ${mnemonicFile}: its extended public key is the last line of stdout.`,
    `Its first deposit addresses (${DEPOSIT_ACCOUNT_PATH}/0/n); your wallet shows the same ones for these words:`,
    ...addresses.map((address, n) => `  ${n}  ${address}`),
    'Give the service the xpub, never the words: PAYLINK_EVM_XPUB=<that line> (e.g. export PAYLINK_EVM_XPUB=$(paylink keys xpub --mnemonic-file F)).',
  ];
  return { xpub, addresses, lines };
}
