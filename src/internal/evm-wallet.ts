/**
 * Paying from a browser wallet with no wallet library: EIP-6963 discovery (else the injected
 * `window.ethereum`, EIP-1193), then connect, switch (or add) the network, check the token balance
 * and send the ERC-20 `transfer` of the exact amount. Also the EIP-681 URI of that transfer, for the
 * QR code. Amounts are integers of the token's base units (bigint), never floats. DOM-free: the
 * discovery takes the window as an `EventTarget`, so all of it runs in Node against a fake provider.
 */

/** An EIP-1193 provider: what a browser wallet exposes. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** A wallet found in the page: announced by EIP-6963 (with its name), or the injected provider (no name). */
export interface Wallet {
  name: string;
  provider: Eip1193Provider;
}

/**
 * One ERC-20 transfer: `units` base units of `token` to `to`, on the EIP-155 chain `chainId`; `add`
 * is what `wallet_addEthereumChain` needs to add that network to a wallet that lacks it (the service
 * gives it with the link's pairs), when known.
 */
export interface TokenTransfer {
  chainId: number;
  token: string;
  to: string;
  units: bigint;
  add?: object | null | undefined;
}

/**
 * Why paying from the wallet stopped (what `payFromWallet` rejects with): the customer declined
 * (`rejected`, EIP-1193 code 4001), the wallet stayed on another network (`wrongNetwork`), the
 * wallet does not know the network and we have no parameters to add it (`addNetwork`), the token
 * balance is short (`funds`), or anything else (`walletFailed`). The reasons are the checkout's
 * message keys.
 */
export type WalletFailure = 'rejected' | 'wrongNetwork' | 'addNetwork' | 'funds' | 'walletFailed';

/** Lists the wallets of the page as they announce themselves (EIP-6963); returns a function that stops listening. */
export function discoverWallets(target: EventTarget, onChange: (wallets: Wallet[]) => void): () => void {
  const wallets = new Map<unknown, Wallet>();
  const listener = (event: Event) => {
    const { info, provider } = (event as CustomEvent).detail ?? {};
    // A wallet may announce again (on each request), through a new provider object each time: it is
    // one wallet per `info.uuid` (EIP-6963's own identity), or per provider when it gives none.
    const id = info?.uuid || provider;
    if (typeof provider?.request != 'function' || wallets.has(id)) return;
    wallets.set(id, { name: String(info?.name ?? ''), provider });
    onChange([...wallets.values()]);
  };
  target.addEventListener('eip6963:announceProvider', listener);
  target.dispatchEvent(new Event('eip6963:requestProvider'));
  return () => target.removeEventListener('eip6963:announceProvider', listener);
}

/** A 32-byte ABI word of a hex address or an amount. */
const word = (value: string | bigint) => (typeof value == 'bigint' ? value.toString(16) : value.slice(2).toLowerCase()).padStart(64, '0');

/** The calldata of ERC-20 `transfer(to, units)`: selector a9059cbb, then two 32-byte words. */
export const transferData = (to: string, units: bigint): string => `0xa9059cbb${word(to)}${word(units)}`;

/** The EIP-681 URI of the transfer: a wallet that scans it fills in token, network, recipient and amount. */
export const transferUri = ({ token, chainId, to, units }: TokenTransfer): string => `ethereum:${token}@${chainId}/transfer?address=${to}&uint256=${units}`;

/**
 * The EIP-1193 error code of `error` (MetaMask mobile nests it in `data.originalError`). Some wallets'
 * bridges drop the code, or replace it with a generic one, and keep only the message: a declined
 * request (4001) and an unknown network (4902) are then known by their words.
 */
const code = (error: unknown) => {
  const { code, message, data } = (error ?? {}) as { code?: number; message?: string; data?: { originalError?: { code?: number } } };
  const words = /(reject|denied|cancel)|unrecognized|unknown chain/i.exec(message!);
  return data?.originalError?.code ?? code ?? (words && (words[1] ? 4001 : 4902));
};

/**
 * Pays `transfer` from the wallet behind `provider`: connects, moves the wallet to the transfer's
 * network (adding it when the wallet does not know it and we can), checks the token balance, then
 * asks the wallet to send. Resolves with the transaction hash; rejects with a `WalletFailure`
 * saying why not.
 */
export async function payFromWallet(provider: Eip1193Provider, transfer: TokenTransfer): Promise<string> {
  const request = (method: string, ...params: unknown[]) => provider.request({ method, params });
  const chain = `0x${transfer.chainId.toString(16)}`;
  try {
    const [from] = (await request('eth_requestAccounts')) as string[];
    const onChain = async () => Number(await request('eth_chainId')) == transfer.chainId;
    if (!(await onChain())) {
      try {
        await request('wallet_switchEthereumChain', { chainId: chain });
      } catch (error) {
        if (code(error) != 4902) throw code(error) == 4001 ? 'wrongNetwork' : 'walletFailed';
        if (!transfer.add) throw 'addNetwork';
        await request('wallet_addEthereumChain', { ...transfer.add, chainId: chain });
      }
      // Some wallets answer before switching, or not at all: check where the wallet is now.
      if (!(await onChain())) throw 'wrongNetwork';
    }
    const balance = BigInt((await request('eth_call', { to: transfer.token, data: `0x70a08231${word(from!)}` }, 'latest')) as string);
    if (balance < transfer.units) throw 'funds';
    return (await request('eth_sendTransaction', { from, to: transfer.token, data: transferData(transfer.to, transfer.units) })) as string;
  } catch (error) {
    // Our own reasons pass through; the wallet's errors become one.
    throw typeof error == 'string' ? (error as WalletFailure) : code(error) == 4001 ? 'rejected' : 'walletFailed';
  }
}

/**
 * The address of the wallet behind `provider`, once the customer lets the page see it
 * (`eth_requestAccounts`): where a refund they claim is sent. Rejects with `rejected` (they declined)
 * or `walletFailed` (anything else, or no account).
 */
export async function walletAddress(provider: Eip1193Provider): Promise<string> {
  try {
    const [address] = (await provider.request({ method: 'eth_requestAccounts' })) as string[];
    if (address) return address;
  } catch (error) {
    throw code(error) == 4001 ? 'rejected' : 'walletFailed';
  }
  throw 'walletFailed';
}
