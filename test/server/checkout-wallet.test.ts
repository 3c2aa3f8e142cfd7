/**
 * The checkout's wallet protocol pieces on their own (internal/evm-wallet.ts), in Node: EIP-6963
 * discovery over a plain EventTarget, the ERC-20 `transfer` calldata and its EIP-681 URI.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discoverWallets, transferData, transferUri, type Wallet } from '../../src/internal/evm-wallet.js';

const provider = (name: string) => ({ name, request: async () => null });

/** What a wallet extension does: answer each request by announcing itself. */
function announceOnRequest(target: EventTarget, info: { name: string; uuid: string }, wallet: object) {
  target.addEventListener('eip6963:requestProvider', () =>
    target.dispatchEvent(Object.assign(new Event('eip6963:announceProvider'), { detail: Object.freeze({ info, provider: wallet }) })),
  );
}

test('discovery asks wallets to announce, lists each provider once, and ignores what is not a provider', () => {
  const page = new EventTarget();
  const rabby = provider('rabby');
  announceOnRequest(page, { name: 'MetaMask', uuid: '1' }, provider('metamask'));
  announceOnRequest(page, { name: 'Rabby', uuid: '2' }, rabby);
  announceOnRequest(page, { name: 'Broken', uuid: '3' }, { request: 'not a function' });
  const seen: Wallet[][] = [];
  const stop = discoverWallets(page, (wallets) => seen.push(wallets));
  assert.deepEqual(seen.at(-1)!.map((wallet) => wallet.name), ['MetaMask', 'Rabby']);

  // A wallet that announces again (a second request, a late extension) is not listed twice.
  page.dispatchEvent(new Event('eip6963:requestProvider'));
  assert.deepEqual(seen.at(-1)!.map((wallet) => wallet.name), ['MetaMask', 'Rabby']);
  assert.equal(seen.at(-1)![1]!.provider, rabby);

  // After stop, announcements go unheard.
  stop();
  const count = seen.length;
  page.dispatchEvent(Object.assign(new Event('eip6963:announceProvider'), { detail: { info: { name: 'Late' }, provider: provider('late') } }));
  assert.equal(seen.length, count);
});

test('the transfer calldata is selector a9059cbb, the 32-byte address and the 32-byte amount', () => {
  const data = transferData('0x52908400098527886E0F7030069857D2E4169EE7', 12_187_813_000_000_000_000n);
  assert.equal(data.length, 2 + 8 + 64 + 64);
  assert.equal(data.slice(0, 10), '0xa9059cbb');
  assert.equal(data.slice(10, 74), '00000000000000000000000052908400098527886e0f7030069857d2e4169ee7');
  assert.equal(BigInt('0x' + data.slice(74)), 12_187_813_000_000_000_000n);
  // The largest amount a uint256 holds still fits its word.
  assert.equal(transferData('0x' + '0'.repeat(40), 2n ** 256n - 1n).slice(74), 'f'.repeat(64));
});

test('the EIP-681 URI names the token, the chain, the recipient and the amount in base units', () => {
  assert.equal(
    transferUri({ token: '0x55d398326f99059fF775485246999027B3197955', chainId: 56, to: '0x52908400098527886E0F7030069857D2E4169EE7', units: 45_000_000n }),
    'ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=0x52908400098527886E0F7030069857D2E4169EE7&uint256=45000000',
  );
});
