/**
 * What the `paylink` command says beyond its general usage: each command's own `--help`, and the
 * one line that names what to change when a command cannot start (a database URL it cannot use, a
 * port in use), instead of Node's error or a stack.
 */
import { DatabaseSettingError } from './db/postgres.js';

const STORAGE = `Storage (default: PGlite in --data-dir):
  --data-dir DIR        PGlite data directory (env PAYLINK_DATA_DIR; default .paylink-data)
  --database-url URL    a PostgreSQL server instead, postgres://user:password@host:5432/database
                        (env DATABASE_URL; needs npm install pg)`;

/** Each command's `--help`, by its words (`keys create`). */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  serve: `Usage: paylink serve --chain sandbox|evm [options]

Runs the service: the API, the hosted checkout pages (/pay/<slug>), the script-tag bundles (/dist/).

Options:
  --chain sandbox|evm   required (env PAYLINK_CHAIN): the sandbox moves no real funds and lets anyone mark a
                        session paid; evm is a real EVM network (the PAYLINK_EVM_* settings, PAYLINK_RATES_SOURCES)
  --port N              port to listen on (env PORT; default 8787)
  --host ADDRESS        address to listen on (default 127.0.0.1)
  --public-url URL      where the hosted pages are reached (env PAYLINK_PUBLIC_URL; default http://<host>:<port>/pay)
${STORAGE}
  -h, --help            this help

Prices: PAYLINK_RATES_SOURCES (coingecko,coinbase,kraken,exchangerate,static; required on --chain evm),
  PAYLINK_RATES_QUORUM, PAYLINK_RATES_MAX_SPREAD, PAYLINK_RATES_MAX_MOVE, PAYLINK_RATES_CONFIRM_S, PAYLINK_RATES_PEGS,
  PAYLINK_RATES_PEG_TOLERANCE, PAYLINK_RATES_REFRESH_S, PAYLINK_RATES_MAX_AGE_S, PAYLINK_RATES_<SOURCE>_URL, PAYLINK_RATES.
EVM chain: PAYLINK_EVM_RPC_URL, PAYLINK_EVM_CHAIN_ID, PAYLINK_EVM_NETWORK, PAYLINK_EVM_TOKENS, PAYLINK_EVM_CONFIRMATIONS,
  PAYLINK_EVM_XPUB, PAYLINK_EVM_PAYOUT_KEY_FILE (or PAYLINK_EVM_PAYOUT_KEY), PAYLINK_EVM_POLL_MS; several networks:
  PAYLINK_EVM_NETWORKS=bsc,polygon and PAYLINK_EVM_<ID>_* (docs/configuration.md).
`,
  sweep: `Usage: paylink sweep --mnemonic-file FILE [options]

Moves the tokens that deposit addresses received to the hot wallet (or --to), topping up their gas from the
hot wallet. Idempotent and resumable; the mnemonic never leaves this process.

Options:
  --mnemonic-file FILE  the deposit wallet's BIP-39 words (required)
  --to ADDRESS          where the tokens go instead of the hot wallet
  --indexes LIST        which deposit indexes, e.g. 0-99,120 (default: every one that served a session)
${STORAGE}
  -h, --help            this help

EVM chain: the PAYLINK_EVM_* settings of serve.
`,
  keys: `Usage: paylink keys create [options]
       paylink keys xpub --mnemonic-file FILE

  keys create   creates an integrator API key; prints the key alone on the last line of stdout
  keys xpub     prints the deposit xpub for PAYLINK_EVM_XPUB, and its first addresses

paylink keys create --help and paylink keys xpub --help say more.
`,
  'keys create': `Usage: paylink keys create [options]

Creates an integrator API key and prints it alone on the last line of stdout (its integrator and user ids on
stderr). The key is stored hashed: keep it, it is not shown again.

Options:
  --name NAME           the merchant's display name on checkout pages
${STORAGE}
  -h, --help            this help
`,
  'keys xpub': `Usage: paylink keys xpub --mnemonic-file FILE

Prints the account-level extended public key (m/44'/60'/0') for PAYLINK_EVM_XPUB alone on stdout, and its
first deposit addresses on stderr. Never prints the words or a private key.

Options:
  --mnemonic-file FILE  the deposit wallet's BIP-39 words (required)
  -h, --help            this help
`,
  rates: `Usage: paylink rates [options]
       paylink rates accept PAIR [options]

  rates          prints each rate's last quoted value and the moves held, waiting to be confirmed
  rates accept   quotes a held move of PAIR (USD/NGN, USDT/USD, or USDT/NGN for both codes) now: after a
                 real devaluation, instead of waiting PAYLINK_RATES_CONFIRM_S; running instances take it
                 at their next refresh

Options:
${STORAGE}
  -h, --help            this help
`,
  chain: `Usage: paylink chain resume --network ID [options]

After a reorganization past finality halted a network's payouts (log code chain_finality_violated), and once
you have checked that the node serves the right chain: reverses every credit the chain no longer holds, records
a checkpoint on the current chain and resumes payouts on the network.

Options:
  --network ID          the network to resume (bsc, polygon, …; required)
${STORAGE}
  -h, --help            this help

EVM chain: the PAYLINK_EVM_* settings of serve.
`,
  proxy: `Usage: paylink proxy --upstream URL [options]

Runs the proxy that holds the API key: /paylink/checkout/* (public), /paylink/admin/* (behind the admin token),
/paylink/dist/* (the script-tag bundles).

Options:
  --upstream URL        the Paylink service (env PAYLINK_UPSTREAM), e.g. http://127.0.0.1:8787
  --port N              port to listen on (env PORT; default 8788)
  --host ADDRESS        address to listen on (default 127.0.0.1)
  -h, --help            this help

Environment: PAYLINK_API_KEY (required), PAYLINK_ADMIN_TOKEN (at least 32 characters), PAYLINK_ALLOWED_ORIGINS
  (comma list, or *), PAYLINK_PUBLIC_ORIGIN, PAYLINK_TRUST_PROXY, PAYLINK_RATE_LIMIT.
`,
  demo: `Usage: paylink demo [options]     (npm start)

Service + proxy + demo pages on one origin, seeded with a merchant and links, and prints the URLs.

Options:
  --chain evm|sandbox   evm (the default): a local anvil chain with test USDT and cNGN and a demo wallet;
                        sandbox: no chain at all (also where anvil is not installed)
  --port N              port to listen on (env PORT; default 5173)
  --host ADDRESS        address to listen on (default 127.0.0.1)
  --data-dir DIR        where the demo keeps its data (env PAYLINK_DATA_DIR)
  --database-url URL    sandbox only: PostgreSQL instead of PGlite (env DATABASE_URL)
  -h, --help            this help
`,
};

