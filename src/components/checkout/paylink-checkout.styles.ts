/** Styles of `<paylink-checkout>`; tokens and base controls come from `internal/styles.ts`. */
import { css } from '@lit/reactive-element/css-tag.js';

export default css`
  [part~='card'] {
    display: flex;
    flex-direction: column;
    max-width: var(--paylink-max-width, 28rem);
    min-height: var(--paylink-min-height, 30rem);
    padding: 1.5rem;
    border: 1px solid var(--_border);
    border-radius: var(--paylink-radius, 12px);
    background: var(--_bg);
  }
  [part~='card'] > div,
  form {
    display: flex;
    flex: 1;
    flex-direction: column;
    gap: 1rem;
  }
  h2 {
    font-size: 1.25rem;
    font-weight: 700;
    outline: 0;
  }
  [part~='state'] {
    justify-content: center;
    align-items: center;
    text-align: center;
  }
  small,
  dt,
  [part~='badge'],
  [part~='hint'],
  [part~='description'],
  [part~='countdown'] {
    display: block;
    color: var(--_muted);
    font-size: 0.875rem;
  }
  button small {
    color: inherit;
  }
  [part~='status'] {
    position: fixed;
    clip-path: inset(50%);
  }
  [part~='spinner'] {
    display: inline-block;
    width: 1rem;
    height: 1rem;
    margin-right: 0.5rem;
    border: 3px solid var(--_border);
    border-top-color: var(--_accent);
    border-radius: 50%;
    animation: spin 1s linear infinite;
  }
  @keyframes spin {
    to {
      rotate: 1turn;
    }
  }
  li,
  [part~='total'],
  [part~='actions'],
  [part~='pay-grid'],
  dd {
    display: flex;
    gap: 0.75rem;
    align-items: center;
    justify-content: space-between;
  }
  ul {
    padding: 0;
    list-style: none;
  }
  [part~='item-name'],
  [part~='value'] {
    flex: 1;
    overflow-wrap: anywhere;
  }
  [part~='price'],
  [part~='success-icon'] {
    font-size: 2rem;
    font-weight: 700;
    color: var(--paylink-success, var(--_accent));
  }
  [part~='chip'] {
    display: inline;
    width: auto;
    margin: 0 0.5rem 0.5rem 0;
  }
  [part~='asset'] {
    margin-top: 0.5rem;
  }
  [part~='error'] {
    color: var(--_danger);
  }
  [part~='actions'],
  form > button {
    margin-top: auto;
  }
  [part~='pay-grid'] {
    flex-wrap: wrap;
  }
  [part~='qr'] {
    flex: none;
    width: 9.5rem;
    height: 9.5rem;
  }
  [part~='pay-grid'] dl {
    flex: 1 1 12rem;
  }
  dl {
    overflow-wrap: anywhere;
  }
  [part~='copy-button'] {
    flex: none;
    width: auto;
  }
  [part~='value'] {
    font-family: ui-monospace, monospace;
  }
  [part~='notice'],
  [part~='warning'],
  [part~='receipt'] {
    padding: 0.75rem;
    border-radius: 8px;
    background: var(--_tint);
    font-size: 0.875rem;
    text-align: start;
  }
`;
