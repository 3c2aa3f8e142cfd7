/**
 * Styles of the blocks in `templates.ts`: the error box, and the paged table with its filters bar,
 * loading bar, empty state and pagination.
 *
 * Under 600 px of the element's width (a phone, or a narrow column of the merchant's page) each
 * table row becomes a stacked card of label–value lines, the row's header first: every column stays
 * readable without sideways scrolling. The table keeps its semantics (the template sets the roles
 * explicitly, since some browsers drop them when `display` changes), and the column headers stay
 * for screen readers, clipped rather than hidden.
 */
import { css } from '../../internal/css-text.js';

export const templateStyles = css`
  .error-box {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    justify-content: space-between;
    gap: 0.5rem 1rem;
    margin: 0 0 var(--_space);
    padding: 0.75rem 1rem;
    border: 1px solid var(--_danger);
    border-radius: calc(var(--_radius) * 0.75);
    color: var(--_danger);
    background: color-mix(in srgb, var(--_danger) 7%, var(--_bg));
  }
  .error-box > div {
    flex: 1 1 14rem;
    min-width: 0;
  }
  .error-box p {
    margin: 0;
  }
  .error-box .hint {
    margin-top: 0.25rem;
    color: inherit;
  }
  .placeholder {
    margin: 0;
    padding: 2.5rem 1rem;
    text-align: center;
    color: var(--_muted);
  }

  /* Filters above a table */
  .filters {
    display: flex;
    flex-wrap: wrap;
    align-items: flex-end;
    gap: 0 0.75rem;
    margin-bottom: 0.5rem;
  }
  /* A select is as wide as its longest choice ("Tous les types"), so no language's choice is cut. */
  .filters .field {
    flex: 0 1 auto;
    max-width: 14rem;
  }
  .filters .field.grow {
    flex: 10 1 14rem;
    max-width: none;
  }
  .filters button {
    margin-bottom: var(--_space);
  }

  /* The table */
  .table-wrap {
    position: relative;
    min-height: 8rem;
    overflow-x: auto;
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  /* Loading keeps the rows readable (no dimming) and shows a sliding bar along the top edge. */
  .table-wrap[aria-busy='true']::before {
    content: '';
    position: absolute;
    z-index: 1;
    inset: 0 0 auto;
    height: 3px;
    background: linear-gradient(90deg, transparent, var(--_accent), transparent);
    background-size: 40% 100%;
    background-repeat: no-repeat;
    animation: busy 1s linear infinite;
  }
  @keyframes busy {
    from {
      background-position: -40% 0;
    }
    to {
      background-position: 140% 0;
    }
  }
  table {
    width: 100%;
    border-collapse: collapse;
    font-size: 0.9375rem;
  }
  th,
  td {
    padding: 0.65rem 0.85rem;
    border-bottom: 1px solid var(--_border);
    text-align: start;
    vertical-align: middle;
    /* 'anywhere' would shrink columns to one letter: break only words that do not fit. */
    overflow-wrap: break-word;
  }
  tbody tr:last-child > * {
    border-bottom: 0;
  }
  thead th {
    background: var(--_surface);
    color: var(--_muted);
    font-size: 0.8125rem;
    font-weight: 600;
    text-transform: uppercase;
    letter-spacing: 0.03em;
    white-space: nowrap;
  }
  tbody th {
    font-weight: 600;
  }
  tbody tr:hover {
    background: color-mix(in srgb, var(--_surface) 60%, transparent);
  }
  .num {
    text-align: end;
    font-variant-numeric: tabular-nums;
    white-space: nowrap;
  }
  .actions {
    text-align: end;
  }
  .cell-label {
    display: none;
  }

  .pagination {
    display: flex;
    align-items: center;
    justify-content: space-between;
    gap: 0.75rem;
    margin-top: 0.75rem;
    color: var(--_muted);
    font-size: 0.9375rem;
  }
  .pagination button {
    flex: none;
    padding-inline: 0.85rem;
  }
  .pagination [part~='page-info'] {
    flex: 1 1 auto;
    min-width: 0;
    text-align: center;
    text-wrap: balance;
  }

  @container (width < 600px) {
    .filters .field {
      flex: 1 1 9rem;
      max-width: none;
    }
    /* Two selects share a line: the native arrow needs no padding of its own, the words need the room. */
    .filters select {
      padding-inline: 0.5rem 0.25rem;
    }
    .table-wrap {
      min-height: 4rem;
      overflow: visible;
      border: 0;
    }
    .table-wrap table,
    .table-wrap tbody,
    .table-wrap tr {
      display: block;
    }
    /*
     * The column headers stay for screen readers (each cell shows its label on screen), clipped to a
     * pixel at the table's start: their row and cells too, or the cells would still lay out at their
     * full width and run off the screen, clipped but there.
     */
    .table-wrap thead,
    .table-wrap thead tr,
    .table-wrap thead th {
      position: absolute;
      inset-inline-start: 0;
      top: 0;
      display: block;
      width: 1px;
      height: 1px;
      padding: 0;
      border: 0;
      overflow: hidden;
      clip: rect(0 0 0 0);
      white-space: nowrap;
    }
    .table-wrap tbody tr {
      display: flex;
      flex-direction: column;
      gap: 0.35rem;
      margin-bottom: 0.75rem;
      padding: 0.75rem 0.9rem;
      border: 1px solid var(--_border);
      border-radius: var(--_radius);
    }
    .table-wrap tbody tr:last-child {
      margin-bottom: 0;
    }
    .table-wrap tbody :is(th, td) {
      display: grid;
      grid-template-columns: minmax(5.5rem, 34%) minmax(0, 1fr);
      align-items: baseline;
      gap: 0.75rem;
      padding: 0;
      border: 0;
      text-align: start;
      white-space: normal;
    }
    /* The cell that names the row comes first, as the card's title. */
    .table-wrap tbody th {
      order: -1;
      padding-bottom: 0.5rem;
      margin-bottom: 0.15rem;
      border-bottom: 1px solid var(--_border);
      font-size: 1rem;
    }
    .cell-label {
      display: block;
      color: var(--_muted);
      font-size: 0.8125rem;
      font-weight: 600;
    }
    .cell-value {
      grid-column: 2;
      min-width: 0;
    }
    .pagination button {
      padding-inline: 0.6rem;
    }
  }
  /* On the narrowest phones the card's title gives its value all the room its short label leaves. */
  @container (width < 400px) {
    .table-wrap tbody th {
      grid-template-columns: auto minmax(0, 1fr);
    }
  }
`;
