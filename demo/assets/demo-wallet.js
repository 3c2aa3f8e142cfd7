// The demo wallet of the demo pages (only when the demo runs on its local chain): an EIP-1193
// provider announced through EIP-6963, so a checkout's "Pay with wallet" finds it, and a small
// panel that pays the open checkout session from it ("Send from demo wallet"). Every request goes
// to the demo server (/demo/wallet/rpc), which relays reads to the demo's anvil node and signs only
// transfers of the demo's test tokens from the demo wallet. It lives in the demo pages, never in
// the checkout bundle. No innerHTML: the pages run with Trusted Types.

const info = await fetch('/demo/wallet', { headers: { accept: 'application/json' } })
  .then((response) => (response.ok ? response.json() : null))
  .catch(() => null);

if (info) {
  let nextId = 0;
  // The demo runs two local chains: the wallet is on one at a time (the first to begin with), as a
  // real wallet is, and a checkout moves it with wallet_switchEthereumChain.
  const chains = info.chains ?? [{ chainId: info.chainId, name: 'Local chain', tokens: info.tokens }];
  let chainId = info.chainId;
  /** One JSON-RPC request through the demo server, on `onChain` (default: the chain the wallet is on); errors keep their EIP-1193 code. */
  const rpc = async (method, params = [], onChain = chainId) => {
    const response = await fetch('/demo/wallet/rpc', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-demo-chain-id': String(onChain) },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params }),
    });
    const body = await response.json().catch(() => ({ error: { code: -32603, message: `the demo wallet answered ${response.status}` } }));
    if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
    return body.result;
  };

  const listeners = new Map();
  /** Moves the wallet to chain `id` (a number) and tells the page, as EIP-1193's `chainChanged` does. */
  const moveTo = (id) => {
    if (id === chainId) return;
    chainId = id;
    for (const listener of listeners.get('chainChanged') ?? []) listener(`0x${id.toString(16)}`);
  };
  /** The EIP-1193 provider. */
  const provider = Object.freeze({
    isPaylinkDemoWallet: true,
    async request({ method, params } = {}) {
      const list = Array.isArray(params) ? params : params === undefined ? [] : [params];
      const result = await rpc(method, list);
      // The server answers a switch only to one of the demo's chains: the wallet is on it from now on.
      if (method === 'wallet_switchEthereumChain' || method === 'wallet_addEthereumChain') moveTo(Number(list[0].chainId));
      return result;
    },
    on(event, listener) {
      listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      return provider;
    },
    removeListener(event, listener) {
      listeners.set(event, (listeners.get(event) ?? []).filter((l) => l !== listener));
      return provider;
    },
  });

  const icon =
    'data:image/svg+xml,' +
    encodeURIComponent(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#3b5bdb"/>' +
        '<rect x="6" y="10" width="20" height="14" rx="3" fill="#fff"/><circle cx="21" cy="17" r="2" fill="#3b5bdb"/>' +
        '<text x="16" y="8" font-size="6" text-anchor="middle" fill="#fff" font-family="sans-serif">TEST</text></svg>',
    );
  const uuid = crypto.randomUUID ? crypto.randomUUID() : '6b1f1d7e-0d3c-4f57-9a55-6e0c1a1d2e3f';
  const detail = Object.freeze({ info: Object.freeze({ uuid, name: info.name, icon, rdns: 'dev.paylink.demo-wallet' }), provider });
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
  window.addEventListener('eip6963:requestProvider', announce);
  announce();

  // ---- The panel -------------------------------------------------------------------------------
  // It never covers a page: on a wide screen it keeps a column of its own at the right edge (the
  // page makes room for it), on narrower ones it follows the page's content (demo-wallet.css). It
  // comes last in the page, so the keyboard reaches it after the checkout.
  const el = (tag, props = {}, ...children) => {
    const node = Object.assign(document.createElement(tag), props);
    node.append(...children);
    return node;
  };
  const short = (hex) => `${hex.slice(0, 8)}…${hex.slice(-6)}`;
  const tokenOf = (address) => info.tokens.find((t) => t.address.toLowerCase() === String(address).toLowerCase());
  const chainOf = (id) => chains.find((chain) => chain.chainId === id);
  /** Base units of a decimal string (never floats). */
  const toUnits = (amount, decimals) => {
    const [whole, fraction = ''] = String(amount).split('.');
    if (fraction.replace(/0+$/, '').length > decimals) throw new Error(`${amount} has more than ${decimals} decimals`);
    return BigInt(whole + fraction.padEnd(decimals, '0').slice(0, decimals));
  };
  /** A balance in base units as the service counts it: up to 6 decimals (998.387096), never rounded to cents. */
  const fromUnits = (units, decimals) => {
    const text = units.toString().padStart(decimals + 1, '0');
    const whole = text.slice(0, text.length - decimals);
    const fraction = text.slice(text.length - decimals).slice(0, 6).replace(/0+$/, '');
    return `${BigInt(whole).toLocaleString('en')}${fraction ? `.${fraction}` : ''}`;
  };
  const word = (hex) => hex.replace(/^0x/, '').toLowerCase().padStart(64, '0');
  const code = (text) => el('code', {}, text);

  const balances = el('dl', { className: 'dw-balances' });
  balances.setAttribute('aria-label', 'Balances');
  const sessionLine = el('p', { className: 'dw-session' }, 'Open a payment in a checkout on this page (choose USDT or cNGN), then pay it from here.');
  const status = el('p', { className: 'dw-status', role: 'status' });
  const send = el('button', { type: 'button', className: 'dw-button dw-send', disabled: true }, 'Send from demo wallet');
  const faucet = el('button', { type: 'button', className: 'dw-button' }, 'Get test tokens');
  const panel = el(
    'aside',
    { className: 'demo-wallet' },
    el('h2', { id: 'demo-wallet-title' }, 'Demo wallet ', el('span', { className: 'dw-badge' }, 'local test chain')),
    el('p', { className: 'dw-note' }, info.notice),
    el('p', { className: 'dw-address' }, 'Address ', code(info.address)),
    balances,
    sessionLine,
    el('div', { className: 'dw-actions' }, send, faucet),
    status,
  );
  panel.setAttribute('aria-labelledby', 'demo-wallet-title');
  // Its stylesheet first, so the panel never shows unstyled (a hosted page has only its own styles).
  await new Promise((resolve) => {
    const sheet = el('link', { rel: 'stylesheet', href: '/demo/assets/demo-wallet.css' });
    sheet.addEventListener('load', resolve);
    sheet.addEventListener('error', resolve);
    document.head.append(sheet);
  });
  document.body.classList.add('with-demo-wallet');
  document.body.append(panel);

  /** The balances as the chain has them now (read again after every payment, faucet and withdrawal). */
  let reading = null;
  const refreshBalances = () =>
    (reading ??= (async () => {
      try {
        const rows = await Promise.all(
          chains.flatMap((chain, index) =>
            chain.tokens.map(async (token) => [
              chain,
              index,
              token,
              BigInt(await rpc('eth_call', [{ to: token.address, data: `0x70a08231${word(info.address)}` }, 'latest'], chain.chainId)),
            ]),
          ),
        );
        // The first chain's rows keep their plain names (dw-balance-usdt); the others name their chain.
        balances.replaceChildren(
          ...rows.flatMap(([chain, index, token, units]) => [
            el('dt', {}, chains.length > 1 ? `${token.symbol} · ${chain.name}` : token.symbol),
            el('dd', { className: `dw-balance-${token.assetId.toLowerCase()}${index ? `-${index}` : ''}` }, fromUnits(units, token.decimals)),
          ]),
        );
      } catch (error) {
        status.textContent = `Could not read the balances: ${error.message}`;
      } finally {
        reading = null;
      }
    })());
  refreshBalances();
  // A payment sent from the checkout's own "Pay with wallet", a withdrawal the merchant sends here
  // from the admin, a faucet press in another tab: all change the balances, so they follow the
  // chain (a block a second) while the page is in view.
  setInterval(() => {
    if (document.visibilityState === 'visible') refreshBalances();
  }, 2000);

  /** What the panel says of a session a checkout on this page reported. */
  const describe = (session) => {
    const token = tokenOf(session.tokenAddress);
    const symbol = token ? token.symbol : session.assetId;
    switch (session.status) {
      case 'awaiting_payment':
        return ['Open payment: ', `${session.cryptoAmount} ${symbol}`, ' to ', code(session.payAddress)];
      case 'underpaid':
        return ['Part paid: ', `${session.remainingAmount} ${symbol}`, ' still due to ', code(session.payAddress)];
      case 'confirming':
        return ['Transfer seen: waiting for its confirmations before the payment counts.'];
      case 'paid':
      case 'overpaid':
        return ['Payment received. Open another payment to pay it from here.'];
      case 'expired':
        return ['That payment expired unpaid. Open another to pay it from here.'];
      default:
        return [`That payment is ${session.status}.`];
    }
  };

  /** The session a checkout on this page last reported, while it can still be paid. */
  let open = null;
  let following = null;
  document.addEventListener('paylink-session', (event) => {
    const session = event.detail?.session;
    if (!session) return;
    const payable = ['awaiting_payment', 'underpaid'].includes(session.status) && chainOf(session.chainId) && tokenOf(session.tokenAddress);
    // The line follows the latest session of the page, whatever paid it (this panel or the checkout's own wallet button).
    sessionLine.replaceChildren(...describe(session));
    // A transfer this panel follows whose session is settled: its line says so at once (the poll below
    // would say it up to half a second later, and meanwhile show a confirmation count beside "received").
    if (following?.id === session.id && !['awaiting_payment', 'confirming'].includes(session.status)) {
      status.textContent = `Transfer ${short(following.hash)}${SERVICE_SAYS[session.status]?.(session) ?? `; the payment is ${session.status}`}.`;
      following = null;
    }
    open = payable ? session : open?.id === session.id ? null : open;
    send.disabled = !open;
    if (['paid', 'overpaid', 'underpaid'].includes(session.status)) refreshBalances();
  });

  faucet.addEventListener('click', async () => {
    faucet.disabled = true;
    status.textContent = 'Minting test tokens…';
    try {
      const response = await fetch('/demo/wallet/faucet', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const body = await response.json();
      status.textContent = response.ok ? `Minted ${body.minted.USDT} USDT and ${body.minted.CNGN} cNGN (test tokens).` : body.error.message;
      await refreshBalances();
    } catch (error) {
      status.textContent = `The faucet failed: ${error.message}`;
    } finally {
      faucet.disabled = false;
    }
  });

  /** What the service says of the session, by status, after what the chain says. */
  const SERVICE_SAYS = {
    confirming: (now) => `; the service counts ${now.confirmations} of ${now.requiredConfirmations} confirmations`,
    paid: () => '; payment received',
    overpaid: () => '; payment received (more than was due)',
    underpaid: () => '; part paid: the rest is still due',
    expired: () => '; it came after the payment had expired (a late payment)',
  };

  /** Follows a sent transfer: its confirmations on the chain and the session's status in the service. */
  const follow = async (hash, session) => {
    const mine = (following = { id: session.id, hash });
    const deadline = Date.now() + 120_000;
    while (following === mine && Date.now() < deadline) {
      let chainPart = 'waiting for the next block';
      try {
        const receipt = await rpc('eth_getTransactionReceipt', [hash], session.chainId);
        if (receipt) {
          if (receipt.status !== '0x1') {
            status.textContent = `Transfer ${short(hash)} reverted.`;
            return;
          }
          const head = BigInt(await rpc('eth_blockNumber', [], session.chainId));
          const depth = head - BigInt(receipt.blockNumber) + 1n;
          chainPart = `in block ${BigInt(receipt.blockNumber)}, ${depth} confirmation${depth === 1n ? '' : 's'} on chain`;
        }
        const response = await fetch(`/paylink/checkout/sessions/${encodeURIComponent(session.id)}`);
        const now = response.ok ? await response.json() : null;
        const servicePart = !now ? '' : (SERVICE_SAYS[now.status]?.(now) ?? '');
        // Settled meanwhile (the checkout's event said so first): that line stays.
        if (following !== mine) return;
        status.textContent = `Transfer ${short(hash)} ${chainPart}${servicePart}.`;
        if (now && !['awaiting_payment', 'confirming'].includes(now.status)) {
          await refreshBalances();
          return;
        }
      } catch (error) {
        status.textContent = `Transfer ${short(hash)} sent; could not read its progress: ${error.message}`;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };

  send.addEventListener('click', async () => {
    const session = open;
    if (!session) return;
    const token = tokenOf(session.tokenAddress);
    const amount = session.status === 'underpaid' ? session.remainingAmount : session.cryptoAmount;
    send.disabled = true;
    status.textContent = `Sending ${amount} ${token.symbol}…`;
    try {
      const units = toUnits(amount, session.tokenDecimals ?? token.decimals);
      const [from] = await provider.request({ method: 'eth_requestAccounts' });
      // The session's chain first, as a checkout asks a wallet to.
      await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: `0x${session.chainId.toString(16)}` }] });
      const hash = await provider.request({
        method: 'eth_sendTransaction',
        params: [{ from, to: token.address, data: `0xa9059cbb${word(session.payAddress)}${units.toString(16).padStart(64, '0')}` }],
      });
      status.textContent = `Transfer ${short(hash)} sent; waiting for the next block.`;
      refreshBalances();
      await follow(hash, session);
    } catch (error) {
      status.textContent = `Not sent: ${error.message}`;
    } finally {
      send.disabled = !open;
    }
  });
}
