/**
 * The EVM chain's settings: an operator who gets one wrong must read which variable
 * and why, for every mistake at once, and a private key must never be echoed back.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { after, describe, it } from 'node:test';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { EvmConfigError, parseEvmConfig, parseEvmNetworks } from '../../../../src/server/chain/evm/config.js';
import { DEPOSIT_MNEMONIC, DEPOSIT_XPUB } from '../../../support/anvil.js';

const USDT = '0x55d398326f99059fF775485246999027B3197955';
const CNGN = '0xa8AEA66B361a8d53e8865c62D142167Af28Af058';
const KEY = `0x${'4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'}`;

const valid = {
  PAYLINK_EVM_RPC_URL: 'https://bsc-dataseed.example/key123',
  PAYLINK_EVM_CHAIN_ID: '56',
  PAYLINK_EVM_TOKENS: `USDT=${USDT},CNGN=${CNGN}`,
  PAYLINK_EVM_XPUB: DEPOSIT_XPUB,
  PAYLINK_EVM_PAYOUT_KEY: KEY,
};

/** The problems `env` is refused for, as {setting: message}. */
function problemsOf(env: Record<string, string | undefined>, needs?: Parameters<typeof parseEvmConfig>[1]) {
  try {
    parseEvmConfig(env, needs);
  } catch (error) {
    assert.ok(error instanceof EvmConfigError, String(error));
    return error.problems;
  }
  assert.fail('the configuration was accepted');
}

