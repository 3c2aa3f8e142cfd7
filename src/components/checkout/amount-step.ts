/**
 * Step 1: what is being paid, ending with the asset choice (or "Continue" to the details). A Standard link shows its fixed amount, or its cart (quantities,
 * line totals and total computed exactly from decimal strings) — never editable. A Donation link
 * offers the suggested amounts and a free amount within the link's min/max.
 */
import { html } from 'lit/html.js';
import { fractionDigits, fromUnits, toUnits } from '../../core/money.js';
import type { PaylinkCheckout } from './paylink-checkout.js';
import { field, heading, payButtons } from './parts.js';

export function renderAmountStep(host: PaylinkCheckout) {
  const { title, description, cart, linkType, fiatAmount, suggestedAmounts, minAmount, maxAmount } = host.link!;
  const money = (amount: string) => host.money(amount);
  // Scaled bigints at the widest precision in play: exact totals, never floats.
  const digits = Math.max(host.l10n.digits(host.currency), ...cart.items.map((item) => fractionDigits(item.unitAmount)));
  let total = 0n;

  return html`<form part="form" novalidate @submit=${(event: Event) => host.handleAmount(event)}>
    ${heading(title)}
    <p part="description">${description}</p>
    ${cart.items.length
      ? html`<ul part="cart">
            ${cart.items.map((item) => {
              const line = toUnits(item.unitAmount, digits) * BigInt(item.quantity);
              total += line;
              return html`<li part="cart-item">
                <span part="item-name">${item.name}<small>${item.description} ${item.quantity} × ${money(item.unitAmount)}</small></span>
                <span part="item-total">${money(fromUnits(line, digits))}</span>
              </li>`;
            })}
          </ul>
          <p part="total">${host.t('total')} <strong>${money(fromUnits(total, digits))}</strong></p>`
      : linkType == 'Standard'
        ? html`<p part="price">${money(fiatAmount)}</p>`
        : html`<div part="suggestions" role="group" aria-label=${host.t('amountIn', { currency: host.currency })}>
              ${suggestedAmounts.map(
                (amount) =>
                  html`<button type="button" part="button chip" aria-pressed=${host.price == amount} @click=${() => host.edit('fiatAmount', amount)}>
                    ${money(amount)}
                  </button>`,
              )}
            </div>
            ${field(
              host,
              'fiatAmount',
              host.t('amountIn', { currency: host.currency }),
              (invalid, onInput) =>
                html`<input
                  id="fiatAmount"
                  part="input"
                  inputmode="decimal"
                  autocomplete="off"
                  .value=${host.amountText}
                  aria-invalid=${invalid}
                  aria-describedby="fiatAmount-error fiatAmount-hint"
                  @input=${onInput}
                />`,
              [minAmount && host.t('min', { amount: money(minAmount) }), maxAmount && host.t('max', { amount: money(maxAmount) })]
                .filter(Boolean)
                .join(' · '),
            )}`}
    ${host.needsDetails ? html`<button part="button primary">${host.t('next')}</button>` : payButtons(host)}
  </form>`;
}
