/**
 * Styles of `<paylink-checkout>`, mobile first: one column that fits 320 px, nothing wider than
 * the card (long addresses and hashes break inside their box). Tokens and base controls come from
 * `internal/tokens.ts`.
 */
import { css } from '../../internal/css-text.js';

export default css`
  [part~=card],
  [part~=card] > div,
  form {
    display: flex;
    flex-direction: column;
    gap: 1rem;
  }
  [part~=card] {
    max-width: var(--paylink-max-width, 28rem);
    padding: 1rem;
    border: 1px solid var(--_border);
    border-radius: var(--paylink-radius, 12px);
    background: var(--_bg);
    /* A long word (an address, a hash, a merchant's unspaced title) breaks rather than overflows. */
    overflow-wrap: anywhere;
  }
  [aria-busy=true] {
    min-height: var(--paylink-min-height, 20rem);
  }
  [part~=card] > div,
  form {
    flex: 1;
  }
  [part~=heading] {
    font-size: 1.25rem;
    font-weight: 700;
    line-height: 1.3;
    outline: 0;
  }
  [part~=state] {
    justify-content: center;
    align-items: center;
    text-align: center;
  }
  small,
  dt,
  [part~=badge],
  [part~=description] {
    display: block;
    color: var(--_muted);
    font-size: 0.875rem;
  }
  [part~=status] {
    position: fixed;
    clip-path: inset(50%);
  }
  [part~=spinner] {
    flex: none;
    width: 1rem;
    height: 1rem;
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
  dt,
  dd,
  [part~=total],
  [part~=waiting] {
    display: flex;
    flex-wrap: wrap;
    gap: 0.25rem 0.5rem;
    align-items: center;
    justify-content: space-between;
  }
  dd,
  [part~=waiting] {
    justify-content: start;
  }
  ul {
    display: grid;
    gap: 0.5rem;
    padding: 0;
    list-style: none;
    /* Donors read from the start, on the centred confirmation too. */
    text-align: start;
  }
  [part~=item-name],
  [part~=donor-name] {
    flex: 1;
  }
  [part~=total] {
    padding-top: 0.75rem;
    border-top: 1px solid var(--_border);
    font-weight: 700;
  }
  [part~=item-total],
  strong {
    white-space: nowrap;
  }
  [part~=price] {
    font-size: 2rem;
    font-weight: 700;
  }
  [part~=suggestions] {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
  }
  [part~=chip] {
    flex: 1 0 auto;
    width: auto;
    padding: 0.5rem;
    white-space: nowrap;
  }
  [part~=copy-button],
  [part~=explorer] {
    display: inline-flex;
    align-items: center;
    width: auto;
  }
  [part~=error],
  [part~=wallet-error] {
    color: var(--_danger);
  }
  [part~=back],
  [part~=change-asset] {
    border: 0;
    color: var(--_accent);
  }
  [part~=divider] {
    text-align: center;
  }
  [part~=qr] {
    align-self: center;
    width: min(100%, 13rem);
  }
  dl {
    display: grid;
    gap: 0.75rem;
  }
  [part~=value],
  [part~=hash] {
    font: 600 1.0625rem ui-monospace, monospace;
  }
  [part~=address] {
    /* 42 characters in two even lines, at any width. */
    max-width: 21ch;
    font-weight: 400;
  }
  [part~=notice],
  [part~=warning],
  [part~=receipt] {
    padding: 0.75rem;
    border-radius: 8px;
    background: var(--_tint);
    font-size: 0.875rem;
    text-align: start;
  }
  [part~=success-icon] {
    width: 4rem;
    fill: none;
    stroke: var(--_success);
    stroke-width: 1.5;
    stroke-linecap: round;
  }
  [part~=receipt] {
    align-self: stretch;
  }
  [part~=progress] {
    width: 100%;
    accent-color: var(--paylink-progress, var(--_accent));
  }
  [part~=check] {
    display: flex;
    gap: 0.5rem;
    align-items: center;
  }
  [part~=checkbox] {
    width: auto;
  }
`;
