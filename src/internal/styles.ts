/**
 * Design tokens and base styles shared by the Paylink elements (`tokens.ts`), as a Lit `CSSResult`
 * for LitElement hosts (`<paylink-admin>`).
 */
import { unsafeCSS } from '@lit/reactive-element/css-tag.js';
import { tokensText } from './tokens.js';

export { tokensText };

/** The tokens and base styles of `tokens.ts`. */
export const tokens = unsafeCSS(tokensText);
