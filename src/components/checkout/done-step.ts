/**
 * Step 4, reached only when the server reports the session paid: a drawn check mark, the
 * merchant's success message, a receipt (amount, what was sent, the network it came on, transaction with copy and
 * explorer link) when the link asks for a confirmation page, or the way back to the merchant when
 * it redirects (http/https only). An order opened again once paid (no session of this page) shows the
 * check mark and the thanks.
 */
import { html } from 'lit/html.js';
import type { CheckoutSession } from '../../core/schemas.js';
import type { CheckoutMachine } from './checkout-machine.js';
import { fundraiser, heading, paidElsewhere, paidOn, txHash } from './parts.js';

/** What the done step renders and calls. */
export type DoneStepInput = Parameters<typeof fundraiser>[0] & Pick<CheckoutMachine, 'session' | 'l10n' | 't' | 'redirectTo' | 'copied' | 'copy'>;

export function renderDoneStep(m: DoneStepInput) {
  // Members read as `m.x`, never destructured: the bundles shorten their names (scripts/private-names.ts).
  const l10n = m.l10n;
  const redirectTo = m.redirectTo;
  const { postpayAction: action, fiatAmount, fiatCurrency, paidAmount, assetId, networkName, txHash: hash, explorerUrl } = m.session || ({} as CheckoutSession);

  return html`<div part="state done">
    <svg part="success-icon" viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="11" /><path d="M7 12.5l3 3 7-7" /></svg>
    ${heading(m.t('paid'))}
    <p part="message">${action?.successMessage || m.t('thanks')}</p>
    ${m.session ? paidOn(m) : ''} ${fundraiser(m)}
    ${
      redirectTo
        ? html`<p>${m.t('redirecting')}</p>
          <a part="button primary" href=${redirectTo}>${m.t('next')}</a>`
        : action?.showConfirmationPage
          ? html`<dl part="receipt">
            <dt>${m.t('amount')}</dt>
            <dd>${l10n.money(fiatAmount, fiatCurrency)} · ${l10n.crypto(paidAmount, assetId)}</dd>
            <dt>${m.t('network')}</dt>
            <dd>${paidElsewhere(m) || networkName}</dd>
            ${hash ? html`<dt>${m.t('transaction')}</dt><dd>${txHash(m, hash, explorerUrl)}</dd>` : ''}
          </dl>`
          : ''
    }
  </div>`;
}
