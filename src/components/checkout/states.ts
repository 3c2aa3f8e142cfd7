/**
 * The checkout's unhappy states, each with its own words: loading (the card reserves the
 * height), not found, inactive, closed (saying when), network failure (retry), expired quote
 * (start again; says what was received, if anything).
 */
import { html } from 'lit/html.js';
import type { PaylinkCheckout } from './paylink-checkout.js';
import { heading } from './parts.js';

export function renderState(host: PaylinkCheckout) {
  const { view, link, session, l10n } = host;
  const state = view as 'loading' | 'notFound' | 'inactive' | 'closed' | 'error' | 'expired';
  const paid = session && +session.paidAmount ? l10n.crypto(session.paidAmount, session.assetId) : '';
  const action = state == 'error' ? 'retry' : state == 'expired' ? 'startAgain' : '';
  return html`<div part="state ${state}">
    ${state == 'loading'
      ? html`<span part="spinner"></span>${host.t('loading')}`
      : html`${heading(host.t(state))}
          <p>
            ${state == 'closed' && link?.closesAt
              ? host.t('closedBody', { date: l10n.date(link.closesAt) })
              : state == 'expired'
                ? host.t('expiredBody', { time: l10n.date(session!.expiresAt) })
                : host.t(state == 'closed' ? 'inactiveBody' : `${state}Body`)}
          </p>
          ${paid && state == 'expired' ? html`<p part="notice">${host.t('expiredPaid', { paid })}</p>` : ''}
          ${action ? html`<button part="button primary" @click=${() => host.handleRetry()}>${host.t(action)}</button>` : ''}`}
  </div>`;
}
