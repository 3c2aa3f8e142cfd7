/**
 * Sets a CSS custom property on an element through the CSSOM (`style.setProperty`). Unlike a
 * `style="…"` attribute (which `styleMap` writes on first render), this is allowed under a strict
 * Content-Security-Policy without `'unsafe-inline'` in `style-src`.
 *
 * ```ts
 * html`<span part="bar" ${cssVar('--size', '40%')}></span>`
 * ```
 */
import { noChange } from 'lit/html.js';
import { Directive, directive, type ElementPart, type PartInfo, PartType } from 'lit/directive.js';

class CssVarDirective extends Directive {
  constructor(partInfo: PartInfo) {
    super(partInfo);
    if (partInfo.type !== PartType.ELEMENT) throw new Error('cssVar() goes on an element: <span ${cssVar(…)}>');
  }

  render(_name: string, _value: string) {
    return noChange;
  }

  override update(part: ElementPart, [name, value]: [string, string]) {
    (part.element as HTMLElement).style.setProperty(name, value);
    return noChange;
  }
}

export const cssVar = directive(CssVarDirective);
