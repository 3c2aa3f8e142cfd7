/**
 * Styles of the withdrawal history (`withdrawal-history.ts`): a denser table than the links list,
 * short addresses and hashes that never break mid-way, the live-update indicator.
 */
import { css } from '../../../internal/css-text.js';

export const historyStyles = css`
  /*
   * The history is a size container of its own: beside the withdrawal form it can be much narrower than
   * the admin, and its table stacks into cards by its own width (the shared rules of templates.styles.ts
   * ask the nearest container), never by the admin's, so a row never runs past its edge.
   */
  .history {
    container-type: inline-size;
  }
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
  .address-cell .address-short {
    white-space: nowrap;
    overflow-wrap: normal;
  }
  /* A short hash breaks only after its ellipsis (the <wbr> there), never inside either half. */
  .history [part~='tx-hash'] {
    display: block;
    overflow-wrap: normal;
  }
  @container (width < 600px) {
    /* The status on its own line, the two dates of the range side by side below it. */
    .history .filters .field:first-child {
      flex-basis: 100%;
    }
  }
`;
