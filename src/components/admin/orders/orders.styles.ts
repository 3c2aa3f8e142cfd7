/**
 * Styles of the orders list (`orders-view.ts`): its intro line, the filters (a status and a reference
 * that wrap), and each row's two actions (its payments, its hosted page) side by side. Tables and
 * their stacked phone layout come from `templates.styles.ts`.
 */
import { css } from '../../../internal/css-text.js';

export const ordersStyles = css`
  .orders-intro {
    margin: -0.25rem 0 var(--_space);
  }
  .order-filters .reference-field {
    flex: 2 1 12rem;
    max-width: 18rem;
  }
  /* On one line in a table's columns; a stacked card (a phone) wraps them like any value. */
  @container (width >= 600px) {
    [part~='orders-table'] .amount-cell,
    [part~='orders-table'] .date {
      white-space: nowrap;
    }
  }
  [part~='orders-table'] .status-cell .sub {
    display: block;
    margin-top: 0.2rem;
  }
  [part~='orders-table'] .title-cell {
    min-width: 8rem;
  }
  .row-actions {
    display: inline-flex;
    flex-wrap: wrap;
    justify-content: flex-end;
    gap: 0.25rem;
  }
  .row-actions button,
  [part~='order-page'] {
    min-height: 36px;
    padding: 0.25rem 0.5rem;
    font-size: 0.875rem;
  }
  [part~='order-page'] {
    display: inline-flex;
    align-items: center;
    border-radius: calc(var(--_radius) * 0.67);
    color: var(--_accent);
    font-weight: 600;
    text-decoration: none;
  }
  [part~='order-page']:hover {
    text-decoration: underline;
  }

  @container (width < 600px) {
    .order-filters .reference-field {
      max-width: none;
      flex-basis: 100%;
    }
    .row-actions {
      justify-content: flex-start;
    }
  }
`;
