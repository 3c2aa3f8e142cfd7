/**
 * Design tokens and base styles shared by the Paylink elements, as plain CSS text. Every token is a
 * `--paylink-*` custom property a merchant may set on the element or an ancestor; the fallbacks are
 * the light and dark defaults (the styles read the resolved private copies, `--_*`).
 * Both elements adopt this text, with their own styles after it, as one constructed style sheet
 * (no Lit `css-tag`).
 */
import { css } from './css-text.js';

const dark = css`
  --_bg: var(--paylink-bg, #17191e);
  --_fg: var(--paylink-fg, #f2f3f5);
  --_muted: var(--paylink-muted, #a4acb9);
  --_border: var(--paylink-border, #3b404b);
  --_accent: var(--paylink-accent, #918cff);
  --_on-accent: var(--paylink-on-accent, #0d0c24);
  --_danger: var(--paylink-danger, #ff8f85);
  --_tint: var(--paylink-tint, #262931);
  color-scheme: dark;
`;

/**
 * `:host` tokens (light; dark by `prefers-color-scheme` or `theme="dark"`, while `theme="light"`
 * forces light) and the base controls: buttons and fields at least 44px high, visible focus rings,
 * no animation for readers who ask for reduced motion. A pressed control wears a double accent
 * border, never the danger colour, which is only for errors.
 */
export const tokensText = css`
  :host {
    --_bg: var(--paylink-bg, #fff);
    --_fg: var(--paylink-fg, #14171f);
    --_muted: var(--paylink-muted, #5b6472);
    --_border: var(--paylink-border, #d5dae2);
    --_accent: var(--paylink-accent, #4f46e5);
    --_on-accent: var(--paylink-on-accent, #fff);
    --_danger: var(--paylink-danger, #b42318);
    --_success: var(--paylink-success, #16a34a);
    --_tint: var(--paylink-tint, #f3f4f8);
    display: block;
    color-scheme: light;
    font: 1rem/1.5 var(--paylink-font, system-ui, sans-serif);
    color: var(--_fg);
  }
  @media (prefers-color-scheme: dark) {
    :host(:not([theme=light])) {
      ${dark}
    }
  }
  :host([theme=dark]) {
    ${dark}
  }
  * {
    box-sizing: border-box;
    margin: 0;
    font: inherit;
    color: inherit;
  }
  button,
  a,
  input,
  select,
  textarea {
    display: block;
    width: 100%;
    min-height: 44px;
    padding: 0.5rem 0.75rem;
    border: 1px solid var(--_border);
    border-radius: 8px;
    background: var(--_bg);
    font-weight: 600;
    text-align: center;
    text-decoration: none;
  }
  input,
  select,
  textarea {
    font-weight: 400;
    text-align: start;
  }
  [part~=primary] {
    border: 0;
    background: var(--_accent);
    color: var(--_on-accent);
  }
  [aria-pressed=true] {
    border-color: var(--_accent);
    box-shadow: inset 0 0 0 1px var(--_accent);
  }
  [aria-invalid=true] {
    border-color: var(--_danger);
  }
  :focus-visible {
    outline: 3px solid var(--paylink-focus, var(--_accent));
    outline-offset: 2px;
  }
  @media (prefers-reduced-motion: reduce) {
    * {
      animation: none !important;
    }
  }
`;
