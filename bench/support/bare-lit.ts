/** The bundle baseline: the smallest useful LitElement (a reactive property and a template). */
import { LitElement, css, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';

@customElement('bare-element')
export class BareElement extends LitElement {
  static override styles = css`:host { display: block; }`;
  @property() name = 'world';
  override render() {
    return html`<p>Hello, ${this.name}</p>`;
  }
}
