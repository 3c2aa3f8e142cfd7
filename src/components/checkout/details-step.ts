/**
 * Step 2, only when the link asks: delivery address and/or phone, checked by the service's rule
 * (`customer-rules.ts`) here and by the service, whose field errors appear beside the field they
 * name; ends with the asset choice and the pay button.
 */
import { html } from 'lit/html.js';
import type { CheckoutMachine } from './checkout-machine.js';
import { assetChoice, field, heading } from './parts.js';

/** What the details step renders and calls. */
export type DetailsStepInput = Parameters<typeof assetChoice>[0] & Pick<CheckoutMachine, 'address' | 'phone' | 'errors' | 'edit' | 'submitDetails' | 'show'>;

export function renderDetailsStep(m: DetailsStepInput) {
  const { collectAddress, collectPhone } = m.link!.prepayOptions;
  return html`<form
    part="form"
    novalidate
    @submit=${(event: Event) => {
      event.preventDefault();
      m.submitDetails();
    }}
  >
    ${heading(m.t('details'))}
    ${collectAddress ? field(m, 'customer.address', m.t('address'), m.address) : ''}
    ${collectPhone ? field(m, 'customer.phone', m.t('phone'), m.phone) : ''}
    ${assetChoice(m)}
    <button part="button back" type="button" @click=${() => m.show('amount')}>${m.t('back')}</button>
  </form>`;
}
