/**
 * Demo data: one sandbox integrator with a store link (Standard, with a cart), a donation link
 * (suggested amounts, closing time) and a simple fixed-amount link. Seeded once per data directory.
 */
import type { Database } from '../src/server/db/index.js';
import { createApiKey, findPrincipal, type Principal } from '../src/server/service/keys/index.js';
import { createLink } from '../src/server/service/links/index.js';

export interface DemoSeed {
  apiKey: string;
  principal: Principal;
  slugs: { store: string; donation: string; simple: string };
}

export async function seedDemo(db: Database, existingKey?: string): Promise<DemoSeed> {
  if (existingKey) {
    const principal = await findPrincipal(db, existingKey);
    if (principal) {
      const { rows } = await db.query<{ slug: string; title: string }>(
        'SELECT slug, title FROM payment_links WHERE integrator_id = $1 ORDER BY created_at ASC LIMIT 3',
        [principal.integratorId],
      );
      if (rows.length === 3) {
        return { apiKey: existingKey, principal, slugs: { store: rows[0]!.slug, donation: rows[1]!.slug, simple: rows[2]!.slug } };
      }
    }
  }
  const created = await db.transaction((tx) => createApiKey(tx, { name: 'Demo merchant (sandbox)' }));
  const principal: Principal = { integratorId: created.integratorId, userId: created.userId, keyId: created.keyId };
  const store = await createLink(db, principal, {
    title: 'Lagos Coffee Roasters — order',
    description: 'Freshly roasted beans, shipped within Lagos in 2 days.',
    linkType: 'Standard',
    fiatCurrency: ['NGN', 'USD'],
    action: { successMessage: 'Thank you! Your beans are on their way.', redirect: false, showConfirmationPage: true },
    options: { collectAddress: true, collectPhone: true },
    cart: {
      items: [
        { name: 'Ethiopian Yirgacheffe, 250 g', quantity: 2, unitAmount: '8500' },
        { name: 'Pour-over filter papers', quantity: 1, unitAmount: '2500.50' },
      ],
    },
  });
  const donation = await createLink(db, principal, {
    title: 'Books for Ajegunle Library',
    description: 'Every naira buys books for the children of Ajegunle community library.',
    linkType: 'Donation',
    fiatCurrency: 'NGN',
    action: { successMessage: 'Thank you for your gift to the library!', redirect: false, showConfirmationPage: false },
    options: { collectAddress: false, collectPhone: false },
    cart: { items: [] },
    minAmount: 500,
    maxAmount: 2000000,
    suggestedAmounts: [1000, 5000, 20000],
    closesAt: new Date(Date.now() + 30 * 24 * 3600 * 1000).toISOString(),
  });
  const simple = await createLink(db, principal, {
    title: 'Design consultation (1 hour)',
    description: 'A one-hour video call about your brand.',
    fiatAmount: 45,
    fiatCurrency: ['USD'],
    action: { successMessage: 'Booked! We will email you a calendar invite.', redirect: false, showConfirmationPage: false },
    options: { collectAddress: false, collectPhone: false },
    cart: { items: [] },
  });
  return { apiKey: created.key, principal, slugs: { store: store.slug, donation: donation.slug, simple: simple.slug } };
}
