/**
 * Styles of the links list (`links-view.ts`). The table, its filters and its stacked phone layout
 * come from `templates.styles.ts`; this file holds only what is particular to links.
 */
import { css } from '../../../internal/css-text.js';

export const linksListStyles = css`
  /* Titles get room before the short columns do; a long description wraps under its title. */
  [part~='links-table'] .title-cell {
    min-width: 12rem;
  }
  [part~='links-table'] .link-button {
    overflow-wrap: break-word;
  }
  @container (width < 600px) {
    [part~='links-table'] .title-cell {
      min-width: 0;
    }
  }
`;
