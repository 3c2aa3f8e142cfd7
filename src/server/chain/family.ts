/**
 * A chain family: one kind of chain the service can run on (`sandbox`, `evm`), in its own folder
 * beside this file, registered once in ./registry.ts. The `paylink` command and the service know
 * families only through this interface and the registry; the parts a family provides:
 *
 * - its name (`--chain <name>`, `PAYLINK_CHAIN`) and what choosing it means (`summary`, `realMoney`);
 * - its address rules (`checkAddress`: what a typed address must be, and how it is stored);
 * - its settings (`connect`: read from the environment, every problem named at once, then the
 *   adapter connected), which yield the adapter (./types.ts) that holds the rest:
 *   deposit addresses (`depositAddress`), money in (`incoming`, or simulated transfers on a sandbox)
 *   and money out (`outgoing`, or direct payouts on a sandbox);
 * - how `paylink serve` describes the adapter it connected (`describe`).
 */
import type { ChainAdapter } from './types.js';

/** What a family's address rules found: the spelling to store, or why the input is no address. */
export type AddressCheck = { ok: true; address: string } | { ok: false; message: string };

/** What `connect` is given besides the environment. */
export interface ConnectOptions {
  /**
   * Problems the caller found in its own settings (the rates'): a family with problems of its own
   * reports them all together (`ChainSettingsError`), so one run names everything to fix; a family
   * whose settings are fine still refuses with these.
   */
  otherProblems?: readonly string[] | undefined;
  /**
   * Told what the family has to say while it connects (settings that work but look wrong, a node
   * not up yet), each with the family's own stable log code.
   */
  say?: ((level: 'info' | 'warn', code: string, line: string) => void) | undefined;
}

/** One line `paylink serve` prints about the adapter it connected: a stable code, the text, its fields. */
export interface StartLine {
  code: string;
  message: string;
  fields?: Record<string, string | number | boolean> | undefined;
}

/** A family's settings are missing or wrong: one sentence per problem, the caller's first. */
export class ChainSettingsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ChainSettingsError';
  }
}

/** The settings are right, but the chain cannot be used (a node of another chain, a token that is no token). */
export class ChainUnavailableError extends Error {
  /** The log code the refusal is said under (the family's own). */
  readonly code: string;
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(message, options);
    this.name = 'ChainUnavailableError';
    this.code = options?.code ?? 'chain_unusable';
  }
}

/** One kind of chain: see the module's comment for what each part is. */
export interface ChainFamily {
  /** What `--chain` and `PAYLINK_CHAIN` take: lowercase letters and digits. */
  readonly name: string;
  /** One line: what running on this family means (shown when `serve` is started without `--chain`). */
  readonly summary: string;
  /** True when money is real: the rates' sources must then be named, never implied. */
  readonly realMoney: boolean;
  /** Checks an address a user typed; on success `address` is how the service stores and returns it. */
  checkAddress(input: string): AddressCheck;
  /**
   * Reads the family's settings from `env` and connects its adapter. Throws `ChainSettingsError`
   * naming every problem (with `otherProblems`), `ChainUnavailableError` when the chain cannot be
   * used as configured; waits (and says so through `say`) while a node is down.
   */
  connect(env: NodeJS.ProcessEnv, options?: ConnectOptions): Promise<ChainAdapter>;
  /** What `paylink serve` prints about the adapter once it listens, a line each. */
  describe(adapter: ChainAdapter): StartLine[];
}

/**
 * Every part of `ChainFamily`, by name: the registry's test checks each registered family against
 * it, and the compiler checks that it names every part.
 */
export const CHAIN_FAMILY_PARTS = ['name', 'summary', 'realMoney', 'checkAddress', 'connect', 'describe'] as const satisfies ReadonlyArray<keyof ChainFamily>;

// Fails to compile when a part is added to ChainFamily and not to CHAIN_FAMILY_PARTS.
const everyPart: Record<Exclude<keyof ChainFamily, (typeof CHAIN_FAMILY_PARTS)[number]>, never> = {};
void everyPart;
