/**
 * A local EVM node (anvil, from Foundry) as a child process: what the tests and the demo run the
 * real chain adapter against. Anvil ships as a prebuilt binary inside a platform npm package
 * (`@foundry-rs/anvil-<platform>-<arch>`), an optional dev dependency: a package installed without
 * dev dependencies has no anvil, and `startAnvil` then throws `AnvilNotInstalledError`, which the
 * demo takes as its cue to fall back to the sandbox chain.
 *
 * Each node is stopped by its pid, on `stop()` and, as a last resort, when this process exits, so
 * a crashed test run leaves no node behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The npm package that carries the anvil binary for each supported platform and CPU. */
const ANVIL_PACKAGES: Readonly<Record<string, string>> = {
  'linux-x64': '@foundry-rs/anvil-linux-amd64',
  'linux-arm64': '@foundry-rs/anvil-linux-arm64',
  'darwin-x64': '@foundry-rs/anvil-darwin-amd64',
  'darwin-arm64': '@foundry-rs/anvil-darwin-arm64',
  'win32-x64': '@foundry-rs/anvil-win32-amd64',
};

/** Anvil's default mnemonic: its ten dev accounts derive from it and are unlocked on the node. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

/** Thrown when this installation has no anvil binary (e.g. installed without dev dependencies). */
export class AnvilNotInstalledError extends Error {
  constructor(detail: string) {
    super(`anvil is not installed: ${detail}. Install the dev dependency @foundry-rs/anvil, or use --chain sandbox`);
    this.name = 'AnvilNotInstalledError';
  }
}

/** Thrown when anvil was found but did not come up (bad arguments, port taken, timeout). */
export class AnvilStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AnvilStartError';
  }
}

/**
 * The path of the anvil binary for this platform (or `target`), or throws `AnvilNotInstalledError`.
 * `PAYLINK_ANVIL_BIN` names a binary elsewhere (e.g. a Foundry install) and wins when set.
 */
export function anvilBinary(target: { platform: string; arch: string } = process): string {
  const fromEnv = process.env.PAYLINK_ANVIL_BIN;
  if (fromEnv && target === process) return fromEnv;
  const packageName = ANVIL_PACKAGES[`${target.platform}-${target.arch}`];
  if (!packageName) throw new AnvilNotInstalledError(`no anvil package exists for ${target.platform}/${target.arch}`);
  const binary = target.platform === 'win32' ? 'anvil.exe' : 'anvil';
  try {
    return createRequire(import.meta.url).resolve(`${packageName}/bin/${binary}`);
  } catch {
    throw new AnvilNotInstalledError(`${packageName} is missing`);
  }
}

/** True when `startAnvil` can find a binary. */
export function anvilAvailable(): boolean {
  try {
    anvilBinary();
    return true;
  } catch {
    return false;
  }
}

export interface AnvilOptions {
  /** EIP-155 chain id (default 31337). */
  chainId?: number;
  /**
   * Seconds between blocks; fractions allowed (`0.75`). Omitted or undefined: instant mining
   * (one block per transaction), which is what keeps tests fast.
   */
  blockTime?: number | undefined;
  /** Loopback port; default a free one. */
  port?: number;
  /** Interface to listen on (default 127.0.0.1: the dev accounts are unlocked, never expose them). */
  host?: string;
  /** Mnemonic of the dev accounts (default `ANVIL_MNEMONIC`). */
  mnemonic?: string;
  /** Number of dev accounts (default 10). */
  accounts?: number;
  /** Native balance of each dev account, in whole ether (default 10000). */
  balance?: number;
  /** EVM hardfork (e.g. `berlin` for a chain without EIP-1559). Default: anvil's latest. */
  hardfork?: string;
  /** More anvil arguments, passed as given (e.g. `['--state', file]`). */
  extraArgs?: string[];
  /** How long to wait for `eth_chainId` to answer (default 15 s). */
  startTimeoutMs?: number;
}

/** A running anvil node. */
export interface AnvilNode {
  /** JSON-RPC over HTTP, e.g. `http://127.0.0.1:8545`. */
  readonly url: string;
  /** The same node over WebSocket. */
  readonly wsUrl: string;
  readonly port: number;
  readonly host: string;
  readonly chainId: number;
  readonly mnemonic: string;
  readonly pid: number;
  readonly process: ChildProcess;
  /** Stops the node (SIGTERM, then SIGKILL after 2 s); resolves once it has exited. Idempotent. */
  stop(): Promise<void>;
}

/** The nodes started here and still running, with the directory each keeps its old states in. */
const running = new Map<ChildProcess, string>();
let exitHookInstalled = false;

