/** Small pieces the checkout's steps share. Each takes what it renders and the callbacks it calls. */
import { html, type TemplateResult } from 'lit/html.js';
import { MAX_ADDRESS_LENGTH, MAX_AMOUNT_TEXT_LENGTH, MAX_DONOR_MESSAGE_LENGTH, MAX_DONOR_NAME_LENGTH, MAX_PHONE_LENGTH } from '../../core/rules/limits.js';
import { assetName } from '../../internal/localize.js';
import type { CheckoutSession } from '../../core/schemas.js';
import type { CheckoutMachine } from './checkout-machine.js';
import type { FieldPath, MessageKey, Payable } from './checkout-types.js';

/** The heading of a step or state; focused (tabindex -1) when the customer moves to it. */
export const heading = (text: string): TemplateResult => html`<h2 part="heading" tabindex="-1">${text}</h2>`;

/**
 * A labelled text field: the donation amount, the delivery address (a textarea), the phone, or a
 * donor's name or message, with autofill hints and the service's caps. Its error (from the form or the server, keyed by `path`) takes the place of its
 * hint (never both: a refused minimum is said once) and describes it; typing clears the error.
 */
export function field(m: Pick<CheckoutMachine, 'errors' | 'edit'>, path: FieldPath, label: string, value: string, hint = ''): TemplateResult {
  const error = m.errors[path];
  const phone = path == 'customer.phone';
  const onInput = (event: Event) => m.edit(path, (event.target as HTMLInputElement).value);
  return html`<div part="field">
    <label part="label" for=${path}>${label}</label>
    ${
      path == 'customer.address'
        ? html`<textarea
          id=${path}
          part="input"
          rows="3"
          autocomplete="street-address"
          required
          maxlength=${MAX_ADDRESS_LENGTH}
          .value=${value}
          aria-invalid=${!!error}
          aria-describedby="${path}-error"
          @input=${onInput}
        ></textarea>`
        : html`<input
          id=${path}
          part="input"
          type=${phone ? 'tel' : 'text'}
          inputmode=${phone ? 'tel' : path == 'fiatAmount' ? 'decimal' : 'text'}
          autocomplete=${phone ? 'tel' : path == 'donorName' ? 'name' : 'off'}
          ?required=${phone}
          maxlength=${phone ? MAX_PHONE_LENGTH : path == 'donorName' ? MAX_DONOR_NAME_LENGTH : path == 'message' ? MAX_DONOR_MESSAGE_LENGTH : MAX_AMOUNT_TEXT_LENGTH}
          .value=${value}
          aria-invalid=${!!error}
          aria-describedby="${path}-error ${path}-hint"
          @input=${onInput}
        />`
    }
    ${error ? html`<small part="error" id="${path}-error">${error}</small>` : html`<small part="hint" id="${path}-hint">${hint}</small>`}
  </div>`;
}

/**
 * A network as exchanges name it: its name and, where its chain has one, its token standard
 * (`BNB Smart Chain (BEP20)`, `Ethereum (ERC20)`; `Polygon` is its own), known by the EIP-155 chain id.
 */
export const networkLabel = (name: string, chainId: number | null | undefined): string => {
  const standard = ({ 56: 'BEP20', 97: 'BEP20', 1: 'ERC20', 11155111: 'ERC20' } as Record<number, string>)[chainId!];
  return standard ? `${name} (${standard})` : name;
};

/**
 * The name of the network a payment came on when it is another of the link's networks than the one
 * the session was quoted on (the service credits the session all the same); else '' (also with no
 * session: an order opened again once paid).
 */
export function paidElsewhere(m: Pick<CheckoutMachine, 'session' | 'link'>): string {
  const { paidBlockchainId: paid, blockchainId } = m.session || ({} as CheckoutSession);
  return paid && paid != blockchainId ? (m.link?.assets.find((pair) => pair.blockchainId == paid)?.networkName ?? paid) : '';
}

/** "Paid on Polygon", when the payment came on another of the link's networks (`paidElsewhere`); else nothing. */
export function paidOn(m: Pick<CheckoutMachine, 'session' | 'link' | 't'>) {
  const network = paidElsewhere(m);
  return network ? html`<p part="notice paid-on">${m.t('paidOn', { network })}</p>` : '';
}

