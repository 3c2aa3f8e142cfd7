/**
 * Styles of one link's detail (`link-detail.ts`): its header, the performance card (stat tiles and
 * the two-bar chart) and the share card (public URL and embed snippet with copy buttons).
 */
import { css } from '../../../internal/css-text.js';

export const linkDetailStyles = css`
  .detail-head {
    display: flex;
    flex-wrap: wrap;
    justify-content: space-between;
    align-items: flex-start;
    gap: var(--_space);
    margin: 0.5rem 0 var(--_space);
  }
  .detail-head > div:first-child {
    flex: 1 1 20rem;
    min-width: 0;
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
  .head-actions {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
  }
  .detail-grid {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(min(18rem, 100%), 1fr));
    gap: var(--_space);
  }
  /* Three figures side by side while each keeps room for its label; on the narrowest phones they wrap. */
  .stats {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(min(6.5rem, 100%), 1fr));
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
  /* Label, bar, value: the two rows share their columns, sized to the longer label and value. */
  .bars {
    display: grid;
    grid-template-columns: max-content minmax(0, 1fr) max-content;
    gap: 0.5rem 0.75rem;
  }
  .bar-row {
    display: grid;
    grid-column: 1 / -1;
    grid-template-columns: subgrid;
    align-items: center;
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

  @container (width < 600px) {
    .head-actions,
    .head-actions [part~='button'] {
      flex: 1 1 auto;
    }
    .stats dd {
      font-size: 1.125rem;
    }
  }
`;
