/**
 * What the admin's browser tests share: finding things by `part`, role or label inside the
 * element's shadow root, typing and choosing as a user would, and mounting the element on a
 * `FakeAdminApi`.
 */
import { fixture, html, waitUntil, aTimeout } from '@open-wc/testing';
import { ifDefined } from 'lit/directives/if-defined.js';
import '../../src/admin.js';
import type { PaylinkAdmin } from '../../src/components/admin/paylink-admin.js';
import { FakeAdminApi, makeLink } from './admin-fake-api.js';

export const CHECKSUMMED = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function $(el: PaylinkAdmin, selector: string): HTMLElement | null {
  return el.shadowRoot!.querySelector<HTMLElement>(selector);
}
export function $$(el: PaylinkAdmin, selector: string): HTMLElement[] {
  return [...el.shadowRoot!.querySelectorAll<HTMLElement>(selector)];
}
export function part(el: PaylinkAdmin, name: string): HTMLElement {
  const found = $(el, `[part~="${name}"]`);
  if (!found) throw new Error(`No [part~="${name}"] in the admin`);
  return found;
}
export function text(node: Element | null | undefined): string {
  return (node?.textContent ?? '').replace(/\s+/g, ' ').trim();
}
/** The control labelled `label` (by its `<label for>`). */
export function field(el: PaylinkAdmin, label: string | RegExp): HTMLInputElement {
  const labels = $$(el, 'label');
  const match = labels.find((l) => (typeof label === 'string' ? text(l) === label : label.test(text(l))));
  if (!match) throw new Error(`No field labelled ${label}; labels: ${labels.map(text).join(' | ')}`);
  const control = el.shadowRoot!.getElementById((match as HTMLLabelElement).htmlFor);
  if (!control) throw new Error(`Label ${label} points at nothing`);
  return control as HTMLInputElement;
}
export async function type(el: PaylinkAdmin, control: HTMLInputElement, value: string) {
  control.focus();
  control.value = value;
  control.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  await el.updateComplete;
}
export async function choose(el: PaylinkAdmin, control: HTMLSelectElement | HTMLInputElement, value?: string) {
  if (control instanceof HTMLSelectElement) control.value = value!;
  else if (control.type === 'checkbox' || control.type === 'radio') control.checked = value === undefined ? !control.checked : value === 'on';
  else control.value = value!;
  control.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
  await el.updateComplete;
}
export async function click(el: PaylinkAdmin, target: HTMLElement) {
  target.click();
  await el.updateComplete;
}
export function button(el: PaylinkAdmin, name: string | RegExp): HTMLButtonElement {
  const buttons = $$(el, 'button');
  const match = buttons.find((b) => {
    const accessible = b.getAttribute('aria-label') ?? text(b);
    return typeof name === 'string' ? accessible === name : name.test(accessible);
  });
  if (!match) throw new Error(`No button ${name}; buttons: ${buttons.map((b) => b.getAttribute('aria-label') ?? text(b)).join(' | ')}`);
  return match as HTMLButtonElement;
}
export function errorFor(el: PaylinkAdmin, control: HTMLElement): string {
  const ids = (control.getAttribute('aria-describedby') ?? '').split(/\s+/).filter((id) => id.endsWith('-error'));
  return ids.map((id) => text(el.shadowRoot!.getElementById(id))).join(' ');
}
/**
 * Lets what the last action started finish: the fake API answers at once (no timer), so two turns of
 * the task queue, each followed by a render, see its answers read and shown. A flush, not a wait on
 * the clock: a test that waits for something slower waits for it by name (`waitUntil`).
 */
export async function settle(el: PaylinkAdmin) {
  await aTimeout(0);
  await el.updateComplete;
  await aTimeout(0);
  await el.updateComplete;
}

export async function mount(api: FakeAdminApi, attributes: { view?: string; locale?: string; theme?: 'light' | 'dark' } = {}): Promise<PaylinkAdmin> {
  const el = await fixture<PaylinkAdmin>(
    html`<paylink-admin .fetch=${api.fetch} view=${attributes.view ?? 'links'} locale=${attributes.locale ?? 'en'} theme=${ifDefined(attributes.theme)} poll-interval="300"></paylink-admin>`,
  );
  await settle(el);
  return el;
}

export function seededApi(linkCount = 3): FakeAdminApi {
  const api = new FakeAdminApi();
  for (let i = 0; i < linkCount; i++) api.links.push(makeLink({ title: `Coffee beans ${i + 1}`, visitedCount: 40, paymentCount: 10 }));
  return api;
}

export async function openMoney(el: PaylinkAdmin) {
  await click(el, $(el, '[role="tab"]#tab-money')!);
  await waitUntil(() => $(el, '[part~="withdrawals-table"], [part~="empty"]') && text(part(el, 'balance-usdt')).includes('125.5'), 'money view loaded');
}

/** Shows the tab of `view` as a click on it would, and waits for its first answer. */
export async function openTab(el: PaylinkAdmin, view: 'links' | 'money' | 'orders' | 'payments' | 'webhooks' | 'rates') {
  await click(el, $(el, `[role="tab"]#tab-${view}`)!);
  await waitUntil(() => $(el, `#panel-${view} table, #panel-${view} [part~="empty"], #panel-${view} [part~="error"]`), `${view} loaded`);
  await settle(el);
}

/** The focused element inside the admin's shadow root. */
export function focused(el: PaylinkAdmin): HTMLElement | null {
  return el.shadowRoot!.activeElement as HTMLElement | null;
}

export async function fillWithdrawal(el: PaylinkAdmin, address = CHECKSUMMED, amount = '20') {
  await type(el, field(el, 'Destination address'), address);
  await type(el, field(el, /^Amount/), amount);
  await click(el, part(el, 'review'));
  await waitUntil(() => $(el, '[part~="withdraw-confirm"]'), 'confirm step shown');
}

/** The timers `holdTimers` holds back, for the test to run when it chooses. */
export interface HeldTimers {
  /** How many held timers are set and not cleared: a poll waiting for its turn. */
  readonly pending: number;
  /** Runs the held timers now, as if their time had come. */
  fire(): void;
  /** Gives the page its own `setTimeout` and `clearTimeout` back. */
  restore(): void;
}

/**
 * Holds back the page's timers of exactly `delay` ms (a poll's, whose interval the test sets through
 * `poll-interval`) until the test fires them; every other timer runs as usual. A test of polling then
 * neither sleeps nor depends on the machine's speed.
 */
export function holdTimers(delay: number): HeldTimers {
  const realSet = window.setTimeout;
  const realClear = window.clearTimeout;
  const held = new Map<number, () => void>();
  let nextId = 1_000_000_000;
  window.setTimeout = ((handler: TimerHandler, ms?: number, ...args: unknown[]) => {
    if (ms !== delay || typeof handler !== 'function') return realSet(handler, ms, ...args);
    const id = nextId++;
    held.set(id, () => handler(...args));
    return id;
  }) as typeof window.setTimeout;
  window.clearTimeout = ((id?: number) => {
    if (id === undefined || !held.delete(id)) realClear(id);
  }) as typeof window.clearTimeout;
  return {
    get pending() {
      return held.size;
    },
    fire() {
      const due = [...held.values()];
      held.clear();
      for (const run of due) run();
    },
    restore() {
      window.setTimeout = realSet;
      window.clearTimeout = realClear;
    },
  };
}
