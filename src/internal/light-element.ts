/**
 * A small reactive base for the checkout: lit-html renders, Lit's `css` and `adoptStyles` style,
 * and it hosts Lit `ReactiveController`s — but without Lit's `ReactiveElement`, whose 2.3 kB
 * gzipped the checkout's 15 kB budget (Lit + QR + everything) cannot carry. It keeps the parts of
 * `LitElement` the checkout uses, with the same meaning: `static properties` (attribute name,
 * `reflect`, `state`), batched asynchronous updates, `willUpdate(changed)`, `render()`,
 * `updated(changed)`, `updateComplete`, `hasUpdated`, `renderRoot`, `addController`, and no
 * update before the element is first connected. `<paylink-admin>` uses `PaylinkElement`
 * (LitElement); both have the same typed `emit()`.
 */
import { adoptStyles, type CSSResultOrNative } from '@lit/reactive-element/css-tag.js';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { render } from 'lit/html.js';
import type { PaylinkEventDetail, PaylinkEventName } from './paylink-element.js';

/** How a property behaves: its attribute (kebab-case name, or none), reflection, internal state. */
export interface LightPropertyOptions {
  attribute?: string | false;
  reflect?: boolean;
  state?: boolean;
}

/** The properties that changed in an update, with their previous values. */
export type ChangedProperties = Map<PropertyKey, unknown>;

export abstract class LightElement extends HTMLElement implements ReactiveControllerHost {
  static styles: CSSResultOrNative[] = [];
  static properties: Record<string, LightPropertyOptions> = {};

  /** The attribute of each public property (those with one). */
  private static attributes(): Map<string, string> {
    return new Map(
      Object.entries(this.properties).flatMap(([name, { attribute, state }]) =>
        attribute === false || state ? [] : [[attribute ?? name.toLowerCase(), name]],
      ),
    );
  }

  static get observedAttributes(): string[] {
    return [...this.attributes().keys()];
  }

  /** Creates the reactive accessors and defines the element (once: the first definition wins). */
  static define(tag: string): void {
    for (const [name, options] of Object.entries(this.properties)) {
      Object.defineProperty(this.prototype, name, {
        get(this: LightElement) {
          return this.values.get(name);
        },
        set(this: LightElement, value: unknown) {
          const previous = this.values.get(name);
          if (previous === value) return;
          this.values.set(name, value);
          if (!this.changed.has(name)) this.changed.set(name, previous);
          if (options.reflect) this.reflect.add(name);
          this.requestUpdate();
        },
      });
    }
    customElements.get(tag) || customElements.define(tag, this as unknown as CustomElementConstructor);
  }

  readonly renderRoot: ShadowRoot;
  hasUpdated = false;
  /** Resolves when the pending update (if any) has rendered. */
  updateComplete: Promise<boolean> = Promise.resolve(true);
  private values = new Map<PropertyKey, unknown>();
  private changed: ChangedProperties = new Map();
  private reflect = new Set<string>();
  private controllers = new Set<ReactiveController>();
  private scheduled = false;
  private connected = false;
  /** Properties set on the element before it was upgraded: applied when it first connects. */
  private early?: [string, unknown][];

  constructor() {
    super();
    this.renderRoot = this.attachShadow({ mode: 'open' });
    adoptStyles(this.renderRoot, (this.constructor as typeof LightElement).styles);
    this.early = Object.keys((this.constructor as typeof LightElement).properties)
      .filter((name) => Object.hasOwn(this, name))
      .map((name) => {
        const value = (this as unknown as Record<string, unknown>)[name];
        delete (this as unknown as Record<string, unknown>)[name];
        return [name, value];
      });
  }

  addController(controller: ReactiveController): void {
    this.controllers.add(controller);
    if (this.connected) controller.hostConnected?.();
  }

  removeController(controller: ReactiveController): void {
    this.controllers.delete(controller);
  }

  /** Schedules one render for everything changed in this task (from the first connection on). */
  requestUpdate(): void {
    if (this.scheduled || !this.connected) return;
    this.scheduled = true;
    this.updateComplete = Promise.resolve().then(() => {
      this.scheduled = false;
      const changed = this.changed;
      this.changed = new Map();
      this.willUpdate(changed);
      for (const name of this.reflect) {
        const value = this.values.get(name);
        const attribute = (this.constructor as typeof LightElement).properties[name]!.attribute || name;
        value == null ? this.removeAttribute(attribute) : this.setAttribute(attribute, String(value));
      }
      this.reflect.clear();
      this.controllers.forEach((controller) => controller.hostUpdate?.());
      render(this.render(), this.renderRoot, { host: this });
      this.hasUpdated = true;
      this.controllers.forEach((controller) => controller.hostUpdated?.());
      this.updated(changed);
      return !this.scheduled;
    });
  }

  connectedCallback(): void {
    this.early?.forEach(([name, value]) => ((this as unknown as Record<string, unknown>)[name] = value));
    this.early = undefined;
    this.connected = true;
    this.controllers.forEach((controller) => controller.hostConnected?.());
    this.requestUpdate();
  }

  disconnectedCallback(): void {
    this.connected = false;
    this.controllers.forEach((controller) => controller.hostDisconnected?.());
  }

  attributeChangedCallback(attribute: string, _previous: string | null, value: string | null): void {
    const name = (this.constructor as typeof LightElement).attributes().get(attribute);
    if (name) (this as unknown as Record<string, unknown>)[name] = value ?? undefined;
  }

  /**
   * Dispatches `name` with `detail`, bubbling and composed. Returns false when a listener called
   * `preventDefault()` on a cancelable event.
   */
  emit<K extends PaylinkEventName>(name: K, detail: PaylinkEventDetail<K>, cancelable = false): boolean {
    return this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable }));
  }

  protected willUpdate(_changed: ChangedProperties): void {}
  protected updated(_changed: ChangedProperties): void {}
  protected abstract render(): unknown;
}
