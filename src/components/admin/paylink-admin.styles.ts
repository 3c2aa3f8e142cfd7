/**
 * Styles of `<paylink-admin>`'s frame: the admin's own tokens on top of the shared ones
 * (`internal/tokens.ts`), the tab bar, the panels and the sign-in message. Each view's styles sit
 * beside it (`links-view.styles.ts`, `link-form.styles.ts`, …) over the shared `admin-base.styles.ts`
 * and `templates.styles.ts`; `adminStyles` lists them in cascade order.
 *
 * The host is a size container: the layout follows the element's own width (a phone, or a narrow
 * column of the merchant's page), with one breakpoint at 600 px where tables stack and the tab bar
 * tightens.
 */
import { css } from '../../internal/css-text.js';
import { adminBaseStyles } from './admin-base.styles.js';
import { linkDetailStyles } from './links/link-detail.styles.js';
import { linkFormStyles } from './links/link-form.styles.js';
import { linksListStyles } from './links/links-view.styles.js';
import { moneyStyles } from './money/money-view.styles.js';
import { ordersStyles } from './orders/orders.styles.js';
import { paymentsStyles } from './payments/payments.styles.js';
import { templateStyles } from './templates.styles.js';
import { webhooksStyles } from './webhooks/webhooks.styles.js';
import { withdrawStyles } from './money/withdraw-form.styles.js';
import { historyStyles } from './money/withdrawal-history.styles.js';

const darkExtras = css`
  --_surface: var(--paylink-surface, var(--_tint, #1f232b));
  --_success: var(--paylink-success, #4ade80);
  --_warning: var(--paylink-warning, #fdb022);
  --_warning-bg: var(--paylink-warning-bg, #2e2616);
`;

const frameStyles = css`
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
  .admin {
    position: relative;
  }

  /*
   * A tab's label never wraps. Where the bar is too narrow for all six even with short labels (a
   * phone in French), the tabs wrap onto a second row, sharing each row's width, rather than hide a tab
   * behind a sideways scroll.
   */
  [role='tablist'] {
    display: flex;
    gap: 0.25rem;
    padding: 0.5rem 0.75rem 0;
    border-bottom: 1px solid var(--_border);
    background: var(--_surface);
    overflow-x: auto;
    scrollbar-width: thin;
  }
  [role='tab'] {
    position: relative;
    flex: none;
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
  /*
   * Where the bar is too narrow for six long labels (a phone, a tablet; French runs longest), a tab
   * with a short label shows it instead: generated content with empty alternative text, so the tab's
   * accessible name stays its full label, and the full label stays in the DOM for screen readers.
   */
  @container (width < 880px) {
    [role='tab'] {
      padding-inline: 0.75rem;
    }
    [role='tab'][data-short] .tab-label {
      position: absolute;
      width: 1px;
      height: 1px;
      overflow: hidden;
      clip: rect(0 0 0 0);
      white-space: nowrap;
    }
    [role='tab'][data-short]::after {
      content: attr(data-short) / '';
    }
  }
  [role='tabpanel'] {
    padding: calc(var(--_space) * 1.25);
    min-width: 0;
  }
  [role='tabpanel'][hidden] {
    display: none;
  }

  .sign-in {
    margin: calc(var(--_space) * 2) auto;
    max-width: 32rem;
    padding: calc(var(--_space) * 1.5);
    text-align: center;
  }
  .sign-in button {
    margin-top: 0.5rem;
  }

  @container (width < 600px) {
    [role='tablist'] {
      flex-wrap: wrap;
      gap: 0;
      padding-inline: 0.125rem;
    }
    [role='tab'] {
      flex: 1 1 auto;
      padding-inline: 0.375rem;
      font-size: 0.8125rem;
    }
    [role='tabpanel'] {
      padding: calc(var(--_space) * 0.75);
    }
    .sign-in {
      margin: calc(var(--_space) * 0.75);
      padding: var(--_space);
    }
    h2 {
      font-size: 1.125rem;
    }
  }
  /* The narrowest phones, and a phone page's own margins around the admin: four short tabs still fit. */
  @container (width < 400px) {
    [role='tab'] {
      padding-inline: 0.4rem;
      font-size: 0.8125rem;
    }
  }
`;

/** Every style of the admin, in cascade order: base, shared blocks, frame, then each view. */
export const adminStyles =
  adminBaseStyles +
  templateStyles +
  frameStyles +
  linksListStyles +
  linkFormStyles +
  linkDetailStyles +
  moneyStyles +
  withdrawStyles +
  historyStyles +
  paymentsStyles +
  ordersStyles +
  webhooksStyles;
