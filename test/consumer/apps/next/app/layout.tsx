// The README's Next.js recipe: the page reserves the checkout's space before the element upgrades.
import type { ReactNode } from 'react';
import './paylink.css';

export const metadata = { title: 'Consumer shop' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
