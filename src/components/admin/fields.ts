/**
 * Small rendering helpers the admin's forms share: a field's error line (with the id its control
 * points `aria-describedby` at), and the ids that control describes itself with.
 */
import { html, nothing, type TemplateResult } from 'lit/html.js';

/** The error shown under a field, or nothing. Its id is `<id>-error`. */
export function fieldError(id: string, message: string | undefined): TemplateResult | typeof nothing {
  return message ? html`<p id="${id}-error" part="field-error">${message}</p>` : nothing;
}

/** `aria-describedby` of a control: its hint and its error, when present. */
export function describedBy(id: string, error: string | undefined, hasHint = false): string | undefined {
  const ids = [hasHint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}

/** `aria-invalid` of a control. */
export function invalid(error: string | undefined): 'true' | undefined {
  return error ? 'true' : undefined;
}

/**
 * An attribute's value, or `nothing` (the attribute left out) when it is undefined: what lit's
 * `ifDefined` does, written here so that `dist/paylink.js` needs none of lit-html's directive support
 * (`scripts/lit-static.ts`).
 */
export const ifDefined = <T>(value: T): T | typeof nothing => value ?? nothing;
