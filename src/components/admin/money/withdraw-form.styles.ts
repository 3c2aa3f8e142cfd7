/**
 * Styles of the withdrawal form (`withdraw-form.ts`): the amount with its Max button, the live
 * address status, the confirm step's summary and the done message.
 */
import { css } from '../../../internal/css-text.js';

export const withdrawStyles = css`
  .withdraw h2 {
    margin-bottom: 0.75rem;
  }
  .withdraw .form-actions {
    justify-content: stretch;
  }
  .withdraw .form-actions button {
    flex: 1;
  }
  .input-with-button {
    display: flex;
    gap: 0.5rem;
  }
  .input-with-button input {
    flex: 1;
    min-width: 0;
  }
  .status {
    min-height: 1.3rem;
    margin: 0.3rem 0 0;
    font-size: 0.875rem;
    color: var(--_muted);
  }
  .status.ok {
    color: var(--_success);
  }
  .status.note {
    color: var(--_warning);
  }
  .summary {
    display: grid;
    gap: 0.75rem;
    margin: 0 0 var(--_space);
    padding: var(--_space);
    border-radius: calc(var(--_radius) * 0.75);
    background: var(--_surface);
  }
  .summary dt {
    color: var(--_muted);
    font-size: 0.8125rem;
  }
  .summary dd {
    margin: 0;
  }
  .summary .address {
    word-break: break-all;
    font-size: 0.95rem;
    letter-spacing: 0.02em;
  }
  .withdraw-done h2 {
    color: var(--_success);
  }
  @container (width < 600px) {
    .withdraw {
      padding: 0.75rem;
    }
    /* Asset and network one above the other: the network's full name needs the whole width. */
    .withdraw .row {
      grid-template-columns: minmax(0, 1fr);
    }
  }
`;
