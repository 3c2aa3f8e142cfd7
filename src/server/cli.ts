/**
 * The `paylink` command: serve, sweep, keys create, keys xpub, rates, proxy, demo.
 * Flags win over environment variables, which win over defaults. What it says goes through
 * `command-output.ts` (plain text at a terminal, JSON lines elsewhere); its servers log through `log.ts`.
 */
import { parseArgs } from 'node:util';
import { commandOutput } from './command-output.js';
import { LogFormatError, resolveLogFormat } from './log.js';
import { ChainSettingsError, ChainUnavailableError, type ChainFamily } from './chain/family.js';
import { CHAIN_FAMILIES, chainFamily, chainFamilyNames } from './chain/registry.js';
import type { ChainAdapter } from './chain/types.js';
import { commandHelp, startupProblem, type StartupContext } from './cli-help.js';
import { openDatabase } from './db/index.js';
import { createApiKey } from './service/keys/index.js';
import { describeRateSettings, RateConfigError, resolveRateSettings } from './service/rates/index.js';
import { startService } from './service/serve.js';

const USAGE = `Usage: paylink <command> [options]

Commands:
  serve        Run the service        --chain ${chainFamilyNames('|')} [--port 8787] [--host 127.0.0.1] [--data-dir .paylink-data] [--database-url URL]
  sweep        Move deposits' tokens to the hot wallet   --mnemonic-file F [--to ADDRESS] [--indexes 0-99,120] [--data-dir D | --database-url URL]
  keys create  Create an API key      [--data-dir D | --database-url URL] [--name N]
  keys xpub    The deposit xpub for PAYLINK_EVM_XPUB, and its first addresses   --mnemonic-file F
  rates        Each rate's last quoted value and the moves held   [--data-dir D | --database-url URL]
  rates accept Quote a held move of a pair (USDT/NGN, USD/NGN) now   <pair> [--data-dir D | --database-url URL]
  chain resume After a reorganization past finality halted payouts: reverse what it took back, resume   --network ID [--data-dir D | --database-url URL]
  proxy        Run the proxy          [--port 8788] --upstream URL   (env PAYLINK_API_KEY, PAYLINK_ADMIN_TOKEN, PAYLINK_ALLOWED_ORIGINS)
  demo         Service + proxy + demo pages on one origin   [--port 5173] [--chain evm|sandbox]

Environment: PORT, PAYLINK_CHAIN, PAYLINK_DATA_DIR, DATABASE_URL, PAYLINK_PUBLIC_URL.
Prices (serve): PAYLINK_RATES_SOURCES (coingecko,coinbase,kraken,exchangerate,static; required on --chain evm),
  PAYLINK_RATES_QUORUM, PAYLINK_RATES_MAX_SPREAD, PAYLINK_RATES_MAX_MOVE, PAYLINK_RATES_CONFIRM_S, PAYLINK_RATES_PEGS,
  PAYLINK_RATES_PEG_TOLERANCE, PAYLINK_RATES_REFRESH_S, PAYLINK_RATES_MAX_AGE_S, PAYLINK_RATES_<SOURCE>_URL, PAYLINK_RATES.
EVM chain (serve --chain evm, sweep): PAYLINK_EVM_RPC_URL, PAYLINK_EVM_CHAIN_ID, PAYLINK_EVM_NETWORK, PAYLINK_EVM_TOKENS,
  PAYLINK_EVM_CONFIRMATIONS, PAYLINK_EVM_XPUB, PAYLINK_EVM_PAYOUT_KEY_FILE (or PAYLINK_EVM_PAYOUT_KEY), PAYLINK_EVM_POLL_MS.
`;

