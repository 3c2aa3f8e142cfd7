/**
 * Step 1: what is being paid, ending with the asset choice and the pay button (or "Continue" to the
 * details). A Standard link (and an order, paid the same way) shows its fixed amount, or its cart
 * (quantities, line totals and total computed exactly from decimal strings; the total is the price,
 * which the service keeps equal to the cart's sum) — never editable; an untitled order is headed by
 * its amount. A Donation link offers the suggested amounts and a free amount within the link's
 * min/max, says until when it is open, shows a fundraiser's progress and latest donors, and takes the
 * donor's optional name and message and whether to show them on the page.
 */
import { html } from 'lit/html.js';
import { fractionDigits, toUnits } from '../../core/money.js';
import type { CheckoutMachine } from './checkout-machine.js';
import { assetChoice, field, fundraiser, heading } from './parts.js';

/** What the amount step renders and calls. */
export type AmountStepInput = Parameters<typeof assetChoice>[0] &
  Parameters<typeof fundraiser>[0] &
  Pick<CheckoutMachine, 'amountText' | 'currency' | 'errors' | 'edit' | 'l10n' | 'needsDetails' | 'submitAmount' | 'donorName' | 'message' | 'showPublicly'>;

export function renderAmountStep(m: AmountStepInput) {
  const { title, description, cart, linkType, fiatAmount, suggestedAmounts, minAmount, maxAmount, closesAt } = m.link!;
  const money = (amount: string) => m.money(amount);

  return html`<form
    part="form"
    novalidate
    @submit=${(event: Event) => {
      event.preventDefault();
      m.submitAmount();
    }}
  >
    ${heading(title || money(fiatAmount))}
    <p part="description">${description}</p>
    ${closesAt ? html`<small part="closes">${m.t('closes', { date: m.l10n.date(closesAt) })}</small>` : ''} ${fundraiser(m)}
    ${
      cart.items.length
        ? html`<ul part="cart">
            ${cart.items.map((item) => {
              // Exact: the price's digits as a bigint times the quantity, handed to Intl as `1700000e-2`, never a float.
              const digits = fractionDigits(item.unitAmount);
              const line = `${toUnits(item.unitAmount, digits) * BigInt(item.quantity)}e-${digits}`;
              return html`<li part="cart-item">
                <span part="item-name">${item.name}<small>${item.description} ${item.quantity} × ${money(item.unitAmount)}</small></span>
                <span part="item-total">${money(line)}</span>
              </li>`;
            })}
          </ul>
          <p part="total">${m.t('total')} <strong>${money(fiatAmount)}</strong></p>`
        : linkType != 'Donation'
          ? html`<p part="price">${money(fiatAmount)}</p>`
          : html`<div part="suggestions" role="group" aria-label=${m.t('amountIn', { currency: m.currency })}>
              ${suggestedAmounts!.map(
                (amount) =>
                  html`<button type="button" part="button chip" aria-pressed=${m.price == amount} @click=${() => m.edit('fiatAmount', amount)}>
                    ${money(amount)}
                  </button>`,
              )}
            </div>
            ${field(
              m,
              'fiatAmount',
              m.t('amountIn', { currency: m.currency }),
              m.amountText,
              [minAmount && m.t('donation.min', { amount: money(minAmount) }), maxAmount && m.t('donation.max', { amount: money(maxAmount) })]
                .filter(Boolean)
                .join(' · '),
            )}
            ${field(m, 'donorName', m.t('donorName'), m.donorName)} ${field(m, 'message', m.t('message'), m.message)}
            <label part="field check"
              ><input
                type="checkbox"
                part="checkbox"
                .checked=${m.showPublicly}
                @change=${(event: Event) => (m.showPublicly = (event.target as HTMLInputElement).checked)}
              />${m.t('showPublicly')}</label
            >`
    }
    ${m.needsDetails ? html`<button part="button primary">${m.t('next')}</button>` : assetChoice(m)}
  </form>`;
}
