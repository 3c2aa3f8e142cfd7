// Both ways of using the checkout in React 19: the component (camelCase props) and the element itself.
import { useState } from 'react';
import { PaylinkCheckout, type PaylinkReadyDetail } from 'paylink/react';

const params = new URLSearchParams(location.search);
const slug = params.get('slug') ?? '';
const api = params.get('api') ?? '/paylink';

export default function App() {
  const [fromComponent, setFromComponent] = useState('');
  const [fromElement, setFromElement] = useState('');
  const onElementReady = (event: CustomEvent<PaylinkReadyDetail>) => setFromElement(event.detail.link.title);
  return (
    <main>
      <PaylinkCheckout slug={slug} apiBase={api} theme="light" onPaylinkReady={(event) => setFromComponent(event.detail.link.title)} />
      <paylink-checkout slug={slug} api-base={api} onpaylink-ready={onElementReady} />
      {fromComponent && <p id="ready-component">{fromComponent}</p>}
      {fromElement && <p id="ready-element">{fromElement}</p>}
    </main>
  );
}