/** The help of the command named by `positionals` (`['keys', 'create']`), or undefined for none. */
export function commandHelp(positionals: readonly string[]): string | undefined {
  const [command, sub] = positionals;
  if (command === undefined) return undefined;
  return (sub !== undefined ? COMMAND_HELP[`${command} ${sub}`] : undefined) ?? COMMAND_HELP[command];
}

/** How a command names its settings in its one-line refusals. */
export interface StartupContext {
  /** `--database-url` when the flag gave the URL, else `DATABASE_URL`. */
  databaseSetting: string;
  /** The port a server was asked to listen on, and its host. */
  port?: number | undefined;
  host?: string | undefined;
}

/**
 * The one line (without `paylink: `) that says what to change when a command could not start
 * because of `error`, and the exit status (2 for a malformed setting, as for a bad flag; else 1), or
 * undefined when it is no setting's fault (it is then reported as it is).
 */
export function startupProblem(error: unknown, context: StartupContext): { line: string; exitCode: 1 | 2 } | undefined {
  if (error instanceof DatabaseSettingError) return { line: `${context.databaseSetting} ${error.problem}`, exitCode: error.kind === 'malformed' ? 2 : 1 };
  const { code } = (error ?? {}) as { code?: unknown };
  const where = `port ${context.port} on ${context.host ?? '127.0.0.1'}`;
  if (code === 'EADDRINUSE' && context.port !== undefined) {
    const next = context.port + 1;
    return { line: `${where} is already in use (another paylink running?): stop it, or pick another port with --port ${next} (or PORT=${next})`, exitCode: 1 };
  }
  if (code === 'EACCES' && context.port !== undefined)
    return { line: `${where} may not be used by this user (ports below 1024 need privileges): pick another with --port`, exitCode: 1 };
  return undefined;
}