/** Why `serve` needs `--chain`: the chain decides whether money is real, so it is never implied. */
function chainRequired(): string {
  const width = Math.max(...CHAIN_FAMILIES.map((family) => family.name.length)) + 2;
  const choices = CHAIN_FAMILIES.map((family) => `--chain ${family.name}`).join(' or ');
  const lines = CHAIN_FAMILIES.map((family) => `  ${family.name.padEnd(width)}${family.summary}`);
  return [`serve needs ${choices} (or PAYLINK_CHAIN): the chain is never implied.`, ...lines].join('\n');
}

const out = commandOutput();

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'public-url': { type: 'string' },
  name: { type: 'string' },
  upstream: { type: 'string' },
  chain: { type: 'string' },
  'mnemonic-file': { type: 'string' },
  to: { type: 'string' },
  indexes: { type: 'string' },
  network: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A command line that can't be run: the message (with the usage, at a terminal), exit 2. */
function fail(message: string): never {
  if (out.format === 'pretty') process.stderr.write(`paylink: ${message}\n\n${USAGE}`);
  else out.say('error', 'usage_error', message, { hint: 'paylink --help lists the commands and their options' });
  process.exit(2);
}

function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`not a port number: ${value}`);
  return port;
}

/** The chain family named by `--chain` or `PAYLINK_CHAIN`; `undefined` when neither is given. */
function chainName(value: string | undefined): ChainFamily | undefined {
  if (value === undefined || value === '') return undefined;
  const family = chainFamily(value);
  if (family) return family;
  fail(`unknown chain: ${value} (expected ${chainFamilyNames()})`);
}

/** Exits 2 with each problem of the settings on its own line(s). */
function refuse(problems: string[]): never {
  for (const problem of problems) out.say('error', 'config_invalid', `paylink: ${problem}`);
  process.exit(2);
}

/**
 * The adapter of the named family, once every setting `serve` reads is valid: the rates (on a family
 * of real money the sources must be named: never implied) and the family's own. A missing or bad
 * setting exits 2 with one line per problem (all of them, so that one run names everything to fix); a
 * node that is down is waited for (a line per try); a chain that cannot be used as configured (a node
 * of another chain id, a token that is no ERC-20 contract) exits 1 with the reason.
 */
async function createChain(family: ChainFamily): Promise<ChainAdapter> {
  let problems: string[] = [];
  try {
    resolveRateSettings({}, process.env, { requireExplicit: family.realMoney, realMoney: family.realMoney });
  } catch (error) {
    if (!(error instanceof RateConfigError)) throw error;
    problems = error.problems;
  }
  try {
    return await family.connect(process.env, { otherProblems: problems, say: (level, code, line) => out.say(level, code, `paylink: ${line}`) });
  } catch (error) {
    if (error instanceof ChainSettingsError) refuse([...error.problems]);
    if (!(error instanceof ChainUnavailableError)) throw error;
    out.say('error', error.code, `paylink: ${error.message}`);
    process.exit(1);
  }
}

