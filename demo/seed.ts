/**
 * Demo data: one integrator with a store link (Standard, with a cart), a donation link (a fundraiser:
 * suggested amounts, closing time, a goal) and a simple fixed-amount link. Seeded once per data
 * directory. On the demo's local chain, also a few sessions paid by real transfers (`seedPayments`),
 * so the merchant has a balance to withdraw that the ledger can account for, credited the one way
 * money comes in: the scanner seeing the transfer; on the sandbox, simulated ones (`seedDonations`).
 * Either way the fundraiser opens with a few gifts, most from donors who chose to be shown, so a
 * visitor sees its progress and its latest donors move when they give.
 */
import { parseUnits } from 'viem';
import type { Database } from '../src/server/db/index.js';
import type { RunningService } from '../src/server/service/serve.js';
import { createApiKey, findPrincipal, type Principal } from '../src/server/service/keys/index.js';
import { createLink } from '../src/server/service/links/index.js';

import { DEMO_FINALITY_LAG, type DemoChain } from './chain.js';

/** The demo's merchant and links. */
export interface DemoSeed {
  apiKey: string;
  principal: Principal;
  slugs: { store: string; donation: string; simple: string };
  /** The links were made by this run (not found from an earlier one's data directory). */
  created: boolean;
}

/** The fundraiser's goal, in naira. */
export const DEMO_GOAL = 250_000;

/** The gifts the fundraiser opens with: what each gave, and its donor's words and choice to be shown. */
export const SEED_DONATIONS = [
  { fiatAmount: 20000, donorName: 'Adaeze O.', message: 'For the reading corner. Keep going!', showPublicly: true },
  { fiatAmount: 5000, donorName: 'Tunde', message: 'Books changed my life.', showPublicly: true },
  { fiatAmount: 12000, donorName: 'A private donor', message: 'Not for the page.', showPublicly: false },
] as const;

/**
 * Seeds the demo merchant and its three links once per database; with the key of an earlier run
 * (`existingKey`), finds them again instead.
 */
export async function seedDemo(db: Database, existingKey?: string, merchantName = 'Demo merchant (sandbox)'): Promise<DemoSeed> {
  if (existingKey) {
    const principal = await findPrincipal(db, existingKey);
    if (principal) {
      const { rows } = await db.query<{ slug: string; title: string }>(
        'SELECT slug, title FROM payment_links WHERE integrator_id = $1 ORDER BY created_at ASC LIMIT 3',
        [principal.integratorId],
      );
      if (rows.length === 3) {
        return { apiKey: existingKey, principal, slugs: { store: rows[0]!.slug, donation: rows[1]!.slug, simple: rows[2]!.slug }, created: false };
      }
    }
  }
  const created = await db.transaction((tx) => createApiKey(tx, { name: merchantName }));
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
    goalAmount: DEMO_GOAL,
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
  return { apiKey: created.key, principal, slugs: { store: store.slug, donation: donation.slug, simple: simple.slug }, created: true };
}

/** Calls the service as a customer's page would, asserting a success. */
function serviceCaller(service: Pick<RunningService, 'app'>) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await service.app.request(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`seeding the demo: ${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
    return json;
  };
}

/** On the sandbox chain: the fundraiser's opening gifts (`SEED_DONATIONS`), paid by simulated transfers. */
export async function seedDonations(service: Pick<RunningService, 'app'>, slug: string): Promise<void> {
  const call = serviceCaller(service);
  for (const gift of SEED_DONATIONS) {
    const session = await call('POST', `/v1/checkout/${slug}/sessions`, { assetId: 'USDT', ...gift });
    await call('POST', `/v1/checkout/sessions/${String(session.id)}/simulate-payment`, {});
  }
}

/** The seed's payments: which link, in what, for how much and from whom (donations only). */
const SEED_PAYMENTS = [
  { link: 'simple', assetId: 'USDT' },
  { link: 'simple', assetId: 'USDT' },
  ...SEED_DONATIONS.map((gift) => ({ link: 'donation', assetId: 'CNGN', ...gift }) as const),
] as const;

/**
 * Pays a few sessions of the seeded links with real token transfers from the tokens' owner, mines
 * the blocks that confirm them, and waits until the scanner has credited each (paid). Resolves with
 * each session and the hash of the transfer that paid it.
 */
export async function seedPayments(
  service: Pick<RunningService, 'app'>,
  chain: DemoChain,
  slugs: DemoSeed['slugs'],
  timeoutMs = 20_000,
): Promise<Array<{ sessionId: string; txHash: string }>> {
  const call = serviceCaller(service);
  const paid: Array<{ sessionId: string; txHash: string }> = [];
  for (const { link, ...payment } of SEED_PAYMENTS) {
    const session = await call('POST', `/v1/checkout/${slugs[link]}/sessions`, { ...payment, blockchainId: chain.network });
    const token = chain.tokens[payment.assetId];
    const units = parseUnits(String(session.cryptoAmount), token.decimals);
    const txHash = await chain.payFromOwner(token, session.payAddress as `0x${string}`, units);
    paid.push({ sessionId: String(session.id), txHash });
  }
  // Instant mining put each transfer in a block of its own; enough blocks on top confirm them all,
  // and make them final (the node's finalized block trails its head by 4), so the admin opens on an
  // available balance.
  await chain.mine(chain.config.confirmations + DEMO_FINALITY_LAG);
  const deadline = Date.now() + timeoutMs;
  for (const { sessionId } of paid) {
    for (;;) {
      const session = await call('GET', `/v1/checkout/sessions/${sessionId}`);
      if (session.status === 'paid') break;
      if (Date.now() > deadline) throw new Error(`seeding the demo: session ${sessionId} is ${String(session.status)}, not paid, after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return paid;
}
