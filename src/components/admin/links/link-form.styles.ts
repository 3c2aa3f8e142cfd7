/**
 * Styles of the link form (`link-form.ts`): the kind choice cards, currency chips, the cart, the
 * groups (donation settings, customer details, after payment) and the active switch.
 *
 * Under 600 px each cart row keeps its labels: the column heads give way to a label above each
 * field (on wider screens those labels are for screen readers only, the heads say it once).
 */
import { css } from '../../../internal/css-text.js';

export const linkFormStyles = css`
  .link-form {
    max-width: 46rem;
  }
  .link-form > h2 {
    margin-bottom: var(--_space);
  }
  /* A group's legend titles a section of the form, above its fields' labels. */
  .group > legend,
  .cart > legend {
    padding: 0 0.35rem;
    font-size: 1rem;
    font-weight: 650;
  }
  .choices-row {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem 1.5rem;
  }
  .choices {
    display: grid;
    gap: 0.4rem;
    margin-bottom: 0.75rem;
  }
  label.choice {
    display: flex;
    align-items: center;
    gap: 0.6rem;
    margin: 0;
    font-size: 1rem;
    font-weight: 400;
    cursor: pointer;
    min-height: 32px;
  }
  .card-choice {
    flex: 1 1 14rem;
    align-items: flex-start !important;
    padding: 0.75rem 0.9rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) * 0.75);
  }
  .card-choice input {
    margin-top: 0.2rem;
  }
  .card-choice:has(input:checked) {
    border-color: var(--_accent);
    box-shadow: inset 0 0 0 1px var(--_accent);
    background: color-mix(in srgb, var(--_accent) 5%, var(--_bg));
  }
  .card-choice .hint {
    display: block;
    margin: 0;
  }
  .group,
  .cart {
    padding: var(--_space);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  .group .field:last-child {
    margin-bottom: 0;
  }
  .chips {
    display: flex;
    flex-wrap: wrap;
    gap: 0.4rem;
  }
  label.chip {
    display: inline-flex;
    align-items: center;
    gap: 0.4rem;
    margin: 0;
    padding: 0.3rem 0.7rem;
    border: 1px solid var(--_border);
    border-radius: 999px;
    font-weight: 500;
    font-size: 0.875rem;
    cursor: pointer;
    min-height: 36px;
  }
  label.chip:has(input:checked) {
    border-color: var(--_accent);
    background: color-mix(in srgb, var(--_accent) 8%, var(--_bg));
  }

  .cart-head,
  .cart-item {
    display: grid;
    grid-template-columns: minmax(8rem, 1fr) 5.5rem 9rem 44px;
    gap: 0.5rem;
    align-items: start;
  }
  .cart-head {
    color: var(--_muted);
    font-size: 0.8125rem;
    font-weight: 600;
    margin-bottom: 0.25rem;
  }
  .cart-item {
    margin-bottom: 0.5rem;
  }
  /* Said once by the column heads on a wide form; read by screen readers on every row. */
  .item-label {
    position: absolute;
    width: 1px;
    height: 1px;
    margin: -1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
  }
  .cart-foot {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    justify-content: space-between;
    gap: 0.5rem;
    margin-top: 0.5rem;
  }
  .total {
    margin: 0;
    white-space: nowrap;
    font-variant-numeric: tabular-nums;
  }

  .switch-row {
    margin-bottom: var(--_space);
  }
  label.switch {
    display: inline-flex;
    align-items: center;
    gap: 0.75rem;
    margin: 0;
    font-size: 1rem;
    font-weight: 600;
    cursor: pointer;
    position: relative;
  }
  label.switch input {
    position: absolute;
    opacity: 0;
    width: 2.75rem;
    height: 1.5rem;
  }
  .track {
    position: relative;
    width: 2.75rem;
    height: 1.5rem;
    border-radius: 999px;
    background: var(--_border);
    transition: background 0.15s;
    flex: none;
  }
  .track::after {
    content: '';
    position: absolute;
    top: 0.1875rem;
    left: 0.1875rem;
    width: 1.125rem;
    height: 1.125rem;
    border-radius: 50%;
    background: #fff;
    box-shadow: 0 1px 2px rgb(0 0 0 / 0.3);
    transition: transform 0.15s;
  }
  label.switch input:checked + .track {
    background: var(--_accent);
  }
  label.switch input:checked + .track::after {
    transform: translateX(1.25rem);
  }
  label.switch input:focus-visible + .track {
    outline: 3px solid var(--_focus);
    outline-offset: 2px;
  }

  @container (width < 600px) {
    .group,
    .cart {
      padding: 0.75rem;
    }
    .cart-head {
      display: none;
    }
    /* Name on its own line; quantity, unit price and remove below it, each field with its label. */
    .cart-item {
      grid-template-columns: 5rem minmax(0, 1fr) 44px;
      align-items: end;
      margin-bottom: 0.75rem;
      padding-bottom: 0.75rem;
      border-bottom: 1px solid var(--_border);
    }
    .cart-item .cell:first-child {
      grid-column: 1 / -1;
    }
    .item-label {
      position: static;
      width: auto;
      height: auto;
      margin: 0 0 0.25rem;
      overflow: visible;
      clip: auto;
      white-space: normal;
      font-size: 0.875rem;
    }
    .form-actions button {
      flex: 1 1 auto;
    }
  }
`;
