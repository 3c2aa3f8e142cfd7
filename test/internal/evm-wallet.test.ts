/**
 * The checkout's wallet protocol pieces on their own (internal/evm-wallet.ts), in Node: EIP-6963
 * discovery over a plain EventTarget, the ERC-20 `transfer` calldata and its EIP-681 URI.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discoverWallets, payFromWallet, transferData, transferUri, type Wallet } from '../../src/internal/evm-wallet.js';

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
  assert.deepEqual(
    seen.at(-1)!.map((wallet) => wallet.name),
    ['MetaMask', 'Rabby'],
  );

  // A wallet that announces again (a second request, a late extension) is not listed twice.
  page.dispatchEvent(new Event('eip6963:requestProvider'));
  assert.deepEqual(
    seen.at(-1)!.map((wallet) => wallet.name),
    ['MetaMask', 'Rabby'],
  );
  assert.equal(seen.at(-1)![1]!.provider, rabby);

  // After stop, announcements go unheard.
  stop();
  const count = seen.length;
  page.dispatchEvent(Object.assign(new Event('eip6963:announceProvider'), { detail: { info: { name: 'Late' }, provider: provider('late') } }));
  assert.equal(seen.length, count);
});

test('discovery lists a wallet once per info.uuid, though it announces through a new provider each time', () => {
  const page = new EventTarget();
  let announced = 0;
  page.addEventListener('eip6963:requestProvider', () => {
    announced++;
    page.dispatchEvent(
      Object.assign(new Event('eip6963:announceProvider'), { detail: { info: { name: 'Bridge', uuid: 'b-1' }, provider: provider(`bridge ${announced}`) } }),
    );
  });
  const seen: Wallet[][] = [];
  discoverWallets(page, (wallets) => seen.push(wallets));
  page.dispatchEvent(new Event('eip6963:requestProvider'));
  assert.equal(announced, 2);
  assert.deepEqual(
    seen.at(-1)!.map((wallet) => wallet.name),
    ['Bridge'],
  );
  // Without a uuid, the provider object is the wallet's identity.
  page.dispatchEvent(Object.assign(new Event('eip6963:announceProvider'), { detail: { info: { name: 'Old' }, provider: provider('old') } }));
  assert.deepEqual(
    seen.at(-1)!.map((wallet) => wallet.name),
    ['Bridge', 'Old'],
  );
});

test('a declined request and an unknown network are told by the words when the bridge drops the code', async () => {
  const add = { chainName: 'BNB Smart Chain', nativeCurrency: { name: 'BNB', symbol: 'BNB', decimals: 18 }, rpcUrls: ['https://bsc-dataseed.bnbchain.org'] };
  const transfer = { chainId: 56, token: '0x55d398326f99059fF775485246999027B3197955', to: '0x52908400098527886E0F7030069857D2E4169EE7', units: 1n, add };
  /** A wallet on chain 1 whose every error is a bare Error (no `code`), with `failures` by method. */
  const wallet = (failures: Record<string, string>) => {
    const calls: string[] = [];
    let chain = 1;
    const request = async ({ method, params }: { method: string; params?: unknown[] }) => {
      calls.push(method);
      if (failures[method]) throw new Error(failures[method]);
      if (method === 'eth_requestAccounts') return ['0x1111111111111111111111111111111111111111'];
      if (method === 'eth_chainId') return `0x${chain.toString(16)}`;
      if (method.startsWith('wallet_')) chain = Number((params![0] as { chainId: string }).chainId);
      if (method === 'eth_call') return '0x10';
      return '0xhash';
    };
    return { calls, provider: { request } };
  };
  const reason = (promise: Promise<unknown>) =>
    promise.then(
      () => 'paid',
      (error: unknown) => error,
    );

  const declined = wallet({ eth_requestAccounts: 'MetaMask Tx Signature: User denied transaction signature.' });
  assert.equal(await reason(payFromWallet(declined.provider, transfer)), 'rejected');
  const cancelled = wallet({ eth_requestAccounts: 'User rejected the request.' });
  assert.equal(await reason(payFromWallet(cancelled.provider, transfer)), 'rejected');
  const unknown = wallet({ wallet_switchEthereumChain: 'Unrecognized chain ID "0x38". Try adding the chain using wallet_addEthereumChain first.' });
  assert.equal(await reason(payFromWallet(unknown.provider, transfer)), 'paid');
  assert.ok(unknown.calls.includes('wallet_addEthereumChain'), 'it added the network');
  // Without the service's parameters for the network, the customer is asked to add it themselves.
  const unknownNoParameters = wallet({ wallet_switchEthereumChain: 'Unrecognized chain ID "0x38".' });
  assert.equal(await reason(payFromWallet(unknownNoParameters.provider, { ...transfer, add: null })), 'addNetwork');
  const refusedSwitch = wallet({ wallet_switchEthereumChain: 'User rejected the request.' });
  assert.equal(await reason(payFromWallet(refusedSwitch.provider, transfer)), 'wrongNetwork');
  const broken = wallet({ eth_sendTransaction: 'Internal JSON-RPC error.' });
  assert.equal(await reason(payFromWallet(broken.provider, transfer)), 'walletFailed');
  // A code, when the wallet gives one, still decides.
  const coded = { request: async () => Promise.reject(Object.assign(new Error('Something'), { code: 4001 })) };
  assert.equal(await reason(payFromWallet(coded, transfer)), 'rejected');
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