describe('parseEvmConfig', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-evm-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a complete configuration, with the documented defaults and the known name and explorer of its chain id', () => {
    const config = parseEvmConfig(valid);
    assert.equal(config.rpcUrl, valid.PAYLINK_EVM_RPC_URL);
    assert.equal(config.chainId, 56);
    assert.equal(config.network, 'bsc');
    assert.equal(config.networkName, 'BNB Smart Chain');
    assert.equal(config.explorerUrl, 'https://bscscan.com');
    assert.deepEqual(config.tokens, { USDT, CNGN });
    assert.equal(config.confirmations, 3);
    assert.equal(config.pollMs, 1000);
    assert.equal(config.xpub, DEPOSIT_XPUB);
    assert.equal(config.payoutKey?.reveal(), KEY);
    assert.deepEqual(config.warnings, []);
  });

  it('knows the BSC testnet and a local chain, and gives an unknown chain no explorer', () => {
    assert.deepEqual(
      [97, 31337, 1].map((id) => {
        const config = parseEvmConfig({ ...valid, PAYLINK_EVM_CHAIN_ID: String(id) });
        return [config.networkName, config.explorerUrl];
      }),
      [
        ['BNB Smart Chain Testnet', 'https://testnet.bscscan.com'],
        ['Local chain', undefined],
        ['BNB Smart Chain', undefined],
      ],
    );
  });

  it('takes every setting from the environment: network, confirmations, poll interval, ws URL, lower-case asset names, key without 0x', () => {
    const config = parseEvmConfig({
      ...valid,
      PAYLINK_EVM_RPC_URL: 'wss://node.example/ws',
      PAYLINK_EVM_NETWORK: 'BSC-Testnet',
      PAYLINK_EVM_TOKENS: ` usdt = ${USDT.toLowerCase()} `,
      PAYLINK_EVM_CONFIRMATIONS: '12',
      PAYLINK_EVM_POLL_MS: '250',
      PAYLINK_EVM_PAYOUT_KEY: KEY.slice(2).toUpperCase(),
    });
    assert.equal(config.rpcUrl, 'wss://node.example/ws');
    assert.equal(config.network, 'bsc-testnet');
    assert.deepEqual(config.tokens, { USDT }, 'addresses come back EIP-55');
    assert.equal(config.confirmations, 12);
    assert.equal(config.pollMs, 250);
    assert.equal(config.payoutKey?.reveal(), KEY);
  });

  it("waits 5 minutes by default before a proof that a payout's nonce went elsewhere is believed, and takes another wait", () => {
    assert.equal(parseEvmConfig(valid).replaceAfterMs, 300_000);
    assert.equal(parseEvmConfig({ ...valid, PAYLINK_EVM_REPLACE_CONFIRM_MS: '60000' }).replaceAfterMs, 60_000);
  });

  it('reconciles every 300 s by default with 500 balanceOf calls per Multicall3 call; each network may take its own', () => {
    assert.deepEqual([parseEvmConfig(valid).reconcileMs, parseEvmConfig(valid).reconcileBatch], [300_000, 500]);
    const config = parseEvmConfig({ ...valid, PAYLINK_EVM_RECONCILE_S: '60', PAYLINK_EVM_RECONCILE_BATCH: '100' });
    assert.deepEqual([config.reconcileMs, config.reconcileBatch], [60_000, 100]);
    const network = (id: string) => ({
      [`PAYLINK_EVM_${id}_RPC_URL`]: valid.PAYLINK_EVM_RPC_URL,
      [`PAYLINK_EVM_${id}_CHAIN_ID`]: id === 'BSC' ? '56' : '137',
      [`PAYLINK_EVM_${id}_TOKENS`]: valid.PAYLINK_EVM_TOKENS,
    });
    const [bsc, polygon] = parseEvmNetworks({
      PAYLINK_EVM_NETWORKS: 'bsc,polygon',
      ...network('BSC'),
      ...network('POLYGON'),
      PAYLINK_EVM_XPUB: valid.PAYLINK_EVM_XPUB,
      PAYLINK_EVM_PAYOUT_KEY: valid.PAYLINK_EVM_PAYOUT_KEY,
      PAYLINK_EVM_RECONCILE_S: '120',
      PAYLINK_EVM_POLYGON_RECONCILE_S: '30',
    });
    assert.deepEqual([bsc!.reconcileMs, polygon!.reconcileMs], [120_000, 30_000], 'a network of its own, else the setting of every network');
  });

  it("keeps gas money for 20 transfers at the current fee unless told how much (in the network's coin), and holds the books against the chain every 300 s unless told", () => {
    const plain = parseEvmConfig(valid);
    assert.equal(plain.minGas, undefined);
    assert.equal(plain.reconcileMs, 300_000);
    assert.deepEqual(plain.nativeCurrency, { symbol: 'BNB', decimals: 18 });
    const set = parseEvmConfig({ ...valid, PAYLINK_EVM_MIN_GAS: '0.05', PAYLINK_EVM_RECONCILE_S: '60' });
    assert.equal(set.minGas, 50_000_000_000_000_000n);
    for (const inWei of ['50000000000000000wei', '50000000 gwei', '50000000000000000'])
      assert.equal(parseEvmConfig({ ...valid, PAYLINK_EVM_MIN_GAS: inWei }).minGas, 50_000_000_000_000_000n, inWei);
    assert.equal(set.reconcileMs, 60_000);
    const networks = parseEvmNetworks({
      ...valid,
      PAYLINK_EVM_NETWORKS: 'bsc,polygon',
      PAYLINK_EVM_BSC_RPC_URL: valid.PAYLINK_EVM_RPC_URL,
      PAYLINK_EVM_BSC_TOKENS: valid.PAYLINK_EVM_TOKENS,
      PAYLINK_EVM_BSC_MIN_GAS: '2',
      PAYLINK_EVM_POLYGON_RPC_URL: valid.PAYLINK_EVM_RPC_URL,
      PAYLINK_EVM_POLYGON_TOKENS: valid.PAYLINK_EVM_TOKENS,
      PAYLINK_EVM_RECONCILE_S: '30',
    });
    assert.deepEqual(
      networks.map((config) => [config.network, config.minGas, config.reconcileMs, config.nativeCurrency.symbol]),
      [
        ['bsc', 2_000_000_000_000_000_000n, 30_000],
        ['polygon', undefined, 30_000],
      ].map(([network, minGas, ms], i) => [network, minGas, ms, i === 0 ? 'BNB' : 'POL']),
    );
  });

  it('names every missing setting at once', () => {
    const problems = problemsOf({});
    assert.deepEqual(
      problems.map((p) => p.setting),
      ['PAYLINK_EVM_RPC_URL', 'PAYLINK_EVM_CHAIN_ID', 'PAYLINK_EVM_TOKENS', 'PAYLINK_EVM_XPUB', 'PAYLINK_EVM_PAYOUT_KEY_FILE'],
    );
    for (const p of problems) assert.match(p.message, new RegExp(`^${p.setting} is missing: `));
    const error = (() => {
      try {
        parseEvmConfig({});
      } catch (e) {
        return e as Error;
      }
    })()!;
    assert.equal(error.message.split('\n').length, 1 + problems.length, 'one line per problem');
  });

  it('lets the sweep run without an xpub, and a read-only tool without a payout key', () => {
    const { PAYLINK_EVM_XPUB: _xpub, PAYLINK_EVM_PAYOUT_KEY: _key, ...rest } = valid;
    assert.equal(parseEvmConfig({ ...rest, PAYLINK_EVM_PAYOUT_KEY: KEY }, { xpub: false }).xpub, undefined);
    assert.equal(parseEvmConfig({ ...rest, PAYLINK_EVM_XPUB: DEPOSIT_XPUB }, { payoutKey: false }).payoutKey, undefined);
  });

  for (const [label, env, setting, pattern] of [
    ['an RPC URL that is no URL', { PAYLINK_EVM_RPC_URL: 'localhost:8545' }, 'PAYLINK_EVM_RPC_URL', /not a URL|must use http/],
    ['an RPC URL over ftp', { PAYLINK_EVM_RPC_URL: 'ftp://node.example' }, 'PAYLINK_EVM_RPC_URL', /must use http, https, ws or wss, not ftp/],
    ['a chain id that is not a number', { PAYLINK_EVM_CHAIN_ID: 'bsc' }, 'PAYLINK_EVM_CHAIN_ID', /positive whole number.*"bsc"/],
    ['a chain id of 0', { PAYLINK_EVM_CHAIN_ID: '0' }, 'PAYLINK_EVM_CHAIN_ID', /positive whole number/],
    ['a network id with spaces', { PAYLINK_EVM_NETWORK: 'bnb chain' }, 'PAYLINK_EVM_NETWORK', /short id/],
    ['a token entry without =', { PAYLINK_EVM_TOKENS: `USDT:${USDT}` }, 'PAYLINK_EVM_TOKENS', /is not ASSET=0xADDRESS/],
    ['an unknown asset', { PAYLINK_EVM_TOKENS: `DAI=${USDT}` }, 'PAYLINK_EVM_TOKENS', /unknown asset "DAI" \(known: USDT, CNGN\)/],
    [
      'a token address with a broken checksum',
      { PAYLINK_EVM_TOKENS: `USDT=${USDT.replace('f', 'F')}` },
      'PAYLINK_EVM_TOKENS',
      /USDT contract .* EIP-55 checksum/,
    ],
    ['a short token address', { PAYLINK_EVM_TOKENS: 'USDT=0x1234' }, 'PAYLINK_EVM_TOKENS', /40 hexadecimal/],
    ['an asset named twice', { PAYLINK_EVM_TOKENS: `USDT=${USDT},usdt=${CNGN}` }, 'PAYLINK_EVM_TOKENS', /names USDT twice/],
    ['one contract for two assets', { PAYLINK_EVM_TOKENS: `USDT=${USDT},CNGN=${USDT.toLowerCase()}` }, 'PAYLINK_EVM_TOKENS', /same contract/],
    ['a token list of commas', { PAYLINK_EVM_TOKENS: ',,' }, 'PAYLINK_EVM_TOKENS', /lists no token/],
    ['0 confirmations', { PAYLINK_EVM_CONFIRMATIONS: '0' }, 'PAYLINK_EVM_CONFIRMATIONS', /from 1 to 10000.*"0"/],
    ['fractional confirmations', { PAYLINK_EVM_CONFIRMATIONS: '2.5' }, 'PAYLINK_EVM_CONFIRMATIONS', /whole number/],
    ['a poll interval of 1 ms', { PAYLINK_EVM_POLL_MS: '1' }, 'PAYLINK_EVM_POLL_MS', /from 10 to 3600000/],
    ['reconciling every 0 s', { PAYLINK_EVM_RECONCILE_S: '0' }, 'PAYLINK_EVM_RECONCILE_S', /from 1 to 86400/],
    ['a Multicall3 call of 0 balances', { PAYLINK_EVM_RECONCILE_BATCH: '0' }, 'PAYLINK_EVM_RECONCILE_BATCH', /from 1 to 5000/],
    ['a negative wait before a payout is replaced', { PAYLINK_EVM_REPLACE_CONFIRM_MS: '-5' }, 'PAYLINK_EVM_REPLACE_CONFIRM_MS', /from 0 to 86400000/],
    ['gas money in scientific notation', { PAYLINK_EVM_MIN_GAS: '5e16' }, 'PAYLINK_EVM_MIN_GAS', /amount of the network's coin, such as 0\.05.*"5e16"/],
    ['a reconciliation every 0 s', { PAYLINK_EVM_RECONCILE_S: '0' }, 'PAYLINK_EVM_RECONCILE_S', /from 1 to 86400/],
    ['an xpub that is not base58', { PAYLINK_EVM_XPUB: 'xpub-not-really' }, 'PAYLINK_EVM_XPUB', /not an extended public key/],
    ['a payout key of the wrong length', { PAYLINK_EVM_PAYOUT_KEY: '0x1234' }, 'PAYLINK_EVM_PAYOUT_KEY', /not a private key/],
    ['a payout key of zero', { PAYLINK_EVM_PAYOUT_KEY: `0x${'0'.repeat(64)}` }, 'PAYLINK_EVM_PAYOUT_KEY', /zero/],
  ] as const) {
    it(`refuses ${label}, naming ${setting}`, () => {
      const problems = problemsOf({ ...valid, ...env });
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.equal(problems[0]!.setting, setting);
      assert.match(problems[0]!.message, pattern);
    });
  }

  it('keeps the payout key out of logs: printing or serialising the config shows it redacted', () => {
    const config = parseEvmConfig(valid);
    const body = KEY.slice(2);
    for (const text of [JSON.stringify(config), inspect(config, { depth: 5 }), String(config.payoutKey), `${config.payoutKey}`]) {
      assert.doesNotMatch(text, new RegExp(body), text);
      assert.match(text, /redacted private key/);
    }
    assert.equal(config.payoutKey?.reveal(), KEY);
  });

  it('never echoes the RPC URL (it may hold a provider key) or a private key in a message', () => {
    const secretUrl = 'gopher://secret-api-key@node.example';
    const secretKey = `0x${'ab'.repeat(33)}`;
    const problems = problemsOf({ ...valid, PAYLINK_EVM_RPC_URL: secretUrl, PAYLINK_EVM_PAYOUT_KEY: secretKey });
    assert.equal(problems.length, 2);
    for (const p of problems) {
      assert.doesNotMatch(p.message, /secret-api-key/);
      assert.doesNotMatch(p.message, /abab/);
    }
  });

  it('refuses a private extended key, a key below the account level, and the wallet root', () => {
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(DEPOSIT_MNEMONIC));
    const cases: Array<[string, RegExp]> = [
      [root.derive("m/44'/60'/0'").privateExtendedKey, /private extended key \(xprv\)/],
      [root.derive("m/44'/60'/0'/0").publicExtendedKey, /depth 4/],
      [root.publicExtendedKey, /depth 0/],
    ];
    for (const [xpub, pattern] of cases) {
      const problems = problemsOf({ ...valid, PAYLINK_EVM_XPUB: xpub });
      assert.equal(problems[0]!.setting, 'PAYLINK_EVM_XPUB');
      assert.match(problems[0]!.message, pattern);
      assert.doesNotMatch(problems[0]!.message, /xprv[1-9A-HJ-NP-Za-km-z]{20}/, 'the private key is not echoed');
    }
  });

  it('reads the payout key from a file, and says which file cannot be read', () => {
    const file = path.join(dir, 'hot.key');
    writeFileSync(file, `${KEY}\n`, { mode: 0o600 });
    const { PAYLINK_EVM_PAYOUT_KEY: _key, ...rest } = valid;
    const config = parseEvmConfig({ ...rest, PAYLINK_EVM_PAYOUT_KEY_FILE: file });
    assert.equal(config.payoutKey?.reveal(), KEY);
    assert.deepEqual(config.warnings, []);

    const missing = problemsOf({ ...rest, PAYLINK_EVM_PAYOUT_KEY_FILE: path.join(dir, 'nope.key') });
    assert.equal(missing[0]!.setting, 'PAYLINK_EVM_PAYOUT_KEY_FILE');
    assert.match(missing[0]!.message, /nope\.key cannot be read \(ENOENT\)/);

    const junk = path.join(dir, 'junk.key');
    writeFileSync(junk, 'hunter2\n', { mode: 0o600 });
    const bad = problemsOf({ ...rest, PAYLINK_EVM_PAYOUT_KEY_FILE: junk });
    assert.match(bad[0]!.message, /does not hold a private key/);
    assert.doesNotMatch(bad[0]!.message, /hunter2/);
  });

  it('warns when the key file is readable by others, and refuses both key settings at once', () => {
    const file = path.join(dir, 'open.key');
    writeFileSync(file, KEY);
    chmodSync(file, 0o644);
    const { PAYLINK_EVM_PAYOUT_KEY: _key, ...rest } = valid;
    if (process.platform !== 'win32') {
      assert.match(parseEvmConfig({ ...rest, PAYLINK_EVM_PAYOUT_KEY_FILE: file }).warnings.join('\n'), /can be read by other users.*chmod 600/);
    }
    const both = problemsOf({ ...valid, PAYLINK_EVM_PAYOUT_KEY_FILE: file });
    assert.match(both[0]!.message, /both set: keep one/);
  });
});
