/**
 * Styles of the payments views (`payments-view.ts`, `payment-detail.ts`, `link-payments.ts`): the
 * filters bar (five filters that wrap), the export's progress, and the detail's cards of facts
 * (customer, amounts, reference) above the transactions. The detail's header comes from
 * `link-detail.styles.ts`, tables and their stacked phone layout from `templates.styles.ts`.
 */
import { css } from '../../../internal/css-text.js';

export const paymentsStyles = css`
  .payment-filters .link-field {
    flex: 2 1 12rem;
    max-width: 18rem;
  }
  [part~='export-progress'] {
    margin: -0.5rem 0 0.75rem;
  }
  [part~='payments-table'] .link-cell {
    min-width: 9rem;
  }
  /* On one line in a table's columns; a stacked card (a phone) wraps them like any value. */
  @container (width >= 600px) {
    [part~='payments-table'] .amount-cell,
    [part~='payments-table'] .date,
    .link-payments .date {
      white-space: nowrap;
    }
  }
  .muted {
    color: var(--_muted);
  }

  /* The detail: three cards of facts, then the transactions across the whole width. */
  .payment-grid {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(min(17rem, 100%), 1fr));
    gap: var(--_space);
    align-items: start;
  }
  .payment-grid .span-all {
    grid-column: 1 / -1;
  }
  .facts {
    display: grid;
    gap: 0.6rem;
  }
  .facts > div {
    display: grid;
    gap: 0.1rem;
  }
  .facts dt {
    color: var(--_muted);
    font-size: 0.8125rem;
    font-weight: 600;
  }
  .facts dd {
    min-width: 0;
  }
  /* A delivery address keeps the lines the customer typed. */
  .address-text {
    white-space: pre-line;
  }
  .metadata {
    display: grid;
    gap: 0.25rem;
  }
  .metadata > div {
    display: flex;
    flex-wrap: wrap;
    gap: 0 0.5rem;
  }
  .metadata dt::after {
    content: ':';
  }
  .metadata dt {
    color: var(--_muted);
  }
  .hash {
    font-size: 0.8125rem;
    overflow-wrap: anywhere;
  }
  [part~='transactions-table'] .tx-cell {
    font-weight: 400;
  }
  [part~='no-explorer'] {
    margin: 0.75rem 0 0;
  }
  .badge.waiting {
    color: var(--_fg);
  }
  .link-payments {
    margin-top: var(--_space);
  }
  .link-payments .toolbar {
    margin-bottom: 0.75rem;
  }
  .link-payments h3 {
    margin: 0;
  }

  @container (width < 600px) {
    /* Status and link each on a line, the reference on its own, the two days of the range side by side. */
    .payment-filters :is(.link-field, .reference-field) {
      max-width: none;
      flex-basis: 100%;
    }
  }
`;
