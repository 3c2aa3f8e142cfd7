/**
 * The admin's shared base, under every view's own styles: controls (buttons, fields, selects,
 * choices), the heading scale, and the small blocks every view uses (toolbar, card, field, hint,
 * field error, badge). A view's layout belongs in the `*.styles.ts` file beside the view, not here.
 *
 * Heading scale: a view's title (h2) is the heaviest text on screen, a section title (h3, a group's
 * legend) next, a field label lighter still: the eye finds sections first, then fields.
 *
 * Colours come only from the `--_*` copies of the `--paylink-*` tokens (`internal/tokens.ts` and
 * `paylink-admin.styles.ts`), so light, dark and a merchant's own theme need no change here.
 */
import { css } from '../../internal/css-text.js';

export const adminBaseStyles = css`
  *,
  ::before,
  ::after {
    box-sizing: border-box;
  }
  h2 {
    margin: 0 0 0.5rem;
    font-size: 1.25rem;
    font-weight: 700;
    line-height: 1.3;
    letter-spacing: -0.01em;
  }
  h3 {
    margin: 0 0 0.75rem;
    font-size: 1.0625rem;
    font-weight: 650;
    line-height: 1.35;
  }
  p {
    margin: 0 0 0.75rem;
  }
  strong {
    display: inline;
    font-weight: 650;
  }
  h2,
  h3,
  p,
  dd {
    overflow-wrap: anywhere;
  }

  /*
   * Controls: what the console changes of the shared base (tokens.ts: 44px high, the border, the
   * background, the weights, the focus ring and an invalid field's border come from there).
   */
  button {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    gap: 0.5rem;
    width: auto;
    padding: 0.5rem 1rem;
    border-radius: calc(var(--_radius) * 0.67);
    cursor: pointer;
    transition: filter 0.15s, background 0.15s;
  }
  button:hover:not(:disabled) {
    filter: brightness(0.95);
  }
  button:disabled {
    cursor: not-allowed;
    opacity: 0.55;
  }
  :host [part~='primary'] {
    flex: none;
    width: auto;
    border-color: transparent;
    background: var(--_accent);
    color: var(--_on-accent);
  }
  button.small {
    min-height: 36px;
    padding: 0.25rem 0.75rem;
    font-size: 0.875rem;
  }
  button.ghost {
    gap: 0.4rem;
    border-color: transparent;
    background: transparent;
    color: var(--_accent);
    padding-inline: 0.5rem;
  }
  button.icon {
    min-width: 44px;
    padding: 0.5rem;
  }
  .link-button {
    min-height: 0;
    padding: 0;
    border: 0;
    background: none;
    color: var(--_accent);
    text-align: start;
    font-weight: 600;
  }
  .link-button:hover {
    text-decoration: underline;
  }
  input,
  textarea,
  select {
    min-width: 0;
    border-radius: calc(var(--_radius) * 0.67);
  }
  input,
  textarea {
    cursor: text;
  }
  select {
    padding-inline-end: 2rem;
    /* A long option (a network's full name) is cut with an ellipsis rather than widening the form. */
    text-overflow: ellipsis;
  }
  textarea {
    resize: vertical;
  }
  input[type='checkbox'],
  input[type='radio'] {
    width: 1.15rem;
    min-height: 0;
    height: 1.15rem;
    margin: 0;
    padding: 0;
    accent-color: var(--_accent);
    flex: none;
  }
  /* Headings take focus only to tell screen readers where they are; no ring for that. */
  [tabindex='-1']:focus {
    outline: none;
  }
  label,
  legend {
    display: block;
    margin: 0 0 0.25rem;
    font-size: 0.9375rem;
    font-weight: 500;
  }
  fieldset {
    margin: 0 0 var(--_space);
    padding: 0;
    border: 0;
    min-width: 0;
  }
  a {
    display: inline;
    width: auto;
    min-height: 0;
    padding: 0;
    text-align: inherit;
    border: 0;
    background: none;
    color: var(--_accent);
    font-weight: 600;
    text-decoration: underline;
    text-underline-offset: 2px;
  }
  dl,
  dd,
  figure {
    margin: 0;
  }
  @media (prefers-reduced-motion: reduce) {
    *,
    ::before,
    ::after {
      animation: none !important;
      transition: none !important;
    }
  }
  .visually-hidden {
    position: absolute !important;
    width: 1px;
    height: 1px;
    margin: -1px;
    padding: 0;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
    border: 0;
  }
  .mono {
    font-family: var(--_mono);
    font-size: 0.9em;
    overflow-wrap: anywhere;
  }

  /* Blocks every view uses */
  .toolbar {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    justify-content: space-between;
    gap: 0.75rem;
    margin-bottom: var(--_space);
  }
  .toolbar h2 {
    margin: 0;
  }
  .card {
    padding: var(--_space);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: var(--_bg);
  }
  .hint,
  .sub {
    color: var(--_muted);
    font-size: 0.875rem;
  }
  .hint {
    margin: 0 0 0.35rem;
  }
  .sub {
    display: block;
    font-weight: 400;
  }
  .field {
    margin-bottom: var(--_space);
    min-width: 0;
  }
  .row {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(min(12rem, 100%), 1fr));
    gap: 0 var(--_space);
  }
  .grow {
    flex: 1 1 14rem;
  }
  [part~='field-error'] {
    margin: 0.3rem 0 0;
    color: var(--_danger);
    font-size: 0.875rem;
    font-weight: 500;
  }
  [part~='field-error']::before {
    content: '⚠ ';
  }
  .form-actions {
    display: flex;
    flex-wrap: wrap;
    justify-content: flex-end;
    gap: 0.75rem;
    margin-top: var(--_space);
  }
  .badge {
    display: inline-flex;
    align-items: center;
    gap: 0.35rem;
    padding: 0.1rem 0.6rem;
    border-radius: 999px;
    font-size: 0.8125rem;
    font-weight: 600;
    white-space: nowrap;
    background: var(--_surface);
    color: var(--_muted);
    border: 1px solid var(--_border);
  }
  .badge.active,
  .badge.success {
    color: var(--_success);
    border-color: color-mix(in srgb, var(--_success) 35%, transparent);
    background: color-mix(in srgb, var(--_success) 9%, var(--_bg));
  }
  .badge.failed {
    color: var(--_danger);
    border-color: color-mix(in srgb, var(--_danger) 35%, transparent);
    background: color-mix(in srgb, var(--_danger) 8%, var(--_bg));
  }
  .badge.pending,
  .badge.processing,
  .badge.closed {
    color: var(--_warning);
    border-color: color-mix(in srgb, var(--_warning) 35%, transparent);
    background: var(--_warning-bg);
  }
  .pulse {
    width: 0.5rem;
    height: 0.5rem;
    border-radius: 50%;
    background: currentColor;
    animation: pulse 1.4s ease-in-out infinite;
  }
  @keyframes pulse {
    50% {
      opacity: 0.25;
    }
  }
`;
