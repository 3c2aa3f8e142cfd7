/**
 * Styles of the webhooks views (`webhooks-view.ts`, `webhook-form.ts`, `webhook-detail.ts`): long
 * endpoint URLs that wrap anywhere rather than widen the page, the event choices, the one-time secret
 * card, the delete confirmation and the test event's result.
 */
import { css } from '../../../internal/css-text.js';

export const webhooksStyles = css`
  .intro {
    max-width: 70ch;
    margin: -0.5rem 0 var(--_space);
  }
  /* Event types break after a dot (the template puts <wbr> there), never inside a word. */
  .event-type {
    overflow-wrap: normal;
    word-break: normal;
  }
  [part~='endpoints-table'] .endpoint-cell {
    min-width: 14rem;
  }
  [part~='endpoint-url'],
  .endpoint-heading {
    overflow-wrap: anywhere;
    word-break: break-word;
  }
  .endpoint-heading {
    font-family: var(--_mono);
    font-size: 1.125rem;
  }
  .events-cell {
    min-width: 12rem;
  }
  .webhook-form {
    max-width: 46rem;
  }
  .webhook-form > h2 {
    margin-bottom: var(--_space);
  }
  .events-group {
    padding: var(--_space);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
  }
  .events-group > legend {
    padding: 0 0.35rem;
    font-size: 1rem;
    font-weight: 650;
  }
  .event-choices {
    display: grid;
    grid-template-columns: repeat(auto-fit, minmax(min(17rem, 100%), 1fr));
    gap: 0.6rem 1.25rem;
    margin-bottom: 0.5rem;
  }
  label.event-choice {
    align-items: flex-start;
  }
  .event-choice input {
    margin-top: 0.2rem;
  }
  .event-choice .event-name {
    display: block;
    font-weight: 600;
    overflow-wrap: anywhere;
  }
  .event-choice .hint {
    display: block;
    margin: 0;
  }
  .secret-card {
    margin-bottom: var(--_space);
    border-color: var(--_warning);
    background: var(--_warning-bg);
  }
  .secret-card .copy-row {
    align-items: flex-start;
  }
  .secret-card textarea {
    flex: 1;
    min-width: 0;
    min-height: 44px;
    background: var(--_bg);
    font-size: 0.875rem;
    resize: none;
    word-break: break-all;
    field-sizing: content;
  }
  .warning {
    color: var(--_warning);
  }
  .danger-card {
    margin-bottom: var(--_space);
    border-color: var(--_danger);
  }
  button.danger {
    border-color: transparent;
    background: var(--_danger);
    color: #fff;
  }
  button.danger-outline {
    color: var(--_danger);
    border-color: color-mix(in srgb, var(--_danger) 45%, var(--_border));
  }
  .result {
    margin: 0 0 var(--_space);
    padding: 0.6rem 0.9rem;
    border-radius: calc(var(--_radius) * 0.75);
    border: 1px solid var(--_border);
  }
  .result.ok {
    color: var(--_success);
    border-color: color-mix(in srgb, var(--_success) 35%, transparent);
    background: color-mix(in srgb, var(--_success) 8%, var(--_bg));
  }
  .result.bad {
    color: var(--_danger);
    border-color: color-mix(in srgb, var(--_danger) 35%, transparent);
    background: color-mix(in srgb, var(--_danger) 7%, var(--_bg));
  }
  .deliveries {
    margin-top: calc(var(--_space) * 1.5);
  }
  .deliveries .toolbar h3 {
    margin: 0;
  }
  .deliveries table {
    font-size: 0.875rem;
  }
  .deliveries th,
  .deliveries td {
    padding: 0.6rem 0.65rem;
  }
  .deliveries .date {
    white-space: nowrap;
  }
  .deliveries .event-cell {
    font-weight: 500;
  }
  [part~='event-id'] {
    font-size: 0.75rem;
  }
  .response-cell {
    min-width: 8rem;
  }
  @container (width < 600px) {
    .deliveries .date {
      white-space: normal;
    }
    [part~='endpoints-table'] .endpoint-cell,
    .events-cell {
      min-width: 0;
    }
    /* The whole secret, wrapped, above its copy button. */
    .secret-card .copy-row {
      flex-direction: column;
      align-items: stretch;
    }
  }
`;
