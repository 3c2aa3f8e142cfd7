/**
 * Base class of `<paylink-admin>`: one typed `emit()` so every event bubbles out of shadow roots
 * (merchants embed us in their own components) and carries the detail type declared in
 * `GlobalEventHandlersEventMap`. `<paylink-checkout>` is not a Lit element (see its header); its
 * machine's host emits its events the same way.
 */
import { LitElement } from 'lit';

/** Names of the events the Paylink elements declare in `GlobalEventHandlersEventMap`. */
export type PaylinkEventName = Extract<keyof GlobalEventHandlersEventMap, `paylink-${string}`>;

/** The `detail` type of a Paylink event. */
export type PaylinkEventDetail<K extends PaylinkEventName> =
  GlobalEventHandlersEventMap[K] extends CustomEvent<infer D> ? D : never;

/** The element base of `<paylink-admin>`, with its typed `emit()`. */
export class PaylinkElement extends LitElement {
  /**
   * Dispatches `name` with `detail`, bubbling and composed. Returns false when a listener called
   * `preventDefault()` on a cancelable event.
   */
  emit<K extends PaylinkEventName>(name: K, detail: PaylinkEventDetail<K>, cancelable = false): boolean {
    return this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true, cancelable }));
  }
}
