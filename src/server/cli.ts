/**
 * The `paylink` command (DESIGN §3): serve, keys create, proxy, demo.
 * Flags win over environment variables, which win over defaults.
 */
import { parseArgs } from 'node:util';
import { createSandboxChain } from './chain/sandbox.js';
import type { ChainAdapter } from './chain/types.js';
import { openDatabase } from './db/index.js';
import { createApiKey } from './service/keys/index.js';
import { startService } from './service/serve.js';

const USAGE = `Usage: paylink <command> [options]

Commands:
  serve        Run the service        --chain sandbox|evm [--port 8787] [--host 127.0.0.1] [--data-dir .paylink-data] [--database-url URL]
  keys create  Create an API key      [--data-dir D | --database-url URL] [--name N]
  proxy        Run the proxy          [--port 8788] --upstream URL   (env PAYLINK_API_KEY, PAYLINK_ADMIN_TOKEN, PAYLINK_ALLOWED_ORIGINS)
  demo         Service + proxy + demo pages on one origin   [--port 5173] [--chain sandbox]

Environment: PORT, PAYLINK_CHAIN, PAYLINK_DATA_DIR, DATABASE_URL, PAYLINK_PUBLIC_URL.
`;

/** Why `serve` needs `--chain`: the chain decides whether money is real, so it is never implied. */
const CHAIN_REQUIRED = `serve needs --chain sandbox or --chain evm (or PAYLINK_CHAIN): the chain is never implied.
  sandbox  no real funds move: anyone can mark a session paid (POST …/simulate-payment). For tests and test mode.
  evm      a real EVM network through JSON-RPC (needs the PAYLINK_EVM_* settings).`;

type ChainName = 'sandbox' | 'evm';

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'public-url': { type: 'string' },
  name: { type: 'string' },
  upstream: { type: 'string' },
  chain: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function fail(message: string): never {
  process.stderr.write(`paylink: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`not a port number: ${value}`);
  return port;
}

/** The chain named by `--chain` or `PAYLINK_CHAIN`; `undefined` when neither is given. */
function chainName(value: string | undefined): ChainName | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'sandbox' || value === 'evm') return value;
  fail(`unknown chain: ${value} (expected sandbox or evm)`);
}

/**
 * The EVM chain adapter from DESIGN §7's settings. Not in this build yet: issue 12 replaces this
 * function with the real adapter (its settings come from `PAYLINK_EVM_*`).
 */
async function createEvmChainFromEnv(): Promise<ChainAdapter> {
  process.stderr.write('paylink: --chain evm is not available in this build yet; use --chain sandbox for now.\n');
  process.exit(2);
}

/** The adapter of the named chain. */
async function createChain(name: ChainName): Promise<ChainAdapter> {
  return name === 'evm' ? createEvmChainFromEnv() : createSandboxChain();
}

/** Stops `close` on SIGTERM/SIGINT once, draining in-flight requests first. */
function closeOnSignal(close: () => Promise<void>) {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`paylink: ${signal}, draining…\n`);
    close().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`paylink: error while stopping: ${error}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** What the CLI uses of the demo module (demo/server.ts). */
interface DemoModule {
  runDemo(
    options: { port: number; host?: string | undefined; dataDir?: string | undefined; databaseUrl?: string | undefined },
    onSignal: (close: () => Promise<void>) => void,
  ): Promise<void>;
}

/**
 * The demo sits beside src/ in the repository (demo/server.ts) and is compiled beside the library in
 * the package (lib/demo/server.js): one level up from lib/server/, two from src/server/.
 */
function loadDemo(): Promise<DemoModule> {
  const specifier = import.meta.url.endsWith('.ts') ? '../../demo/server.ts' : '../demo/server.js';
  return import(specifier) as Promise<DemoModule>;
}

async function main(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    fail((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, sub] = positionals;
  if (values.help || !command) {
    process.stdout.write(USAGE);
    return;
  }
  const databaseUrl = values['database-url'] ?? process.env.DATABASE_URL ?? undefined;
  const chain = chainName(values.chain ?? process.env.PAYLINK_CHAIN);
  const dataDir = values['data-dir'] ?? process.env.PAYLINK_DATA_DIR ?? '.paylink-data';

  switch (command) {
    case 'serve': {
      if (!chain) fail(CHAIN_REQUIRED);
      const service = await startService({
        chain: await createChain(chain),
        port: parsePort(values.port ?? process.env.PORT, 8787),
        host: values.host ?? '127.0.0.1',
        databaseUrl,
        dataDir,
        publicUrl: values['public-url'],
      });
      const storage = databaseUrl ? 'PostgreSQL' : `PGlite in ${dataDir}`;
      process.stdout.write(`paylink service listening on ${service.url} (${storage}, ${chain} chain)\n`);
      if (chain === 'sandbox') {
        process.stdout.write('Sandbox chain: no real funds move, and anyone can mark a session paid. For tests and test mode only.\n');
      }
      closeOnSignal(service.close);
      return;
    }
    case 'keys': {
      if (sub !== 'create') fail(`unknown keys command: ${sub ?? '(none)'}; try "paylink keys create"`);
      const db = await openDatabase({ databaseUrl, dataDir });
      try {
        const created = await db.transaction((tx) => createApiKey(tx, values.name === undefined ? {} : { name: values.name }));
        process.stderr.write(`integratorId ${created.integratorId}\nuserId ${created.userId}\n`);
        process.stdout.write(`${created.key}\n`);
      } finally {
        await db.close();
      }
      return;
    }
    case 'proxy': {
      const { runProxyCommand } = await import('./proxy/command.js');
      await runProxyCommand({ port: parsePort(values.port ?? process.env.PORT, 8788), host: values.host, upstream: values.upstream }, closeOnSignal);
      return;
    }
    case 'demo': {
      // The demo runs on the sandbox until the EVM chain lands (issue 12).
      if (chain === 'evm') await createEvmChainFromEnv();
      const { runDemo } = await loadDemo();
      await runDemo({ port: parsePort(values.port ?? process.env.PORT, 5173), host: values.host, dataDir: values['data-dir'] ?? process.env.PAYLINK_DATA_DIR, databaseUrl }, closeOnSignal);
      return;
    }
    default:
      fail(`unknown command: ${command}`);
  }
}

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`paylink: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
