// A server component: it renders <PaylinkCheckout> itself (props only: handlers live in client components).
import { PaylinkCheckout } from 'paylink/react';
import { Checkout } from './checkout';

export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const { slug = '', api = '/paylink' } = await searchParams;
  return (
    <main>
      <h1>Consumer shop</h1>
      <PaylinkCheckout id="from-server" slug={slug} apiBase={api} />
      <Checkout slug={slug} apiBase={api} />
    </main>
  );
}
