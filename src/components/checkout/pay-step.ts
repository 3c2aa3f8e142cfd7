/**
 * Step 3, once the customer chose an asset: pay from a browser wallet (one button per wallet found,
 * each refusal in its own words); on a phone without one, "Open in wallet", a link to the very
 * EIP-681 transfer the QR code encodes, which the phone hands to its wallet app; or scan the QR code
 * (the EIP-681 transfer where the chain has a token, else the address) or copy the exact amount and
 * the address. The network is named as exchanges name it (`BNB Smart Chain (BEP20)`), with the warning
 * that a transfer on a network the page does not offer is not seen. Then the fiat it stands for, the
 * time the price is held, the live status (`confirming n/N` once the transfer is seen, with its
 * hash and explorer link, and the network it came on when that is another of the offered ones),
 * "Change asset" while nothing is paid, and on the sandbox chain "Simulate payment". Underpaid says
 * what is left to send.
 */
import { html } from 'lit/html.js';
import { transferUri } from '../../internal/evm-wallet.js';
import { assetName } from '../../internal/localize.js';
import { qrCode } from '../../internal/qr.js';
import type { CheckoutMachine } from './checkout-machine.js';
import { copyButton, heading, networkLabel, paidOn, txHash } from './parts.js';

/** What the pay step renders and calls. */
export type PayStepInput = Pick<
  CheckoutMachine,
  | 'session'
  | 'l10n'
  | 't'
  | 'busy'
  | 'copied'
  | 'copy'
  | 'due'
  | 'transfer'
  | 'progress'
  | 'wallets'
  | 'walletError'
  | 'sentHash'
  | 'payWithWallet'
  | 'simulate'
  | 'changeAsset'
  | 'countdown'
  | 'link'
>;

export function renderPayStep(m: PayStepInput) {
  // Members read as `m.x`, never destructured: the bundles shorten their names (scripts/private-names.ts).
  const l10n = m.l10n;
  const busy = m.busy;
  const transfer = m.transfer;
  // On a real chain only the wallet makes the step busy (the sandbox has no wallet, only "Simulate").
  const asking = busy && transfer;
  const session = m.session!;
  const { status, assetId, payAddress, networkName, chainId } = session;
  const network = networkLabel(networkName, chainId);
  const uri = transfer && transferUri(transfer);
  const orScan = html`<small part="divider">${m.t('orScan')}</small>`;
  const underpaid = status == 'underpaid';
  const confirming = status == 'confirming';
  const hash = (confirming && session.txHash) || m.sentHash;
  const exact = l10n.crypto(m.due, assetId);
  // Once a transfer is on its way, the QR, amount and address go: shown beside a confirming payment they
  // invite a second one. An underpaid session keeps them for the top-up.
  const sent = hash && !underpaid;

  return html`<div part="pay">
    ${heading(underpaid ? m.t('underpaid') : m.t('send', { amount: exact }))}
    ${
      underpaid
        ? html`<p part="notice">${m.t('underpaidBody', { paid: l10n.crypto(session.paidAmount, assetId), left: l10n.crypto(session.remainingAmount, assetId) })}</p>`
        : ''
    }
    ${
      transfer && !hash
        ? m.wallets.length
          ? html`${m.wallets.map(
              (wallet) =>
                html`<button part="button primary wallet" ?disabled=${busy} @click=${() => m.payWithWallet(wallet)}>
                  ${m.t('payWith', { name: wallet.name || m.t('wallet') })}
                </button>`,
            )}
            ${m.walletError ? html`<p part="notice wallet-error">${m.walletError}</p>` : ''} ${orScan}`
          : // A phone's own wallet app takes the transfer from a link; the code stays, for paying from another device.
            matchMedia('(pointer:coarse)').matches
            ? html`<a part="button primary wallet-link" href=${uri}>${m.t('walletLink')}</a>${orScan}`
            : html`<p part="notice no-wallet">${m.t('noWallet')}</p>`
        : ''
    }
    ${sent ? '' : (uri && qrCode(uri, m.t('qrPay'))) || qrCode(payAddress, m.t('qr'))}
    <dl part="pay-details">
      ${
        sent
          ? ''
          : html`<div>
        <dt>${m.t('amount')} ${copyButton(m, m.due, 'amount')}</dt>
        <dd>
          <span part="value amount">${exact}</span>
          ${
            underpaid
              ? ''
              : html`<small part="fiat">${l10n.money(session.fiatAmount, session.fiatCurrency)}</small>
                <small part="rate">${session.rate && l10n.rate(session.rate, assetId, session.fiatCurrency)}</small>`
          }
        </dd>
      </div>
      <div>
        <dt>${m.t('toAddress')} ${copyButton(m, payAddress, 'toAddress')}</dt>
        <dd><code part="value address">${payAddress}</code></dd>
      </div>`
      }
      ${hash ? html`<div><dt>${m.t('transaction')}</dt><dd>${txHash(m, hash, session.explorerUrl)}</dd></div>` : ''}
    </dl>
    ${sent ? '' : html`<p part="warning">${m.t('warning', { asset: assetName(assetId), network })}</p>`}
    <p part="waiting">
      <span part="spinner"></span>${asking ? m.t('confirmWallet') : confirming ? m.progress : hash ? m.t('sent') : m.t('waiting')}
    </p>
    ${confirming ? paidOn(m) : html`<small part="countdown" role="timer">${m.t('expiresIn', { time: m.countdown })}</small>`}
    ${session.sandbox ? html`<button part="button simulate" ?disabled=${busy} @click=${() => m.simulate()}>${m.t('simulate')}</button>` : ''}
    ${
      status == 'awaiting_payment' && !hash && !asking
        ? html`<button part="button change-asset" type="button" @click=${() => m.changeAsset()}>${m.t('changeAsset')}</button>`
        : ''
    }
  </div>`;
}