/** Stops `close` on SIGTERM/SIGINT once, draining in-flight requests first. */
function closeOnSignal(close: () => Promise<void>) {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    out.say('info', 'signal_received', `paylink: ${signal}, draining…`, { signal });
    close().then(
      () => process.exit(0),
      (error) => {
        out.say('error', 'stop_failed', `paylink: error while stopping: ${error}`, { error });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * Runs a command of a real chain's settings (`sweep`, `chain`) and exits with its code: 2 with the usage
 * on a mistake on the command line, 2 with the reason on a bad `PAYLINK_EVM_*` setting.
 */
async function runEvmCommand(run: () => Promise<number>): Promise<void> {
  const { UsageError } = await import('./mnemonic-file.js');
  const { EvmConfigError } = await import('./chain/evm/config.js');
  try {
    process.exitCode = await run();
  } catch (error) {
    if (error instanceof UsageError) fail(error.message);
    if (error instanceof EvmConfigError) refuse([error.message]);
    throw error;
  }
}

/** What the CLI uses of the demo module (demo/server.ts). */
interface DemoModule {
  runDemo(
    options: { port: number; host?: string | undefined; dataDir?: string | undefined; databaseUrl?: string | undefined; chain?: string | undefined },
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
  try {
    resolveLogFormat();
  } catch (error) {
    if (error instanceof LogFormatError) fail(error.message);
    throw error;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    fail((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, sub] = positionals;
  if (values.help || !command) {
    process.stdout.write((values.help && commandHelp(positionals)) || USAGE);
    return;
  }
  const databaseUrl = values['database-url'] ?? process.env.DATABASE_URL ?? undefined;
  startup.databaseSetting = values['database-url'] !== undefined ? '--database-url' : 'DATABASE_URL';
  startup.host = values.host ?? '127.0.0.1';
  const chain = chainName(values.chain ?? process.env.PAYLINK_CHAIN);
  const dataDir = values['data-dir'] ?? process.env.PAYLINK_DATA_DIR ?? '.paylink-data';

  switch (command) {
    case 'serve': {
      if (!chain) fail(chainRequired());
      const adapter = await createChain(chain);
      const { ChainIdentityError } = await import('./service/money-in/index.js');
      const starting = startService({
        chain: adapter,
        port: (startup.port = parsePort(values.port ?? process.env.PORT, 8787)),
        host: values.host ?? '127.0.0.1',
        databaseUrl,
        dataDir,
        publicUrl: values['public-url'],
      }).catch(async (error: unknown) => {
        if (!(error instanceof ChainIdentityError)) throw error;
        // Another or a reset chain: refusing is the only safe answer, and the message says which and what to do.
        out.say('error', 'chain_identity_refused', `paylink: refusing to start: ${error.message}`);
        await adapter.close?.();
        process.exit(1);
      });
      // From now on, not once started: the service answers /healthz before startService resolves (it
      // still loads rates and starts its workers), and a SIGTERM in that window must drain, not kill.
      closeOnSignal(async () => {
        const started = await starting.catch(() => undefined);
        await started?.close();
        await adapter.close?.();
      });
      const service = await starting;
      const storage = databaseUrl ? 'PostgreSQL' : `PGlite in ${dataDir}`;
      out.print('service_listening', `paylink service listening on ${service.url} (${storage}, ${chain.name} chain)`, {
        url: service.url,
        storage: databaseUrl ? 'postgres' : 'pglite',
        chain: chain.name,
      });
      for (const line of chain.describe(adapter)) out.print(line.code, line.message, line.fields);
      out.print('rates_sources', describeRateSettings(service.rates.settings), { sources: service.rates.settings.sources.join(',') });
      if (service.metricsServer)
        out.print('metrics_listening', `Metrics at ${service.metricsServer.url} (loopback only)`, { metricsUrl: service.metricsServer.url });
      return;
    }
    case 'sweep': {
      const { runSweepCommand } = await import('./sweep-command.js');
      await runEvmCommand(() => runSweepCommand({ mnemonicFile: values['mnemonic-file'], to: values.to, indexes: values.indexes, databaseUrl, dataDir }));
      return;
    }
    case 'keys': {
      if (sub === 'xpub') {
        const { xpubReport } = await import('./keys-xpub-command.js');
        const { DEPOSIT_ACCOUNT_PATH } = await import('./chain/evm/addresses.js');
        const { UsageError } = await import('./mnemonic-file.js');
        try {
          const report = xpubReport(values['mnemonic-file']);
          if (out.format === 'pretty') process.stderr.write(`${report.lines.join('\n')}\n`);
          else {
            out.say('info', 'deposit_xpub', report.lines[0]!, { path: DEPOSIT_ACCOUNT_PATH });
            report.addresses.forEach((address, index) =>
              out.say('info', 'deposit_address', `deposit address ${DEPOSIT_ACCOUNT_PATH}/0/${index}`, { index, address }),
            );
            out.say('info', 'deposit_xpub_use', report.lines.at(-1)!);
          }
          process.stdout.write(`${report.xpub}\n`);
        } catch (error) {
          if (error instanceof UsageError) fail(error.message);
          throw error;
        }
        return;
      }
      if (sub !== 'create') fail(`unknown keys command: ${sub ?? '(none)'}; try "paylink keys create" or "paylink keys xpub"`);
      const db = await openDatabase({ databaseUrl, dataDir });
      try {
        const created = await db.transaction((tx) => createApiKey(tx, values.name === undefined ? {} : { name: values.name }));
        if (out.format === 'pretty') process.stderr.write(`integratorId ${created.integratorId}\nuserId ${created.userId}\n`);
        else
          out.say('info', 'api_key_created', 'API key created: it is the last line of stdout, and is shown only this once', {
            integratorId: created.integratorId,
            userId: created.userId,
          });
        process.stdout.write(`${created.key}\n`);
      } finally {
        await db.close();
      }
      return;
    }
    case 'rates': {
      const { parseRatesArgs, runRatesCommand, RatesUsageError } = await import('./service/rates/accept-command.js');
      try {
        parseRatesArgs(positionals.slice(1));
      } catch (error) {
        if (error instanceof RatesUsageError) fail(error.message);
        throw error;
      }
      const db = await openDatabase({ databaseUrl, dataDir });
      try {
        // Its table is the command's answer, as the key of `keys create` is: plain text on stdout in either format.
        process.stdout.write(`${(await runRatesCommand(db, positionals.slice(1))).join('\n')}\n`);
      } finally {
        await db.close();
      }
      return;
    }
    case 'chain': {
      const { runChainCommand } = await import('./chain-command.js');
      await runEvmCommand(() =>
        runChainCommand({
          action: sub,
          network: values.network,
          databaseUrl,
          dataDir,
          out: (line) => out.print('chain_resume_report', line, { network: values.network }),
          err: (line) => out.say('error', 'chain_resume_refused', line, { network: values.network }),
        }),
      );
      return;
    }
    case 'proxy': {
      const { runProxyCommand } = await import('./proxy/command.js');
      startup.port = parsePort(values.port ?? process.env.PORT, 8788);
      await runProxyCommand({ port: startup.port, host: values.host, upstream: values.upstream }, closeOnSignal);
      return;
    }
    case 'demo': {
      const { runDemo } = await loadDemo();
      await runDemo(
        {
          port: parsePort(values.port ?? process.env.PORT, 5173),
          host: values.host,
          dataDir: values['data-dir'] ?? process.env.PAYLINK_DATA_DIR,
          databaseUrl,
          chain: chain?.name,
        },
        closeOnSignal,
      );
      return;
    }
    default:
      fail(`unknown command: ${command}`);
  }
}

if (out.format === 'json') {
  // Node's own lines are JSON too: its warnings (printed as text by its default listener), and the
  // crash of an error nobody caught (a stack trace, otherwise), which exits 1 as Node would.
  process.removeAllListeners('warning');
  process.on('warning', (warning) => out.say('warn', 'node_warning', warning.message, { warning: warning.name }));
  process.on('uncaughtException', (error) => {
    out.say('error', 'uncaught_error', 'an error nobody caught: the process stops', { error });
    process.exit(1);
  });
}

/** What the running command named, for its one-line refusals (`startupProblem`). */
const startup: StartupContext = { databaseSetting: 'DATABASE_URL' };

main(process.argv.slice(2)).catch((error) => {
  const problem = startupProblem(error, startup);
  const message = `paylink: ${problem?.line ?? (error instanceof Error ? error.message : String(error))}`;
  if (out.format === 'pretty') process.stderr.write(`${message}\n`);
  // A setting or a port the command cannot use: one line that names it, no stack (nothing went wrong inside).
  else if (problem) out.say('error', 'startup_refused', message);
  else out.say('error', 'command_failed', message, { error });
  process.exit(problem?.exitCode ?? 1);
});
