/**
 * What the `<paylink-checkout>` browser tests share: everything is found by `part` inside the element's
 * shadow root, read as its text with spaces squeezed, waited for by condition, and audited with axe.
 */
import { expect, waitUntil } from '@open-wc/testing';
import type { PaylinkCheckout } from '../../src/components/checkout/paylink-checkout.js';

/** A node's text, its runs of white space (no-break ones too) as one space. */
export const text = (node: Element | null | undefined) => (node?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** The first node of `part` name; throws with what the card shows when there is none. */
export function part(el: PaylinkCheckout, name: string): HTMLElement {
  const found = el.shadowRoot!.querySelector<HTMLElement>(`[part~="${name}"]`);
  if (!found) throw new Error(`No [part~="${name}"] in: ${text(el.shadowRoot!.querySelector('[part~=card]'))}`);
  return found;
}

/** Every node of `part` name. */
export const parts = (el: PaylinkCheckout, name: string) => [...el.shadowRoot!.querySelectorAll<HTMLElement>(`[part~="${name}"]`)];

/** Whether a node of `part` name is there. */
export const has = (el: PaylinkCheckout, name: string) => !!el.shadowRoot!.querySelector(`[part~="${name}"]`);

/** Waits for `predicate` (4 s unless `timeout` says), then for the render it led to. */
export async function until(el: PaylinkCheckout, predicate: () => boolean, message: string, timeout = 4000) {
  await waitUntil(predicate, message, { timeout });
  await el.updateComplete;
}

/** The axe audit of the element as it stands, failing with `label` (which state it was in). */
export async function audit(el: PaylinkCheckout, label: string) {
  try {
    await expect(el).to.be.accessible();
  } catch (error) {
    throw new Error(`${label}: ${(error as Error).message}`);
  }
}
