/**
 * What the commands that hold the deposit wallet's words (`sweep`, `keys xpub`) share: reading the
 * words from `--mnemonic-file` without ever echoing them, and the error of a bad command line.
 */
import { readFileSync } from 'node:fs';

/** A mistake on the command line or in a file it names: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * The words of `--mnemonic-file` as one space-separated phrase; throws a `UsageError` naming the file
 * (never its content) when none is given or it cannot be read.
 */
export function readMnemonicFile(file: string | undefined, command: string): string {
  if (!file) throw new UsageError(`${command} needs --mnemonic-file FILE (the deposit wallet's BIP-39 words, which the service never holds)`);
  try {
    return readFileSync(file, 'utf8').trim().split(/\s+/).join(' ');
  } catch (error) {
    throw new UsageError(`--mnemonic-file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
