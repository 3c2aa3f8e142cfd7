/**
 * Base class of `<paylink-admin>`: the part of Lit's `LitElement` the admin uses, written out, and one
 * typed `emit()` so every event bubbles out of shadow roots (merchants embed us in their own
 * components) and carries the detail type declared in `GlobalEventHandlersEventMap`.
 *
 * What it keeps of `LitElement`, with the same timing: properties declared in `static properties`
 * (attribute, `reflect`, `type: Number`, `state`) whose changes batch into one update per microtask;
 * `willUpdate` / `render` (lit-html, with the element as the `this` of event listeners) / `updated`;
 * reactive controllers (`hostConnected`, `hostUpdate`, `hostUpdated`, `hostDisconnected`);
 * `updateComplete` and `hasUpdated`; the first update waits until the element is on the page; a
 * property set on the element before its class was defined is applied at that first update; the
 * styles are one constructed sheet per class (a `<style>` where the browser has none). Left out:
 * decorators, converters and `hasChanged`, `shouldUpdate`, `firstUpdated`, async directives.
 * `dist/paylink.js` carries lit-html for both elements already; Lit's `ReactiveElement`, `LitElement`
 * and CSS tags on top of it cost 2.6 kB gzipped, this base a fraction of that.
 * `<paylink-checkout>` is not built on it (see its header); its machine's host emits the same way.
 * Where there is no DOM (Node, a server build) the class stands on `Object` and is never defined.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { render } from 'lit/html.js';

/** Names of the events the Paylink elements declare in `GlobalEventHandlersEventMap`. */
export type PaylinkEventName = Extract<keyof GlobalEventHandlersEventMap, `paylink-${string}`>;

/** The `detail` type of a Paylink event. */
export type PaylinkEventDetail<K extends PaylinkEventName> = GlobalEventHandlersEventMap[K] extends CustomEvent<infer D> ? D : never;

/** How one property of `static properties` behaves, as in Lit's declarations. */
export interface PropertyDeclaration {
  /** Internal state: never an attribute. */
  state?: boolean;
  /** The attribute's name, or `false` for none; by default the property's name in lower case. */
  attribute?: string | false;
  /** Writes the property back to its attribute after each change made by code (`null`/`undefined` removes it). */
  reflect?: boolean;
  /** `Number` reads the attribute as a number (its removal as `null`); otherwise the attribute's text. */
  type?: NumberConstructor;
}

/** The `static properties` of an element. */
export type PropertyDeclarations = Record<string, PropertyDeclaration>;

/** The properties changed since the last update, each with its value before. */
export type PropertyValues = Map<PropertyKey, unknown>;

/** The attribute of property `name`, or undefined. */
const attributeOf = (name: string, { state, attribute }: PropertyDeclaration) => (state || attribute === false ? undefined : (attribute ?? name.toLowerCase()));

/** The element base of `<paylink-admin>` (see the module comment). */
export class PaylinkElement extends ((globalThis.HTMLElement || Object) as typeof HTMLElement) implements ReactiveControllerHost {
  /** The reactive properties of the element. */
  static properties: PropertyDeclarations = {};
  /** The element's CSS text, adopted by every instance's shadow root. */
  static styles = '';
  static readonly #sheets = new WeakMap<object, CSSStyleSheet>();

