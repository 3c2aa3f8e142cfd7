/**
 * Step 2, only when the link asks: delivery address and/or phone, checked here and by the
 * server, whose field errors appear beside the field they name; ends with the asset choice.
 */
import { html } from 'lit/html.js';
import type { PaylinkCheckout } from './paylink-checkout.js';
import { field, heading, payButtons } from './parts.js';

export function renderDetailsStep(host: PaylinkCheckout) {
  const { collectAddress, collectPhone } = host.link!.prepayOptions;
  return html`<form part="form" novalidate @submit=${(event: Event) => host.handleDetails(event)}>
    ${heading(host.t('details'))}
    ${collectAddress
      ? field(
          host,
          'customer.address',
          host.t('address'),
          (invalid, onInput) =>
            html`<textarea
              id="customer.address"
              part="input"
              rows="3"
              autocomplete="street-address"
              required
              maxlength="500"
              .value=${host.address}
              aria-invalid=${invalid}
              aria-describedby="customer.address-error"
              @input=${onInput}
            ></textarea>`,
        )
      : ''}
    ${collectPhone
      ? field(
          host,
          'customer.phone',
          host.t('phone'),
          (invalid, onInput) =>
            html`<input
              id="customer.phone"
              part="input"
              type="tel"
              autocomplete="tel"
              required
              maxlength="40"
              .value=${host.phone}
              aria-invalid=${invalid}
              aria-describedby="customer.phone-error"
              @input=${onInput}
            />`,
        )
      : ''}
    ${payButtons(host)}
    <button part="button back" type="button" @click=${() => host.show('amount')}>${host.t('back')}</button>
  </form>`;
}