/** Kills every node still running when this process exits, however it exits, and removes its states. */
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [child, states] of running) {
      try {
        if (child.pid) process.kill(child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      rmSync(states, { recursive: true, force: true });
    }
  });
}

/** A port nobody listens on right now (a race with other processes; `startAnvil` retries). */
export async function freeLoopbackPort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Asks `url` for `eth_chainId`; null while nothing answers. */
async function chainIdAt(url: string): Promise<number | null> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await response.json()) as { result?: string };
    return typeof body.result === 'string' ? Number(BigInt(body.result)) : null;
  } catch {
    return null;
  }
}

/**
 * Starts anvil and resolves once its `eth_chainId` answers with the chain id asked for.
 * Throws `AnvilNotInstalledError` without a binary and `AnvilStartError` if it does not come up.
 */
export async function startAnvil(options: AnvilOptions = {}): Promise<AnvilNode> {
  const binary = anvilBinary();
  const chainId = options.chainId ?? 31337;
  if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new RangeError(`chain id must be a positive integer, not ${chainId}`);
  if (options.blockTime !== undefined && !(options.blockTime > 0)) {
    // Anvil reads --block-time 0 as "never mine", which is never what a caller means.
    throw new RangeError(`block time must be a positive number of seconds, not ${options.blockTime} (omit it for instant mining)`);
  }
  // A free port can be taken between our probe and anvil's bind: try a few times.
  let lastError: unknown;
  for (let attempt = 0; attempt < (options.port ? 1 : 3); attempt++) {
    try {
      return await startOnce(binary, chainId, options);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function startOnce(binary: string, chainId: number, options: AnvilOptions): Promise<AnvilNode> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? (await freeLoopbackPort(host));
  const mnemonic = options.mnemonic ?? ANVIL_MNEMONIC;
  // Anvil writes this file only once it holds its port. Waiting for it tells our node from any
  // other process that took the free port first (then ours exits, and that one would answer).
  const configOut = path.join(os.tmpdir(), `paylink-anvil-${process.pid}-${randomBytes(6).toString('hex')}.json`);
  // Anvil writes the states of old blocks to disk, by default under ~/.foundry/anvil/tmp, and leaves
  // them there when it is killed: a few hundred MB per busy test node, 77 GB after a few days of test
  // runs on one machine. Each node here gets a directory of its own, removed once the node has exited.
  const states = mkdtempSync(path.join(os.tmpdir(), 'paylink-anvil-states-'));
  const args = [
    '--host',
    host,
    '--port',
    String(port),
    '--chain-id',
    String(chainId),
    '--silent',
    '--mnemonic',
    mnemonic,
    '--config-out',
    configOut,
    '--cache-path',
    states,
  ];
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  if (options.accounts !== undefined) args.push('--accounts', String(options.accounts));
  if (options.balance !== undefined) args.push('--balance', String(options.balance));
  if (options.hardfork) args.push('--hardfork', options.hardfork);
  args.push(...(options.extraArgs ?? []));

  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    if (stderr.length < 4_000) stderr += chunk;
  });
  const spawnFailed = new Promise<Error>((resolve) => child.once('error', resolve));
  installExitHook();
  running.set(child, states);
  child.once('exit', () => {
    running.delete(child);
    rmSync(states, { recursive: true, force: true });
  });

  const url = `http://${host}:${port}`;
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const cleanUp = () => rmSync(configOut, { force: true });
  const deadline = Date.now() + (options.startTimeoutMs ?? 15_000);
  let failure: Error | undefined;
  spawnFailed.then((error) => (failure = error));
  for (;;) {
    if (failure) {
      kill();
      cleanUp();
      rmSync(states, { recursive: true, force: true });
      throw new AnvilStartError(`anvil could not be started (${binary}): ${failure.message}`);
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      cleanUp();
      throw new AnvilStartError(`anvil exited on start (${child.exitCode ?? child.signalCode}): ${stderr.trim() || 'no output'}`);
    }
    const answered = existsSync(configOut) ? await chainIdAt(url) : null;
    if (answered !== null) {
      cleanUp();
      if (answered !== chainId) {
        kill();
        throw new AnvilStartError(`port ${port} answers with chain id ${answered}, not ${chainId}`);
      }
      break;
    }
    if (Date.now() > deadline) {
      kill();
      cleanUp();
      throw new AnvilStartError(`anvil did not answer on ${url} within ${options.startTimeoutMs ?? 15_000} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  let stopping: Promise<void> | undefined;
  return {
    url,
    wsUrl: `ws://${host}:${port}`,
    port,
    host,
    chainId,
    mnemonic,
    pid: child.pid!,
    process: child,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(kill, 2_000);
        await exitOf(child);
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}