/**
 * A fundraiser's progress: what it raised of its goal and from how many donors, over a progress bar
 * (its value the percent reached, full past the goal, and that text its name); then its latest public donors, when the page
 * shows them: each name and message (when the donor gave them) as text, never markup, and the amount given.
 */
export function fundraiser(m: Pick<CheckoutMachine, 'link' | 'publicDonors' | 't' | 'money' | 'l10n'>) {
  const { goalAmount: goal, raised, donorCount: count } = m.link || ({} as Payable);
  // Without a goal this is 0 (`NaN | 0`), and the bar is not shown anyway.
  const percent = Math.min(100, ((100 * +raised!) / +goal!) | 0);
  return html`${
    goal
      ? html`<p part="raised" id="raised">
          ${m.t('raised', { raised: m.money(raised!), goal: m.money(goal) })} · ${m.t(count == 1 ? 'donor' : 'donors', { n: count! })}
          <progress part="progress" role="progressbar" max="100" value=${percent} aria-valuenow=${percent} aria-labelledby="raised"></progress>
        </p>`
      : ''
  }
    ${
      m.publicDonors?.length
        ? html`<ul part="donors">
          ${m.publicDonors.map(
            (donor) =>
              html`<li part="donor">
                <span part="donor-name">${donor.name}<small>${donor.message}</small></span>${m.l10n.money(donor.amount, donor.currency)}
              </li>`,
          )}
        </ul>`
        : ''
    }`;
}

/**
 * The end of the last form step: one asset selector (a native select: a phone opens its own
 * picker; each option names the asset's network, and the hint under it names the chosen network
 * in full, which a narrow select may clip) and one pay button, which names the amount only
 * while it is payable: "Pay NGN 5,000.00 · USDT".
 */
export function assetChoice(m: Pick<CheckoutMachine, 'link' | 'assetId' | 'network' | 'busy' | 'amountProblem' | 'price' | 't' | 'money' | 'chooseAsset'>) {
  const asset = assetName(m.assetId);
  let chosen = '';
  return html`<div part="field">
      <label part="label" for="asset">${m.t('assets')}</label>
      <select id="asset" part="input assets" aria-describedby="asset-hint" @change=${(event: Event) => m.chooseAsset((event.target as HTMLSelectElement).value)}>
        ${m.link!.assets.map(({ assetId, blockchainId, networkName, chainId }) => {
          const selected = assetId == m.assetId && blockchainId == m.network;
          const network = networkLabel(networkName, chainId);
          if (selected) chosen = network;
          return html`<option part="asset" value="${assetId} ${blockchainId}" ?selected=${selected}>${assetName(assetId)} · ${network}</option>`;
        })}
      </select>
      <small part="hint" id="asset-hint">${m.t('onNetwork', { network: chosen })}</small>
    </div>
    <button part="button primary pay-button" ?disabled=${m.busy}>
      ${m.amountProblem ? m.t('payWith', { name: asset }) : m.t('pay', { amount: m.money(m.price), asset })}
    </button>`;
}

/** A copy button for `text`, labelled by what it copies (`key`); it says "Copied" once used. */
export function copyButton(m: Pick<CheckoutMachine, 'copied' | 't' | 'copy'>, text: string, key: MessageKey): TemplateResult {
  const done = m.copied === key;
  return html`<button type="button" part="button copy-button" aria-label="${m.t(done ? 'copied' : 'copy')}: ${m.t(key)}" @click=${() => m.copy(text, key)}>
    ${done ? '✓ ' + m.t('copied') : m.t('copy')}
  </button>`;
}

/**
 * A transaction hash, shortened to its ends (`0x5f2c9a…b41e07`; the whole hash is its title and what
 * the copy button copies), and a link to it on the network's explorer when there is one.
 */
export function txHash(m: Pick<CheckoutMachine, 'copied' | 't' | 'copy'>, hash: string, explorerUrl: string | null): TemplateResult {
  return html`<span part="hash" title=${hash}>${hash.slice(0, 8)}…${hash.slice(-6)}</span>
    ${copyButton(m, hash, 'transaction')}
    ${
      /^https?:\/\//.test(explorerUrl!)
        ? html`<a part="button explorer" href="${explorerUrl}/tx/${encodeURIComponent(hash)}" target="_blank" rel="noreferrer">${m.t('explorer')}</a>`
        : ''
    }`;
}
