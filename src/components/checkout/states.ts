/**
 * The checkout's unhappy states, each with its own words: loading (the card reserves the
 * height), not found, inactive, closed (saying when), network failure (retry), expired quote
 * (start again; says what was received, if anything: an expired state always has its session). An
 * order paid already is the done step's (./done-step.ts).
 */
import { html } from 'lit/html.js';
import type { CheckoutMachine } from './checkout-machine.js';
import { heading } from './parts.js';

/** What the state screens render and call. */
export type StateInput = Pick<CheckoutMachine, 'view' | 'link' | 'session' | 'l10n' | 't' | 'retry'>;

export function renderState(m: StateInput) {
  // Members read as `m.x`, never destructured: the bundles shorten their names (scripts/private-names.ts).
  const { view: state, link, session } = m as StateInput & { view: 'loading' | 'notFound' | 'inactive' | 'closed' | 'error' | 'rates' | 'expired' };
  const l10n = m.l10n;
  // A connection that failed and a price without a current rate: either may work on a retry, and nothing was taken.
  const action = state == 'error' || state == 'rates' ? 'retry' : state == 'expired' ? 'startAgain' : '';
  return html`<div part="state ${state}">
    ${
      state == 'loading'
        ? html`<span part="spinner"></span>${m.t('loading')}`
        : html`${heading(m.t(state))}
          <p>
            ${
              state == 'closed' && link?.closesAt
                ? m.t('closedBody', { date: l10n.date(link.closesAt) })
                : state == 'expired'
                  ? m.t('expiredBody', { time: l10n.date(session!.expiresAt) })
                  : action == 'retry'
                    ? m.t('errorBody')
                    : ''
            }
          </p>
          ${
            state == 'expired' && +session!.paidAmount
              ? html`<p part="notice">${m.t('expiredPaid', { paid: l10n.crypto(session!.paidAmount, session!.assetId) })}</p>`
              : ''
          }
          ${action ? html`<button part="button primary" @click=${() => m.retry()}>${m.t(action)}</button>` : ''}`
    }
  </div>`;
}
