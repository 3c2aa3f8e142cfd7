/**
 * The `paylink` command as a newcomer uses it: `keys create` prints a key, `serve` starts the
 * service on that data, the key works with curl-like calls, and SIGTERM stops it cleanly.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { createPgliteDataDir } from '../support/pglite-template.js';
import { freePort } from '../support/postgres.js';
import { BIN, exited, ROOT, startHealthyProcess } from '../support/processes.js';
import { call, createPostgresDatabase, standardLinkBody } from '../support/service.js';

function runCli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
}

describe('paylink command', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('prints usage with --help and refuses an unknown command', () => {
    const help = runCli(['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /paylink <command>/);
    const unknown = runCli(['launch']);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown command: launch/);
  });

  it('keys xpub prints the deposit xpub alone on stdout and its first addresses, never the words', async () => {
    const { mnemonicToAccount } = await import('viem/accounts');
    const { ANVIL_MNEMONIC } = await import('../../src/server/chain/evm/anvil.js');
    const { depositAddresses } = await import('../../src/server/chain/evm/addresses.js');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-xpub-'));
    dirs.push(dir);
    const words = path.join(dir, 'deposit-words.txt');
    // As a merchant may save them: one word a line, a trailing newline.
    writeFileSync(words, `${ANVIL_MNEMONIC.split(' ').join('\n')}\n`, { mode: 0o600 });
    const run = runCli(['keys', 'xpub', '--mnemonic-file', words]);
    assert.equal(run.status, 0, run.stderr);
    const xpub = run.stdout.trim();
    assert.match(xpub, /^xpub[1-9A-HJ-NP-Za-km-z]{100,}$/, 'stdout is the xpub alone, ready for PAYLINK_EVM_XPUB=$(…)');
    // The addresses a wallet shows for these words (viem's own derivation) are the ones printed, in order.
    const expected = [0, 1, 2, 3, 4].map((n) => mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: n }).address);
    assert.deepEqual(
      expected.map((_, n) => depositAddresses(xpub).address(n)),
      expected,
      'the xpub derives the wallet’s addresses',
    );
    // Off a terminal, each line a JSON object; the addresses in their own fields.
    const lines = run.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { code: string; index?: number; address?: string; message: string });
    assert.deepEqual(
      lines.filter((line) => line.code === 'deposit_address').map((line) => line.address),
      expected,
    );
    assert.match(run.stderr, /m\/44'\/60'\/0'/);
    assert.match(run.stderr, /PAYLINK_EVM_XPUB/);
    // At a terminal (or PAYLINK_LOG_FORMAT=pretty), the same report as a table a person reads.
    const pretty = runCli(['keys', 'xpub', '--mnemonic-file', words], { PAYLINK_LOG_FORMAT: 'pretty' });
    assert.equal(pretty.stdout, run.stdout);
    const printed = [...pretty.stderr.matchAll(/^ {2}(\d) {2}(0x[0-9a-fA-F]{40})$/gm)].map((match) => match[2]);
    assert.deepEqual(printed, expected);
    for (const output of [run.stdout, run.stderr, pretty.stderr]) {
      assert.ok(!output.includes('junk') && !output.includes('test test'), 'never a word of the mnemonic');
      assert.ok(!/xprv/.test(output), 'never a private key');
    }

    const missing = runCli(['keys', 'xpub']);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /keys xpub needs --mnemonic-file FILE/);
    const wrong = path.join(dir, 'wrong.txt');
    writeFileSync(wrong, 'correct horse battery staple zebra nothing like bip39 words at all here\n');
    const bad = runCli(['keys', 'xpub', '--mnemonic-file', wrong]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /not a valid BIP-39 English phrase/);
    assert.ok(!bad.stderr.includes('horse') && bad.stdout === '', 'a bad phrase is not echoed either');
  });

  async function serveAndUse(storageArgs: string[]) {
    const created = runCli(['keys', 'create', '--name', 'CLI test', ...storageArgs]);
    assert.equal(created.status, 0, created.stderr);
    const key = created.stdout.trim().split('\n').at(-1)!;
    assert.match(key, /^pl_sk_[A-Za-z0-9]{32}$/, 'the key is alone on the last line of stdout');

    const { url, child } = await startHealthyProcess([BIN, 'serve', '--chain', 'sandbox', ...storageArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    try {
      const checkout = await call(url, 'GET', `/v1/checkout/${(await call(url, 'POST', '/v1/payment-link', { key, body: standardLinkBody() })).body.slug}`);
      assert.equal(checkout.body.sandbox, true, 'every checkout says sandbox');
      assert.match(stdout, /sandbox chain/i, 'serve says on start that it runs the sandbox');
      assert.match(stdout, /no real funds move/);
      assert.match(stdout, /Prices: the static table \(fixed figures, not market data\)\./, 'serve says where prices come from');
      const res = await call(url, 'POST', '/v1/payment-link', { key, body: standardLinkBody() });
      assert.equal(res.status, 201);
      assert.equal(res.body.url, `${url}/pay/${res.body.slug}`);
      const list = await call(url, 'GET', '/v1/payment-link', { key });
      assert.equal(list.body.meta.totalItems, 2);
      const page = await fetch(`${url}/pay/${res.body.slug}`);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /<title>Test order · Paylink<\/title>/);
      assert.match(html, /<paylink-checkout slug="[A-Za-z0-9]{10}"/);
      assert.match(page.headers.get('content-security-policy') ?? '', /require-trusted-types-for 'script'/);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited(child), 0, 'SIGTERM drains and exits 0');
    // Off a terminal, every line of both streams is one JSON object with its time, level, code and message.
    const lines = `${stdout}${stderr}`.trim().split('\n');
    for (const line of lines) {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      assert.match(String(parsed.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, line);
      assert.ok(['info', 'warn', 'error'].includes(String(parsed.level)), line);
      assert.match(String(parsed.code), /^[a-z][a-z0-9_]*$/, line);
      assert.equal(typeof parsed.message, 'string', line);
    }
    const codes = lines.map((line) => (JSON.parse(line) as { code: string }).code);
    for (const code of ['service_listening', 'sandbox_chain', 'rates_sources', 'signal_received', 'service_draining', 'service_stopped'])
      assert.ok(codes.includes(code), `${code} in ${codes.join(', ')}`);
  }

  it('keys create + serve on a PGlite data directory', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-cli-'));
    dirs.push(dir);
    await serveAndUse(['--data-dir', dir]);
  });

  it('writes readable lines, not JSON, with PAYLINK_LOG_FORMAT=pretty (as at a terminal), and refuses another format', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-cli-'));
    dirs.push(dir);
    const { child } = await startHealthyProcess([BIN, 'serve', '--chain', 'sandbox', '--data-dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PAYLINK_LOG_FORMAT: 'pretty' },
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.kill('SIGTERM');
    assert.equal(await exited(child), 0);
    assert.match(output, /^paylink service listening on http:\/\/127\.0\.0\.1:\d+ \(PGlite in /m, 'the banner as a person reads it');
    assert.match(output, /^\d\d:\d\d:\d\d INFO {2}service_draining: stopping/m, 'an event: its time, level, code and message');
    assert.ok(!output.split('\n').some((line) => line.startsWith('{')), 'no JSON line');
    const refused = runCli(['serve', '--chain', 'sandbox'], { PAYLINK_LOG_FORMAT: 'xml' });
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /PAYLINK_LOG_FORMAT must be json or pretty; got xml/);
  });

  it('keys create + serve on PostgreSQL with --database-url', { skip: !process.env.PAYLINK_TEST_DATABASE_URL }, async () => {
    const database = await createPostgresDatabase();
    try {
      await serveAndUse(['--database-url', database.url]);
    } finally {
      await database.drop();
    }
  });

  it('prints each command’s own options with --help', () => {
    const general = runCli(['--help']).stdout;
    for (const [args, own] of [
      [['serve'], /--chain sandbox\|evm[\s\S]*--public-url URL[\s\S]*--database-url URL/],
      [['sweep'], /--mnemonic-file FILE[\s\S]*--indexes LIST/],
      [['keys'], /keys create[\s\S]*keys xpub/],
      [['keys', 'create'], /--name NAME[\s\S]*--data-dir DIR/],
      [['keys', 'xpub'], /m\/44'\/60'\/0'/],
      [['proxy'], /--upstream URL[\s\S]*PAYLINK_API_KEY/],
      [['demo'], /--chain evm\|sandbox[\s\S]*--port N/],
      [['rates'], /rates accept[\s\S]*--database-url URL/],
      [['chain'], /--network ID[\s\S]*--data-dir DIR/],
    ] as const) {
      for (const help of ['--help', '-h']) {
        const res = runCli([...args, help]);
        assert.equal(res.status, 0, args.join(' '));
        assert.match(res.stdout, new RegExp(`^Usage: paylink ${args.join(' ')}`), args.join(' '));
        assert.match(res.stdout, own, args.join(' '));
        assert.notEqual(res.stdout, general);
      }
    }
  });

  /**
   * The one line a command printed on stderr (failing when there are more, or a stack), besides the
   * repository's own notice that src/ is newer than lib/ (bin/paylink.mjs, in a clone only). Off a
   * terminal, as here, it is a JSON line: its message is what a terminal shows, and it holds no stack.
   */
  const oneLine = (stderr: string) => {
    const lines = stderr
      .trimEnd()
      .split('\n')
      .filter((line) => !line.includes('src/ changed since lib/ was built'));
    assert.equal(lines.length, 1, `one line, no stack:\n${stderr}`);
    const line = JSON.parse(lines[0]!) as { level: string; code: string; message: string; error?: unknown };
    assert.equal(line.level, 'error', lines[0]);
    assert.equal(line.code, 'startup_refused', lines[0]);
    assert.equal(line.error, undefined, 'no stack');
    return line.message;
  };

  it('says in one line, naming the setting, that a database URL cannot be used', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-cli-'));
    dirs.push(dir);
    const closed = await freePort();
    const cases: Array<[string[], Record<string, string>, number, RegExp]> = [
      [
        ['serve', '--chain', 'sandbox'],
        { DATABASE_URL: 'notaurl' },
        2,
        /^paylink: DATABASE_URL is not a PostgreSQL connection URL: write it as postgres:\/\/user:password@host:5432\/database$/,
      ],
      [
        ['keys', 'create', '--database-url', 'mysql://shop:pw@127.0.0.1:3306/shop'],
        {},
        2,
        /^paylink: --database-url names a mysql:\/\/ database: Paylink stores its data in PostgreSQL only/,
      ],
      [
        ['serve', '--chain', 'sandbox'],
        { DATABASE_URL: `postgres://shop:hunter2@127.0.0.1:${closed}/shop` },
        1,
        new RegExp(
          `^paylink: DATABASE_URL points at 127\\.0\\.0\\.1:${closed}, which could not be reached \\(the connection was refused\\): check its host and port`,
        ),
      ],
    ];
    for (const [args, env, status, line] of cases) {
      const res = runCli(args, env);
      assert.equal(res.status, status, res.stderr);
      assert.match(oneLine(res.stderr), line);
      assert.doesNotMatch(res.stderr, /hunter2/, 'never the password');
    }
    // Without the PostgreSQL driver (an optional peer, as in a package installed without it).
    const noPg = path.join(dir, 'no-pg.mjs');
    writeFileSync(
      noPg,
      `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(
        'export async function resolve(specifier, context, next) { if (specifier === "pg") throw Object.assign(new Error("Cannot find package \'pg\'"), { code: "ERR_MODULE_NOT_FOUND" }); return next(specifier, context); }',
      )}));\n`,
    );
    const res = spawnSync(process.execPath, ['--import', noPg, BIN, 'keys', 'create'], {
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: `postgres://shop@127.0.0.1:${closed}/shop` },
      timeout: 60_000,
    });
    assert.equal(res.status, 1, res.stderr);
    assert.match(oneLine(res.stderr), /^paylink: DATABASE_URL is set, but the PostgreSQL driver is not installed: run npm install pg/);
  });

  it('says in one line that a port is in use, and how to pick another', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-cli-'));
    dirs.push(dir);
    await createPgliteDataDir(dir);
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
    const port = (busy.address() as AddressInfo).port;
    try {
      const serve = runCli(['serve', '--chain', 'sandbox', '--port', String(port), '--data-dir', dir]);
      assert.equal(serve.status, 1);
      assert.match(
        oneLine(serve.stderr),
        new RegExp(`^paylink: port ${port} on 127\\.0\\.0\\.1 is already in use .*--port ${port + 1} \\(or PORT=${port + 1}\\)$`),
      );
      const proxy = runCli(['proxy', '--upstream', 'http://127.0.0.1:9', '--port', String(port)], { PAYLINK_API_KEY: 'pl_sk_test' });
      assert.equal(proxy.status, 1);
      assert.match(oneLine(proxy.stderr), new RegExp(`^paylink: port ${port} on 127\\.0\\.0\\.1 is already in use`));
    } finally {
      busy.close();
    }
  });

  it('npx paylink inside the repository runs its command as built, without building the repository again', () => {
    const built = ['lib/.tsbuildinfo', 'dist/manifest.json'].map((file) => path.join(ROOT, file));
    const before = built.map((file) => statSync(file).mtimeMs);
    // A new npm cache: npx links the repository into it afresh, and runs its prepare script, as on a first npx.
    const cache = mkdtempSync(path.join(os.tmpdir(), 'paylink-npx-'));
    dirs.push(cache);
    const npx = spawnSync(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['paylink', 'keys', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, npm_config_cache: cache, npm_config_yes: 'true' },
      timeout: 120_000,
    });
    assert.equal(npx.status, 0, npx.stderr);
    assert.match(npx.stdout, /^Usage: paylink keys create/);
    assert.deepEqual(
      built.map((file) => statSync(file).mtimeMs),
      before,
      'lib/ and dist/ were not built again',
    );
  });

  it('refuses a bad port with a clear message', () => {
    const res = runCli(['serve', '--chain', 'sandbox', '--port', 'eighty']);
    assert.equal(res.status, 2);
    assert.match(res.stderr, /not a port number: eighty/);
  });

  it('serve never implies a chain: without --chain or PAYLINK_CHAIN it refuses and says why', () => {
    const res = runCli(['serve', '--port', '0'], { PAYLINK_CHAIN: '' });
    assert.equal(res.status, 2);
    assert.match(res.stderr, /serve needs --chain sandbox or --chain evm \(or PAYLINK_CHAIN\)/);
    assert.match(res.stderr, /anyone can mark a session paid/, 'it says what the sandbox means');
    const unknown = runCli(['serve', '--chain', 'mainnet']);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown chain: mainnet \(expected sandbox or evm\)/);
  });

  // The EVM chain landed: without its settings, --chain evm names every one that is missing.
  it('--chain evm (or PAYLINK_CHAIN=evm) without the PAYLINK_EVM_* settings refuses and names them', () => {
    const unset = Object.fromEntries(
      Object.keys(process.env)
        .filter((name) => name.startsWith('PAYLINK_EVM_'))
        .map((name) => [name, '']),
    );
    for (const [args, env] of [
      [['serve', '--chain', 'evm'], {}],
      [['serve'], { PAYLINK_CHAIN: 'evm' }],
    ] as const) {
      const res = runCli([...args], { ...unset, ...env });
      assert.equal(res.status, 2, args.join(' '));
      assert.match(res.stderr, /The EVM chain is not configured correctly/);
      for (const name of ['PAYLINK_EVM_RPC_URL', 'PAYLINK_EVM_CHAIN_ID', 'PAYLINK_EVM_TOKENS', 'PAYLINK_EVM_XPUB', 'PAYLINK_EVM_PAYOUT_KEY_FILE'])
        assert.match(res.stderr, new RegExp(name));
    }
  });

  it('serve --chain evm never implies its prices: without PAYLINK_RATES_SOURCES it refuses, says why, and asks no node', async () => {
    const { DEPOSIT_XPUB } = await import('../support/anvil.js');
    const unset = Object.fromEntries(
      Object.keys(process.env)
        .filter((name) => /^PAYLINK_(EVM|RATES)/.test(name))
        .map((name) => [name, '']),
    );
    const chain = {
      // Complete and valid, so that the refusal is the prices' alone: the node at port 9 is never asked.
      PAYLINK_EVM_RPC_URL: 'http://127.0.0.1:9',
      PAYLINK_EVM_CHAIN_ID: '56',
      PAYLINK_EVM_TOKENS: 'USDT=0x55d398326f99059ff775485246999027b3197955',
      PAYLINK_EVM_XPUB: DEPOSIT_XPUB,
      PAYLINK_EVM_PAYOUT_KEY: `0x${'ab'.repeat(32)}`,
    };
    const res = runCli(['serve', '--chain', 'evm', '--port', '0'], { ...unset, ...chain });
    assert.equal(res.status, 2, res.stderr);
    assert.match(res.stderr, /PAYLINK_RATES_SOURCES is not set: on a real chain the price a customer pays comes from it, so it is never implied/);
    assert.match(res.stderr, /set PAYLINK_RATES_SOURCES=static to quote with it on purpose/, 'the table only when said');
    assert.doesNotMatch(res.stderr, /waiting for the EVM node|The EVM chain is not configured/);
    // Nothing configured at all: one run names the prices and the chain's settings together.
    const bare = runCli(['serve', '--chain', 'evm'], unset);
    assert.equal(bare.status, 2);
    assert.match(bare.stderr, /PAYLINK_RATES_SOURCES is not set/);
    assert.match(bare.stderr, /PAYLINK_EVM_RPC_URL/);
    // A source that does not exist is refused on the sandbox too.
    const unknown = runCli(['serve', '--chain', 'sandbox', '--port', '0'], { PAYLINK_RATES_SOURCES: 'coingecko,oracle' });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /PAYLINK_RATES_SOURCES: unknown source oracle \(expected coingecko, coinbase, kraken, exchangerate, static\)/);
  });

  it('PAYLINK_CHAIN=sandbox starts the service like --chain sandbox', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-cli-'));
    dirs.push(dir);
    // A directory made from the migrated template: a new one is the test above's subject, the variable this one's.
    await createPgliteDataDir(dir);
    const { url, child } = await startHealthyProcess([BIN, 'serve', '--data-dir', dir], { env: { PAYLINK_CHAIN: 'sandbox' } });
    try {
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });
});

describe('hosted checkout page', () => {
  it('escapes the link title in the page and its preview metadata', async () => {
    const { startTestService } = await import('../support/service.js');
    const t = await startTestService('pglite');
    try {
      const key = (await t.newKey()).key;
      const title = '<img src=x onerror=alert(1)> "quoted"';
      const link = (await call(t.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody({ title }) })).body;
      const html = await (await fetch(`${t.url}/pay/${link.slug}`)).text();
      assert.ok(!html.includes('<img src=x'), 'no markup from the title');
      assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt; &quot;quoted&quot;/);
      const missing = await fetch(`${t.url}/pay/NoSuchLink`);
      assert.equal(missing.status, 404);
      assert.match(await missing.text(), /Payment link not found/);
    } finally {
      await t.close();
    }
  });
});
