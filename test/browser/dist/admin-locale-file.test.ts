/**
 * The admin's French as the script tags ship it (`npm run test:browser:dist`, after `npm run build`):
 * `dist/paylink.js` carries English texts only and `dist/paylink-admin.fr.js` registers the French
 * table, whichever of the two scripts runs first. Each case is a page of its own (an iframe), as a
 * module script runs once per page.
 */
import { expect, waitUntil } from '@open-wc/testing';

/**
 * A page with `<paylink-admin locale="fr">` and `scripts` (paths under /dist/, in document order). Its
 * console's warnings are kept in `window.warnings` from the start.
 */
async function page(scripts: string[]): Promise<Document> {
  const frame = document.createElement('iframe');
  const tags = scripts.map((file) => `<script type="module" src="/dist/${file}"></script>`).join('');
  // A fetch that never answers, set before the element is defined: the tab bar is what these tests read, not the lists.
  const quiet = `<script>document.querySelector('paylink-admin').fetch = () => new Promise(() => {});</script>`;
  const warnings = '<script>window.warnings = []; console.warn = (message) => warnings.push(String(message));</script>';
  frame.srcdoc = `<!doctype html><html lang="en"><head>${warnings}</head><body><paylink-admin locale="fr"></paylink-admin>${quiet}${tags}</body></html>`;
  document.body.append(frame);
  await new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  return frame.contentDocument!;
}

/** The first tab's label and the language the element declares for its texts, once it has rendered. */
async function shown(doc: Document, label: string): Promise<{ label: string; lang: string }> {
  const root = () => doc.querySelector('paylink-admin')?.shadowRoot;
  const read = () => root()?.querySelector('#tab-links')?.textContent?.trim() ?? '';
  await waitUntil(() => read() === label, `the first tab reads ${label} (it reads "${read()}")`, { timeout: 5000 });
  return { label: read(), lang: root()!.querySelector('[part="base"]')!.getAttribute('lang')! };
}

describe('dist/paylink-admin.fr.js', () => {
  afterEach(() => document.querySelectorAll('iframe').forEach((frame) => frame.remove()));

  it('leaves the admin in English without it: dist/paylink.js has no French', async () => {
    const doc = await page(['paylink.js']);
    expect(await shown(doc, 'Payment links')).to.deep.equal({ label: 'Payment links', lang: 'en' });
    const response = await fetch('/dist/paylink.js');
    expect(await response.text()).not.to.include('Liens de paiement');
  });

  it('says once in the console which file the French needs when the page has not loaded it', async () => {
    const doc = await page(['paylink.js']);
    await shown(doc, 'Payment links');
    const warnings = () => (doc.defaultView as unknown as { warnings: string[] }).warnings;
    await waitUntil(() => warnings().length > 0, 'a warning once the page has loaded');
    expect(warnings()).to.have.length(1);
    expect(warnings()[0]).to.include('locale "fr" needs paylink-admin.fr.js');
    // Another admin on the page says nothing more.
    const second = doc.createElement('paylink-admin');
    second.setAttribute('locale', 'fr');
    doc.body.append(second);
    await waitUntil(() => second.shadowRoot?.querySelector('#tab-links'), 'the second admin rendered');
    expect(warnings()).to.have.length(1);
  });

  it('says nothing when the French file is there', async () => {
    const doc = await page(['paylink.js', 'paylink-admin.fr.js']);
    await shown(doc, 'Liens de paiement');
    // The page has loaded (page() waited for it), when a missing file would have been said.
    expect((doc.defaultView as unknown as { warnings: string[] }).warnings).to.deep.equal([]);
  });

  it('shows the admin in French when it runs before the element', async () => {
    const doc = await page(['paylink-admin.fr.js', 'paylink.js']);
    expect(await shown(doc, 'Liens de paiement')).to.deep.equal({ label: 'Liens de paiement', lang: 'fr' });
  });

  it('shows the admin in French when it runs after the element: the element renders again', async () => {
    const doc = await page(['paylink.js']);
    await shown(doc, 'Payment links');
    const script = doc.createElement('script');
    script.type = 'module';
    script.src = '/dist/paylink-admin.fr.js';
    doc.body.append(script);
    expect(await shown(doc, 'Liens de paiement')).to.deep.equal({ label: 'Liens de paiement', lang: 'fr' });
  });

  it('fills a French text equal to the English one from the English table', async () => {
    const doc = await page(['paylink.js', 'paylink-admin.fr.js']);
    await shown(doc, 'Liens de paiement');
    // "Webhooks" is the same word in both tables: the packed French table leaves its slot empty.
    expect(doc.querySelector('paylink-admin')!.shadowRoot!.querySelector('#tab-webhooks')!.textContent!.trim()).to.equal('Webhooks');
  });

  it('refuses a French table packed against another version\'s English slots: English texts and a warning, not wrong ones', async () => {
    const doc = await page(['paylink.js']);
    await shown(doc, 'Payment links');
    const view = doc.defaultView as Window & typeof globalThis;
    const warnings: string[] = [];
    view.console.warn = (message: string) => void warnings.push(message);
    // What another release's dist/paylink-admin.fr.js leaves in the registry: its table, marked with its own layout.
    const registry = ((view as unknown as Record<symbol, Record<string, unknown[]>>)[Symbol.for('paylink.admin.translations')] ??= {});
    (registry.fr ??= []).unshift({ table: new Proxy({}, { get: () => 'Texte d’une autre version' }), layout: 'another-release' });
    view.dispatchEvent(new Event('paylink-admin-translations'));
    await waitUntil(() => warnings.length > 0, 'the admin warns of the table it cannot use');
    expect(warnings[0]).to.include('another version');
    expect(await shown(doc, 'Payment links')).to.deep.equal({ label: 'Payment links', lang: 'en' });

    // The matching file, loaded next, is used.
    const script = doc.createElement('script');
    script.type = 'module';
    script.src = '/dist/paylink-admin.fr.js';
    doc.body.append(script);
    expect(await shown(doc, 'Liens de paiement')).to.deep.equal({ label: 'Liens de paiement', lang: 'fr' });
  });
});
