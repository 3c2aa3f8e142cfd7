/**
 * Step 4, reached only when the server reports the session paid: the merchant's success message,
 * a receipt (amount, what was sent, network, transaction) when the link asks for a
 * confirmation page, or the way back to the merchant when it redirects (http/https only).
 */
import { html } from 'lit/html.js';
import type { PaylinkCheckout } from './paylink-checkout.js';
import { heading } from './parts.js';

export function renderDoneStep(host: PaylinkCheckout) {
  const { l10n, redirectTo } = host;
  const { postpayAction: action, ...session } = host.session!;
  const rows = [
    ['amount', `${l10n.money(session.fiatAmount, session.fiatCurrency)} · ${l10n.crypto(session.paidAmount, session.assetId)}`],
    ['network', session.networkName],
    ['transaction', session.txHash],
  ] as const;

  return html`<div part="state done">
    <span part="success-icon">✓</span>
    ${heading(host.t('paid'))}
    <p part="message">${action?.successMessage || host.t('thanks')}</p>
    ${redirectTo
      ? html`<p>${host.t('redirecting')}</p>
          <a part="button primary" href=${redirectTo}>${host.t('next')}</a>`
      : action?.showConfirmationPage
        ? html`<dl part="receipt">${rows.map(([key, value]) => (value ? html`<dt>${host.t(key)}</dt><dd>${value}</dd>` : ''))}</dl>`
        : ''}
  </div>`;
}
