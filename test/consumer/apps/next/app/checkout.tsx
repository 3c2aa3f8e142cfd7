'use client';
// A client component: defines the element in the browser and handles its events.
import 'paylink/checkout';
import { PaylinkCheckout } from 'paylink/react';
import { useState } from 'react';

export function Checkout({ slug, apiBase }: { slug: string; apiBase: string }) {
  const [ready, setReady] = useState('');
  return (
    <>
      <PaylinkCheckout id="from-client" slug={slug} apiBase={apiBase} onPaylinkReady={(event) => setReady(event.detail.link.title)} />
      {ready && <p id="ready">{ready}</p>}
    </>
  );
}
