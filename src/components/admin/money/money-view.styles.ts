/**
 * Styles of the money tab's frame and its balances (`money-tab.ts`, `money-view.ts`): the balance
 * cards, and the grid that puts the withdrawal form beside the history (one column under 52rem).
 */
import { css } from '../../../internal/css-text.js';

export const moneyStyles = css`
  .balance-cards {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(min(14rem, 100%), 1fr));
    gap: var(--_space);
    margin: 0 0 calc(var(--_space) * 1.5);
    padding: 0;
    list-style: none;
  }
  /* The asset's name labels the figure below it: quieter than a section heading. */
  .balance-card h3 {
    margin: 0 0 0.25rem;
    color: var(--_muted);
    font-size: 0.875rem;
    font-weight: 600;
  }
  .big {
    margin: 0;
    font-size: 1.5rem;
    font-weight: 700;
    font-variant-numeric: tabular-nums;
  }
  .balance-card .sub {
    margin: 0.25rem 0 0;
  }
  .money-grid {
    display: grid;
    grid-template-columns: minmax(18rem, 26rem) minmax(0, 1fr);
    gap: calc(var(--_space) * 1.5);
    align-items: start;
  }
  .money-grid > * {
    min-width: 0;
  }
  @container (max-width: 52rem) {
    .money-grid {
      grid-template-columns: minmax(0, 1fr);
    }
  }
  @container (width < 600px) {
    .balance-cards {
      grid-template-columns: repeat(2, minmax(0, 1fr));
      gap: 0.5rem;
    }
    .balance-card {
      padding: 0.75rem;
    }
    .big {
      font-size: 1.25rem;
    }
  }
`;
