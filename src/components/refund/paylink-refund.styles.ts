/**
 * Styles of `<paylink-refund>`, phone first: one column that fits 320 px, an address or a hash breaking
 * inside its box rather than widening the card. Tokens and base controls come from `internal/tokens.ts`.
 */
import { css } from '../../internal/css-text.js';

export default css`
  [part~='card'] {
    display: flex;
    flex-direction: column;
    gap: 1rem;
    max-width: var(--paylink-max-width, 28rem);
    padding: 1rem;
    border: 1px solid var(--_border);
    border-radius: var(--paylink-radius, 12px);
    background: var(--_bg);
    overflow-wrap: anywhere;
  }
  [aria-busy='true'] {
    min-height: 14rem;
  }
  form {
    display: flex;
    flex-direction: column;
    gap: 0.75rem;
  }
  [part~='heading'] {
    font-size: 1.25rem;
    font-weight: 700;
    line-height: 1.3;
    outline: 0;
  }
  [part~='amount'] {
    font-size: 2rem;
    font-weight: 700;
    line-height: 1.2;
  }
  [part~='facts'] {
    display: grid;
    gap: 0.5rem;
  }
  [part~='facts'] > div {
    display: flex;
    flex-wrap: wrap;
    justify-content: space-between;
    gap: 0 0.5rem;
  }
  dt,
  [part~='badge'],
  [part~='divider'] {
    color: var(--_muted);
    font-size: 0.875rem;
  }
  [part~='divider'] {
    text-align: center;
  }
  label {
    font-weight: 600;
  }
  [part~='address'],
  [part~='hash'] {
    font-family: ui-monospace, monospace;
  }
  [part~='notice'],
  [part~='outcome'] {
    display: grid;
    gap: 0.75rem;
    padding: 0.75rem;
    border-radius: 8px;
    background: var(--_tint);
  }
  [part~='outcome'].success {
    box-shadow: inset 4px 0 var(--_success);
  }
  [part~='outcome']:is(.failed, .cancelled) {
    box-shadow: inset 4px 0 var(--_danger);
  }
  [part~='error'] {
    color: var(--_danger);
  }
  button:disabled {
    opacity: 0.7;
  }
  [part~='status'],
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip-path: inset(50%);
    white-space: nowrap;
  }
`;
