/**
 * Styles of `<paylink-admin>`, on top of the shared tokens and base styles of `internal/styles.ts`.
 * Colours come only from the `--_*` copies of the `--paylink-*` tokens, so light, dark and a
 * merchant's own theme all work without touching this file.
 */
import { css } from 'lit';

const darkExtras = css`
  --_surface: var(--paylink-surface, var(--_tint, #1f232b));
  --_success: var(--paylink-success, #4ade80);
  --_warning: var(--paylink-warning, #fdb022);
  --_warning-bg: var(--paylink-warning-bg, #2e2616);
`;

export const adminStyles = css`
  /* Tokens the admin adds to the shared ones (tables, statuses), light and dark like them. */
  :host {
    --_surface: var(--paylink-surface, var(--_tint, #f4f6f9));
    --_success: var(--paylink-success, #067647);
    --_warning: var(--paylink-warning, #b54708);
    --_warning-bg: var(--paylink-warning-bg, #fff7e6);
    --_mono: var(--paylink-font-mono, ui-monospace, 'SF Mono', Menlo, Consolas, monospace);
    --_focus: var(--paylink-focus, var(--_accent));
    --_space: var(--paylink-space, 1rem);
    container-type: inline-size;
    background: var(--_bg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    overflow: hidden;
  }
  @media (prefers-color-scheme: dark) {
    :host(:not([theme='light'])) {
      ${darkExtras}
    }
  }
  :host([theme='dark']) {
    ${darkExtras}
  }
  :host([hidden]) {
    display: none;
  }

  /* Base controls: complete here so the console does not depend on the checkout's compact base. */
  *,
  ::before,
  ::after {
    box-sizing: border-box;
  }
  h2 {
    margin: 0 0 0.5rem;
    font-size: 1.25rem;
    line-height: 1.3;
  }
  p {
    margin: 0 0 0.75rem;
  }
  strong {
    display: inline;
  }
  button,
  input,
  select,
  textarea {
    font: inherit;
    color: inherit;
  }
  button {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    gap: 0.5rem;
    width: auto;
    min-height: 44px;
    padding: 0.5rem 1rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) * 0.67);
    background: var(--_bg);
    font-weight: 600;
    cursor: pointer;
    transition: filter 0.15s, background 0.15s;
  }
  button:hover:not(:disabled) {
    filter: brightness(0.95);
  }
  button:disabled {
    cursor: not-allowed;
    opacity: 0.55;
  }
  :host [part~='primary'] {
    flex: none;
    width: auto;
    border-color: transparent;
    background: var(--_accent);
    color: var(--_on-accent);
  }
  input,
  textarea {
    width: 100%;
    min-height: 44px;
    padding: 0.5rem 0.75rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) * 0.67);
    background: var(--_bg);
    font-weight: 400;
    cursor: text;
  }
  [aria-invalid='true'] {
    border-color: var(--_danger);
  }
  :focus-visible {
    outline: 3px solid var(--_focus);
    outline-offset: 2px;
  }
  /* Headings take focus only to tell screen readers where they are; no ring for that. */
  [tabindex='-1']:focus {
    outline: none;
  }
  label,
  legend {
    display: block;
    margin: 0 0 0.25rem;
    font-weight: 600;
  }
  a {
    display: inline;
    width: auto;
    min-height: 0;
    padding: 0;
    text-align: inherit;
    border: 0;
    background: none;
    color: var(--_accent);
    font-weight: 600;
    text-decoration: underline;
    text-underline-offset: 2px;
  }
  dl,
  dd,
  figure {
    margin: 0;
  }
  @media (prefers-reduced-motion: reduce) {
    *,
    ::before,
    ::after {
      animation: none !important;
      transition: none !important;
    }
  }
  .visually-hidden {
    position: absolute !important;
    width: 1px;
    height: 1px;
    margin: -1px;
    padding: 0;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
    border: 0;
  }
  h3 {
    margin: 0 0 0.75rem;
    font-size: 1rem;
  }
  button.small {
    min-height: 36px;
    padding: 0.25rem 0.75rem;
    font-size: 0.875rem;
  }
  button.ghost {
    gap: 0.4rem;
    border-color: transparent;
    background: transparent;
    color: var(--_accent);
    padding-inline: 0.5rem;
  }
  button.icon {
    min-width: 44px;
    padding: 0.5rem;
  }
  .link-button {
    min-height: 0;
    padding: 0;
    border: 0;
    background: none;
    color: var(--_accent);
    text-align: start;
    font-weight: 600;
  }
  .link-button:hover {
    text-decoration: underline;
  }
  select {
    width: 100%;
    min-height: 44px;
    padding: 0.5rem 2rem 0.5rem 0.75rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) * 0.75);
    background: var(--_bg);
    color: inherit;
    font: inherit;
  }
  textarea {
    resize: vertical;
  }
  input[type='checkbox'],
  input[type='radio'] {
    width: 1.15rem;
    min-height: 0;
    height: 1.15rem;
    margin: 0;
    padding: 0;
    accent-color: var(--_accent);
    flex: none;
  }
  fieldset {
    margin: 0 0 var(--_space);
    padding: 0;
    border: 0;
    min-width: 0;
  }
  .mono {
    font-family: var(--_mono);
    font-size: 0.9em;
    overflow-wrap: anywhere;
  }
  h2,
  h3,
  p,
  dd {
    overflow-wrap: anywhere;
  }
  /* In table cells 'anywhere' would shrink columns to one letter: break only words that do not fit. */
  th,
  td,
  .sub,
  .link-button {
    overflow-wrap: break-word;
  }

  /* Frame: tabs and panels */
  .admin {
    position: relative;
  }
  [role='tablist'] {
    display: flex;
    gap: 0.25rem;
    padding: 0.5rem 0.75rem 0;
    border-bottom: 1px solid var(--_border);
    background: var(--_surface);
    overflow-x: auto;
  }
  [role='tab'] {
    min-height: 48px;
    border: 0;
    border-bottom: 3px solid transparent;
    border-radius: calc(var(--_radius) * 0.5) calc(var(--_radius) * 0.5) 0 0;
    background: transparent;
    color: var(--_muted);
    white-space: nowrap;
  }
  [role='tab'][aria-selected='true'] {
    color: var(--_fg);
    border-bottom-color: var(--_accent);
    background: var(--_bg);
  }
  [role='tabpanel'] {
    padding: calc(var(--_space) * 1.25);
    min-width: 0;
  }
  [role='tabpanel'][hidden] {
    display: none;
  }

  /* Shared blocks */
  .toolbar {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    justify-content: space-between;
    gap: 0.75rem;
    margin-bottom: var(--_space);
  }
  .toolbar h2 {
    margin: 0;
  }
  .card {
    padding: var(--_space);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    background: var(--_bg);
  }
  .hint,
  .sub {
    color: var(--_muted);
    font-size: 0.875rem;
  }
  .hint {
    margin: 0 0 0.35rem;
  }
  .sub {
    display: block;
    font-weight: 400;
  }
  .placeholder {
    margin: 0;
    padding: 2.5rem 1rem;
    text-align: center;
    color: var(--_muted);
  }
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
  .error-box p {
    margin: 0;
  }
  [part~='field-error'] {
    margin: 0.3rem 0 0;
    color: var(--_danger);
    font-size: 0.875rem;
    font-weight: 500;
  }
  [part~='field-error']::before {
    content: '⚠ ';
  }
  .field {
    margin-bottom: var(--_space);
    min-width: 0;
  }
  .row {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr));
    gap: 0 var(--_space);
  }
  .grow {
    flex: 1 1 14rem;
  }

  /* Filters, tables, paging */
  .filters {
    display: flex;
    flex-wrap: wrap;
    align-items: flex-end;
    gap: 0 0.75rem;
    margin-bottom: 0.5rem;
  }
  .filters .field {
    flex: 0 1 11rem;
  }
  .filters .field.grow {
    flex: 1 1 14rem;
  }
  .filters button {
    margin-bottom: var(--_space);
  }
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
  td.actions {
    text-align: end;
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
  .badge {
    display: inline-flex;
    align-items: center;
    gap: 0.35rem;
    padding: 0.1rem 0.6rem;
    border-radius: 999px;
    font-size: 0.8125rem;
    font-weight: 600;
    white-space: nowrap;
    background: var(--_surface);
    color: var(--_muted);
    border: 1px solid var(--_border);
  }
  .badge.active,
  .badge.success {
    color: var(--_success);
    border-color: color-mix(in srgb, var(--_success) 35%, transparent);
    background: color-mix(in srgb, var(--_success) 9%, var(--_bg));
  }
  .badge.failed {
    color: var(--_danger);
    border-color: color-mix(in srgb, var(--_danger) 35%, transparent);
    background: color-mix(in srgb, var(--_danger) 8%, var(--_bg));
  }
  .badge.pending,
  .badge.processing,
  .badge.closed {
    color: var(--_warning);
    border-color: color-mix(in srgb, var(--_warning) 35%, transparent);
    background: var(--_warning-bg);
  }
  .pulse {
    width: 0.5rem;
    height: 0.5rem;
    border-radius: 50%;
    background: currentColor;
    animation: pulse 1.4s ease-in-out infinite;
  }
  @keyframes pulse {
    50% {
      opacity: 0.25;
    }
  }
  .live {
    display: inline-flex;
    align-items: center;
    gap: 0.4rem;
    color: var(--_muted);
    font-size: 0.875rem;
  }

  /* Link form */
  .link-form {
    max-width: 46rem;
  }
  .link-form > h2 {
    margin-bottom: var(--_space);
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
  .group {
    padding: var(--_space);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  .group > legend {
    padding: 0 0.35rem;
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
  .cart {
    padding: var(--_space);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  .cart > legend {
    padding: 0 0.35rem;
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
  .cart-item input {
    min-width: 0;
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
  .form-actions {
    display: flex;
    flex-wrap: wrap;
    justify-content: flex-end;
    gap: 0.75rem;
    margin-top: var(--_space);
  }

  /* Link detail */
  .detail-head {
    display: flex;
    flex-wrap: wrap;
    justify-content: space-between;
    align-items: flex-start;
    gap: var(--_space);
    margin: 0.5rem 0 var(--_space);
  }
  .meta {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.35rem 1rem;
    color: var(--_muted);
    font-size: 0.9375rem;
    margin-bottom: 0.5rem;
  }
  .meta strong {
    color: var(--_fg);
  }
  .description {
    max-width: 60ch;
  }
  .detail-head > div:first-child {
    flex: 1 1 20rem;
    min-width: 0;
  }
  .head-actions {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
  }
  .detail-grid {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr));
    gap: var(--_space);
  }
  .stats {
    display: grid;
    grid-template-columns: repeat(3, 1fr);
    gap: 0.5rem;
    margin: 0 0 var(--_space);
  }
  .stats div {
    padding: 0.6rem 0.75rem;
    border-radius: calc(var(--_radius) * 0.75);
    background: var(--_surface);
  }
  .stats dt {
    color: var(--_muted);
    font-size: 0.8125rem;
  }
  .stats dd {
    margin: 0;
    font-size: 1.375rem;
    font-weight: 700;
    font-variant-numeric: tabular-nums;
  }
  .chart {
    margin: 0;
  }
  .bars {
    display: grid;
    gap: 0.5rem;
  }
  .bar-row {
    display: grid;
    grid-template-columns: 6rem 1fr 3.5rem;
    align-items: center;
    gap: 0.5rem;
    font-size: 0.875rem;
  }
  .bar-track {
    height: 0.9rem;
    border-radius: 999px;
    background: var(--_surface);
    overflow: hidden;
  }
  .bar {
    display: block;
    height: 100%;
    width: var(--size, 0%);
    min-width: 2px;
    border-radius: inherit;
    background: color-mix(in srgb, var(--_accent) 45%, var(--_bg));
    transition: width 0.4s ease;
  }
  .bar.payments {
    background: var(--_accent);
  }
  .bar-value {
    text-align: end;
    font-variant-numeric: tabular-nums;
    font-weight: 600;
  }
  figcaption {
    margin-top: 0.75rem;
    color: var(--_muted);
    font-size: 0.875rem;
  }
  .copy-row {
    display: flex;
    gap: 0.5rem;
    margin-bottom: 0.5rem;
  }
  .copy-row input {
    flex: 1;
    min-width: 0;
    font-family: var(--_mono);
    font-size: 0.875rem;
  }
  .copy-row button {
    flex: none;
  }
  textarea[part~='embed-snippet'] {
    font-family: var(--_mono);
    font-size: 0.8125rem;
    background: var(--_surface);
    white-space: pre;
    overflow-x: auto;
  }
  .copy-actions {
    display: flex;
    justify-content: flex-end;
    margin-top: 0.5rem;
  }

  /* Money */
  .balance-cards {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr));
    gap: var(--_space);
    margin: 0 0 calc(var(--_space) * 1.5);
    padding: 0;
    list-style: none;
  }
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
  @container (max-width: 52rem) {
    .money-grid {
      grid-template-columns: minmax(0, 1fr);
    }
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
  .history table {
    font-size: 0.875rem;
  }
  .history th,
  .history td {
    padding: 0.6rem 0.65rem;
  }
  .history td.date {
    min-width: 6.5rem;
  }
  .address-cell .address-short,
  [part~='tx-hash'] {
    white-space: nowrap;
    overflow-wrap: normal;
  }

  /* Sign-in */
  .sign-in {
    margin: calc(var(--_space) * 2) auto;
    max-width: 32rem;
    padding: calc(var(--_space) * 1.5);
    text-align: center;
  }
  .sign-in button {
    margin-top: 0.5rem;
  }

  @container (max-width: 40rem) {
    [role='tabpanel'] {
      padding: var(--_space);
    }
    [role='tab'] {
      flex: 1 1 0;
      white-space: normal;
      line-height: 1.25;
    }
    .cart-head {
      display: none;
    }
    .cart-item {
      grid-template-columns: 1fr 4.5rem 44px;
    }
    .cart-item .cell:nth-child(3) {
      grid-column: 1 / 3;
    }
  }
`;