  /** The attributes of `properties`. Read once by `customElements.define`: the accessors are made then. */
  static get observedAttributes(): string[] {
    const attributes: string[] = [];
    for (const [name, declaration] of Object.entries(this.properties)) {
      Object.defineProperty(this.prototype, name, {
        get(this: PaylinkElement) {
          return this.#values[name];
        },
        set(this: PaylinkElement, value: unknown) {
          const previous = this.#values[name];
          // Lit's notEqual: NaN set again is no change.
          if (previous === value || (previous !== previous && value !== value)) return;
          this.#values[name] = value;
          if (!this.#changed.has(name)) this.#changed.set(name, previous);
          if (declaration.reflect && this.#reflecting !== name) this.#reflect.add(name);
          this.requestUpdate();
        },
        configurable: true,
        enumerable: true,
      });
      const attribute = attributeOf(name, declaration);
      if (attribute) attributes.push(attribute);
    }
    return attributes;
  }

  /** The shadow root the element renders into (made when it is first put on the page). */
  declare renderRoot: ShadowRoot;
  /** True once the element has rendered. */
  hasUpdated = false;

  #values: Record<string, unknown> = {};
  #changed: PropertyValues = new Map();
  #reflect = new Set<string>();
  #pending = false;
  #updated: Promise<boolean>;
  #connect!: (ready: boolean) => void;
  #controllers: ReactiveController[] = [];
  /** Properties set on the element before its class was defined: applied at the first update. */
  #early: [string, unknown][];
  /** The property being set from its attribute or written to it: neither direction echoes back. */
  #reflecting?: string;

  constructor() {
    super();
    this.#updated = new Promise((resolve) => (this.#connect = resolve));
    this.#early = Object.keys((this.constructor as typeof PaylinkElement).properties)
      .filter((name) => Object.hasOwn(this, name))
      .map((name) => {
        const value = this[name as keyof this];
        delete this[name as keyof this];
        return [name, value];
      });
    this.requestUpdate();
  }

  /** Resolves once the pending update is done: true, or false when another update was requested during it. */
  get updateComplete(): Promise<boolean> {
    return this.#updated;
  }

  addController(controller: ReactiveController): void {
    this.#controllers.push(controller);
    if (this.renderRoot && this.isConnected) controller.hostConnected?.();
  }

  removeController(controller: ReactiveController): void {
    this.#controllers = this.#controllers.filter((other) => other !== controller);
  }

  /** Schedules an update (one per microtask, whatever changed meanwhile). */
  requestUpdate(): void {
    if (this.#pending) return;
    this.#pending = true;
    const update = () => this.#update();
    // A failed update is reported and does not stop the next one.
    this.#updated = this.#updated.then(update, (error) => (Promise.reject(error), update()));
  }

  connectedCallback(): void {
    if (!this.renderRoot) {
      const root = (this.renderRoot = this.attachShadow({ mode: 'open' }));
      const { styles } = this.constructor as typeof PaylinkElement;
      try {
        let sheet = PaylinkElement.#sheets.get(this.constructor);
        if (!sheet) {
          PaylinkElement.#sheets.set(this.constructor, (sheet = new CSSStyleSheet()));
          sheet.replaceSync(styles);
        }
        root.adoptedStyleSheets = [sheet];
      } catch {
        // No constructable style sheets (Safari before 16.4): a style element instead.
        root.append(Object.assign(document.createElement('style'), { textContent: styles }));
      }
    }
    this.#connect(true);
    for (const controller of this.#controllers) controller.hostConnected?.();
  }

  disconnectedCallback(): void {
    for (const controller of this.#controllers) controller.hostDisconnected?.();
  }

  attributeChangedCallback(attribute: string, _previous: string | null, value: string | null): void {
    for (const [name, declaration] of Object.entries((this.constructor as typeof PaylinkElement).properties)) {
      if (attributeOf(name, declaration) !== attribute || this.#reflecting === name) continue;
      this.#reflecting = name;
      (this as Record<string, unknown>)[name] = declaration.type && value !== null ? Number(value) : value;
      this.#reflecting = undefined;
    }
  }

  /**
   * Dispatches `name` with `detail`, bubbling and composed. Returns false when a listener called
   * `preventDefault()` on a cancelable event.
   */
  emit<K extends PaylinkEventName>(name: K, detail: PaylinkEventDetail<K>, cancelable = false): boolean {
    return this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable }));
  }

  /** Before rendering: may change properties without another update. */
  protected willUpdate(_changed: PropertyValues): void {}

  /** What the shadow root shows. */
  protected render(): unknown {
    return undefined;
  }

  /** After rendering: a property changed here schedules another update. */
  protected updated(_changed: PropertyValues): void {}

  #update(): boolean {
    if (!this.hasUpdated) for (const [name, value] of this.#early.splice(0)) (this as Record<string, unknown>)[name] = value;
    const changed = this.#changed;
    try {
      this.willUpdate(changed);
      for (const controller of this.#controllers) controller.hostUpdate?.();
      const view = this.render();
      const { properties } = this.constructor as typeof PaylinkElement;
      for (const name of this.#reflect) {
        const attribute = attributeOf(name, properties[name]!)!;
        const value = (this as Record<string, unknown>)[name];
        this.#reflecting = name;
        if (value == null) this.removeAttribute(attribute);
        else this.setAttribute(attribute, String(value));
        this.#reflecting = undefined;
      }
      this.#reflect.clear();
      this.#changed = new Map();
      this.#pending = false;
      render(view, this.renderRoot, { host: this });
    } catch (error) {
      this.#changed = new Map();
      this.#pending = false;
      throw error;
    }
    for (const controller of this.#controllers) controller.hostUpdated?.();
    this.hasUpdated = true;
    this.updated(changed);
    return !this.#pending;
  }
}
