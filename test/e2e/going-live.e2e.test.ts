/**
 * The go-live rehearsal of docs/going-live.md, run as written: every `sh` block of its first part, in
 * order, in one bash (so variables and the background `serve` carry from block to block, as in a
 * reader's terminal), in a fresh folder where `paylink` is installed. The only things changed are the
 * reader's own values, the `<…>` placeholders of the settings block: a local anvil chain with BNB Smart
 * Chain Testnet's chain id (97) and one block a second, a test token standing in for USDT, a free port.
 * Prices come from local stand-ins for CoinGecko and Coinbase (their documented answers at their
 * documented paths). Between blocks the test does what the guide asks of the reader's wallets: fund the
 * hot wallet after the service starts, and pay the amount the session asks. Then the chain itself says
 * it worked: the withdrawal's tokens reached the reader's address and the sweep emptied the deposit
 * address. A block that fails (bash runs with `set -e`), a placeholder left in a block, or a step that
 * never finishes fails the test with the whole terminal's output. Needs lib/ built (`npm run build`).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseUnits, type Address } from 'viem';
import { DEPOSIT_MNEMONIC, startTestChain, type TestChain } from '../support/anvil.js';
import { freePort } from '../support/postgres.js';
import { ROOT } from '../support/processes.js';
import { until } from '../support/wait.js';
import { coinbaseBody, coingeckoBody, startCoinbase, startCoingecko, type FakeProvider } from '../support/rate-providers.js';

const GUIDE = path.join(ROOT, 'docs', 'going-live.md');
const DECIMALS = 6;

interface Block {
  heading: string;
  code: string;
}

/** The `sh` blocks of the guide's rehearsal (its first `##` part), each with the `###` heading above it. */
function rehearsalBlocks(markdown: string): Block[] {
  const part = markdown.split(/^## /m).find((section) => section.startsWith('1. Rehearse'));
  assert.ok(part, 'the guide has a "1. Rehearse" part');
  const blocks: Block[] = [];
  let heading = '';
  const lines = part.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('### ')) heading = line.slice(4).trim();
    if (line.trim() === '```sh') {
      const code: string[] = [];
      for (i++; lines[i]!.trim() !== '```'; i++) code.push(lines[i]!);
      blocks.push({ heading, code: code.join('\n') });
    }
  }
  return blocks;
}

