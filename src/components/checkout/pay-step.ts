/**
 * Step 3, once the customer chose an asset (the buttons that end the amount or details step, each
 * naming its network): a QR code of the address, the exact amount and the address each with a
 * copy button, the time the price is held, the live status, and on the sandbox chain a "Simulate
 * payment" button. Underpaid says what is left to send.
 */
import { html } from 'lit/html.js';
import { assetName } from '../../internal/localize.js';
import { qrCode } from '../../internal/qr.js';
import type { PaylinkCheckout } from './paylink-checkout.js';
import { heading } from './parts.js';

export function renderPayStep(host: PaylinkCheckout) {
  const { l10n, busy } = host;
  const session = host.session!;

  const { status, assetId, paidAmount, remainingAmount, payAddress } = session;
  const underpaid = status == 'underpaid';
  const amount = underpaid ? remainingAmount : session.cryptoAmount;
  const asset = assetName(assetId);
  const copy = (text: string, label: 'amount' | 'toAddress') => {
    const done = host.copied == label;
    return html`<button part="button copy-button" aria-label="${host.t(done ? 'copied' : 'copy')}: ${host.t(label)}" @click=${() => host.copy(text, label)}>
      ${done ? '✓ ' + host.t('copied') : host.t('copy')}
    </button>`;
  };

  return html`<div part="pay">
    ${heading(underpaid ? host.t('underpaid') : host.t('send', { amount: l10n.crypto(amount, assetId) }))}
    ${underpaid
      ? html`<p part="notice">${host.t('underpaidBody', { paid: l10n.crypto(paidAmount, assetId), left: l10n.crypto(remainingAmount, assetId) })}</p>`
      : ''}
    <div part="pay-grid">
      ${qrCode(payAddress, host.t('qr'))}
      <dl>
        <dt>${host.t('amount')}</dt>
        <dd><span part="value amount">${amount} ${asset}</span>${copy(amount, 'amount')}</dd>
        <dt>${host.t('toAddress')}</dt>
        <dd><code part="value address">${payAddress}</code>${copy(payAddress, 'toAddress')}</dd>
      </dl>
    </div>
    <p part="warning">${host.t('warning', { asset, network: session.networkName })}</p>
    <p part="waiting"><span part="spinner"></span>${host.t('waiting')}</p>
    <p part="countdown" role="timer">${host.t('expiresIn', { time: host.countdown.text })}</p>
    ${session.sandbox ? html`<button part="button simulate" ?disabled=${busy} @click=${() => host.simulate()}>${host.t('simulate')}</button>` : ''}
  </div>`;
}
