/**
 * `import 'paylink/react'` (types only): makes `<paylink-checkout>` and `<paylink-admin>` typed in
 * React 19 TSX, attributes and `onpaylink-*` listeners included.
 */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { PaylinkAdminAttributes, PaylinkCheckoutAttributes, PaylinkCheckoutListeners } from './elements.js';

type Base = DetailedHTMLProps<HTMLAttributes<HTMLElement>, HTMLElement>;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'paylink-checkout': Base & PaylinkCheckoutAttributes & PaylinkCheckoutListeners;
      'paylink-admin': Base & PaylinkAdminAttributes;
    }
  }
}