/** One bash for the whole rehearsal, as a reader's terminal: `run` feeds it a block and waits for it to end. */
function terminal(cwd: string, env: NodeJS.ProcessEnv) {
  const bash: ChildProcess = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let output = '';
  bash.stdout!.on('data', (chunk) => (output += chunk));
  bash.stderr!.on('data', (chunk) => (output += chunk));
  bash.stdin!.write('set -e\n');
  let step = 0;
  return {
    output: () => output,
    async run(block: Block, timeoutMs: number): Promise<void> {
      const marker = `--- block ${++step} done ---`;
      // What the blocks wrote to files (an error's body, with curl --fail-with-body), for a failure's message.
      const files = () =>
        readdirSync(cwd)
          .filter((name) => name.endsWith('.json') && name !== 'package.json')
          .map((name) => `${name}: ${readFileSync(path.join(cwd, name), 'utf8')}`)
          .join('\n');
      const started = Date.now();
      output += `\n$ # ${block.heading}\n`;
      bash.stdin!.write(`${block.code}\necho '${marker}'\n`);
      await until(
        () => {
          if (bash.exitCode !== null) throw new Error(`the "${block.heading}" block failed (bash exited ${bash.exitCode}):\n${output}\n${files()}`);
          return output.includes(marker);
        },
        `the "${block.heading}" block to finish`,
        timeoutMs,
        { everyMs: 100, explain: () => output },
      );
      output += `(${((Date.now() - started) / 1000).toFixed(1)} s)\n`;
    },
    /** Ends the shell and everything it started (the background service included). */
    stop(): void {
      // The whole group, even when bash itself has exited: a failed block leaves the background service running.
      if (!bash.pid) return;
      try {
        process.kill(-bash.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    },
  };
}

describe('docs/going-live.md: the testnet rehearsal, run as written', { timeout: 600_000 }, () => {
  let chain: TestChain;
  let coingecko: FakeProvider;
  let coinbase: FakeProvider;
  let work: string;
  let shell: ReturnType<typeof terminal> | undefined;

  before(async () => {
    // BNB Smart Chain Testnet's own `finalized` tag trails the head by a few blocks; anvil's trails by
    // twice its epoch (64 blocks by default), so the stand-in gets a 2-slot epoch: final 4 blocks back.
    chain = await startTestChain({ chainId: 97, blockTime: 1, extraArgs: ['--slots-in-an-epoch', '2'] });
    coingecko = await startCoingecko();
    coinbase = await startCoinbase();
    coingecko.answer = coingeckoBody({ tether: { usd: '1.0004', ngn: '1612.4' } });
    coinbase.answer = coinbaseBody({ USDT: '0.9998', NGN: '1611.8' });
    work = mkdtempSync(path.join(os.tmpdir(), 'paylink-going-live-'));
  });

  after(async () => {
    shell?.stop();
    await Promise.all([chain?.stop(), coingecko?.close(), coinbase?.close()]);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('keys xpub → serve with market rates → pay → withdraw → sweep, on chain id 97', async () => {
    const token = await chain.deployToken({ name: 'Test Tether', symbol: 'USDT', decimals: DECIMALS });
    const hotWallet = chain.accounts[1]!;
    const customer = chain.accounts[2]!;
    const mine = `0x${'5e'.repeat(20)}` as Address;
    const port = await freePort();

    // What the reader prepares by hand: a folder with paylink installed, the words and the hot wallet's key.
    writeFileSync(path.join(work, 'package.json'), '{"name": "my-shop", "private": true}\n');
    mkdirSync(path.join(work, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(path.join(ROOT, 'bin', 'paylink.mjs'), path.join(work, 'node_modules', '.bin', 'paylink'));
    writeFileSync(path.join(work, 'testnet-words.txt'), `${DEPOSIT_MNEMONIC}\n`, { mode: 0o600 });
    writeFileSync(path.join(work, 'testnet-hot-wallet.key'), `${chain.devKey(1)}\n`, { mode: 0o600 });

    const blocks = rehearsalBlocks(readFileSync(GUIDE, 'utf8'));
    assert.deepEqual(
      [...new Set(blocks.map((b) => b.heading))],
      ['Settings', 'The deposit xpub and an API key', 'Start the service', 'A payment', 'A withdrawal', 'Sweep'],
      'the rehearsal keeps its steps',
    );
    const values: Record<string, string> = {
      '<a-bsc-testnet-node>': chain.url,
      '<your-testnet-token>': token,
      '<an-address-of-yours>': mine,
    };
    const settings = blocks[0]!;
    for (const placeholder of Object.keys(values)) assert.ok(settings.code.includes(placeholder), `the settings ask for ${placeholder}`);
    settings.code = settings.code.replace(/<[^>\s]+>/g, (placeholder) => values[placeholder] ?? placeholder).replaceAll('8787', String(port));
    for (const block of blocks) assert.doesNotMatch(block.code, /<[^>\s]+>/, `no placeholder is left for the reader in "${block.heading}"`);

    shell = terminal(work, {
      ...process.env,
      // The price sources' stand-ins, and a faster poll than a real chain needs: all outside the guide.
      PAYLINK_RATES_COINGECKO_URL: coingecko.url,
      PAYLINK_RATES_COINBASE_URL: coinbase.url,
      PAYLINK_EVM_POLL_MS: '250',
      // The reader's terminal: the commands write readable lines there, not JSON.
      PAYLINK_LOG_FORMAT: 'pretty',
    });

    let paid = false;
    for (const block of blocks) {
      await shell.run(block, 180_000);
      if (block.heading === 'Start the service') {
        // The reader funds the hot wallet (it has gas already: an anvil dev account).
        await chain.mine();
        await chain.mint(token, hotWallet, parseUnits('10', DECIMALS));
      }
      if (block.heading === 'A payment' && !paid) {
        // The reader's customer pays what the session asks, where it asks.
        const session = JSON.parse(readFileSync(path.join(work, 'session.json'), 'utf8')) as { payAddress: Address; cryptoAmount: string; rateSource: string };
        assert.equal(session.rateSource, 'coingecko+coinbase', 'the session is priced at market rates');
        const units = parseUnits(session.cryptoAmount, DECIMALS);
        await chain.mint(token, customer, units);
        await chain.sendToken(customer, token, session.payAddress, units);
        paid = true;
      }
    }

    const terminalOutput = shell.output();
    assert.match(terminalOutput, /^paid\b/m, 'the session went paid');
    assert.match(terminalOutput, /^success 0x[0-9a-f]{64}/m, 'the withdrawal succeeded with a transaction');
    assert.match(
      terminalOutput,
      /pay 1\.99\d+ USDT to 0x[0-9a-fA-F]{40} \(rate 0\.9997\d*, coingecko\+coinbase\)/,
      'the session names its amount at the median market rate',
    );
    assert.match(
      terminalOutput,
      /moved 1\.99\d+ USDT\.\n[^\n]*\nDone: 1 checked, 0 held tokens; moved nothing\./,
      'the first sweep moved the payment, the second nothing',
    );

    const session = JSON.parse(readFileSync(path.join(work, 'session.json'), 'utf8')) as { payAddress: Address };
    const balanceOf = (owner: Address) =>
      chain.client.readContract({
        address: token,
        abi: [{ type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'a', type: 'address' }], outputs: [{ type: 'uint256' }] }],
        functionName: 'balanceOf',
        args: [owner],
      });
    assert.equal(await balanceOf(mine), parseUnits('1.5', DECIMALS), 'the withdrawal reached the reader');
    assert.equal(await balanceOf(session.payAddress), 0n, 'the sweep emptied the deposit address');
    assert.ok((await balanceOf(hotWallet)) > parseUnits('10', DECIMALS) - parseUnits('1.5', DECIMALS), 'the sweep moved the payment to the hot wallet');
  });
});
