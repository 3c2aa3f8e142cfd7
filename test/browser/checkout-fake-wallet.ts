/**
 * A fake EIP-1193 wallet for `<paylink-checkout>` tests: it records every request and can announce
 * itself by EIP-6963 (again on every request, through a new provider object each time if asked), sit
 * on another chain, not know the chain, decline (4001) any method, lose its error codes on the way (as
 * some wallets' bridges do: the message alone arrives), hold too little of the token, or hold the send
 * until released. No wallet library, no chain.
 */

export const TOKEN = '0x55d398326f99059fF775485246999027B3197955';
export const FROM = '0x1111111111111111111111111111111111111111';
export const HASH = '0x' + '5f'.repeat(32);

let cleanups: (() => void)[] = [];

/** Stops every announcement and removes `window.ethereum` (call after each test). */
export function forgetWallets(): void {
  cleanups.forEach((cleanup) => cleanup());
  cleanups = [];
  delete (window as { ethereum?: unknown }).ethereum;
}

/** A fake EIP-1193 wallet: records requests; `refuse` makes a method throw `{code}`. */
export class FakeWallet {
  calls: { method: string; params?: unknown[] }[] = [];
  chainId: number;
  balance: bigint;
  knowsChain: boolean;
  refuse: Record<string, number> = {};
  /** Throw errors with their message only, as a bridge that drops EIP-1193's `code` does. */
  dropCodes = false;
  /** Resolves the pending eth_sendTransaction when set (to look at the screen while the wallet asks). */
  hold?: Promise<void>;

  constructor({ chainId = 56, balance = 10n ** 24n, knowsChain = true } = {}) {
    this.chainId = chainId;
    this.balance = balance;
    this.knowsChain = knowsChain;
  }

  methods() {
    return this.calls.map((call) => call.method);
  }

  request = async ({ method, params }: { method: string; params?: unknown[] }): Promise<unknown> => {
    this.calls.push({ method, params });
    if (this.refuse[method]) throw this.error('User rejected the request.', this.refuse[method]);
    switch (method) {
      case 'eth_requestAccounts':
        return [FROM];
      case 'eth_chainId':
        return `0x${this.chainId.toString(16)}`;
      case 'wallet_switchEthereumChain':
        if (!this.knowsChain) throw this.error('Unrecognized chain ID "0x38". Try adding the chain using wallet_addEthereumChain first.', 4902);
        this.chainId = Number((params![0] as { chainId: string }).chainId);
        return null;
      case 'wallet_addEthereumChain':
        this.knowsChain = true;
        this.chainId = Number((params![0] as { chainId: string }).chainId);
        return null;
      case 'eth_call':
        return `0x${this.balance.toString(16)}`;
      case 'eth_sendTransaction':
        await this.hold;
        return HASH;
    }
    throw this.error(`Unsupported method ${method}`, 4200);
  };

  /** The wallet's error: MetaMask's words, with the EIP-1193 code unless the bridge drops it. */
  error(message: string, code: number): Error {
    return this.dropCodes ? new Error(message) : Object.assign(new Error(message), { code });
  }

  /**
   * Announces this wallet the EIP-6963 way, now and on every request, always with the same `info.uuid`;
   * with `freshProvider`, each announcement carries a new provider object in front of this wallet.
   */
  announce(name: string, { freshProvider = false } = {}) {
    const info = Object.freeze({ uuid: crypto.randomUUID(), name, icon: 'data:image/svg+xml,<svg/>', rdns: `test.${name}` });
    const provider = () => (freshProvider ? { request: this.request } : this);
    const send = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider: provider() }) }));
    window.addEventListener('eip6963:requestProvider', send);
    send();
    cleanups.push(() => window.removeEventListener('eip6963:requestProvider', send));
    return this;
  }
}
