/** Small pieces the checkout's steps share. */
import { html, type TemplateResult } from 'lit/html.js';
import { assetName } from '../../internal/localize.js';
import type { PaylinkCheckout } from './paylink-checkout.js';

/** The heading of a step or state; focused (tabindex -1) when the customer moves to it. */
export const heading = (text: string): TemplateResult => html`<h2 part="heading" tabindex="-1">${text}</h2>`;

/**
 * A labelled text field. Its error (from the form or the server, keyed by `path`) and its hint
 * sit below it and describe it (aria-describedby); typing clears the error.
 */
export function field(
  host: PaylinkCheckout,
  path: 'fiatAmount' | 'customer.address' | 'customer.phone',
  label: string,
  control: (invalid: boolean, onInput: (event: Event) => void) => TemplateResult,
  hint?: string,
): TemplateResult {
  const error = host.errors[path];
  return html`<div part="field">
    <label part="label" for=${path}>${label}</label>
    ${control(!!error, (event) => host.edit(path, (event.target as HTMLInputElement).value))}
    <small part="hint" id="${path}-hint">${hint}</small>
    <small part="error" id="${path}-error">${error}</small>
  </div>`;
}

/**
 * The asset choice that ends the form: one submit button per asset, naming its network
 * ("USDT · BNB Smart Chain"); the one pressed starts the payment in that asset.
 */
export const payButtons = (host: PaylinkCheckout): TemplateResult =>
  html`<div part="assets" role="group" aria-label=${host.t('payWith')}>
    ${host.link!.assets.map(
      ({ assetId, networkName }) =>
        html`<button part="button primary asset" value=${assetId} ?disabled=${host.busy}>
          ${+host.price ? host.t('pay', { amount: host.money(host.price) }) + ' ·' : host.t('payWith')} ${assetName(assetId)}
          <small>${networkName}</small>
        </button>`,
    )}
  </div>`;
