/**
 * Styles of the withdrawal history (`withdrawal-history.ts`): a denser table than the links list,
 * short addresses and hashes that never break mid-way, the live-update indicator.
 */
import { css } from 'lit';

export const historyStyles = css`
  .live {
    display: inline-flex;
    align-items: center;
    gap: 0.4rem;
    color: var(--_muted);
    font-size: 0.875rem;
  }
  .history table {
    font-size: 0.875rem;
  }
  .history th,
  .history td {
    padding: 0.6rem 0.65rem;
  }
  .history td.date {
    white-space: nowrap;
  }
  .address-cell .address-short,
  [part~='tx-hash'] {
    white-space: nowrap;
    overflow-wrap: normal;
  }
  @container (width < 600px) {
    /* The status on its own line, the two dates of the range side by side below it. */
    .history .filters .field:first-child {
      flex-basis: 100%;
    }
  }
`;
