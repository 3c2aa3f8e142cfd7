/**
 * A short-lived cache of links by slug for the public, read-only views (`GET /v1/checkout/{slug}`
 * and the hosted page), which every customer page load hits. Without it each view is a database
 * round trip; with it, a popular link costs one query per `ttlMs` per instance.
 *
 * Staleness is bounded twice: a change of a link is recorded as a `link.changed` event, which
 * sends `NOTIFY paylink_link_changed, '<slug>'` in its transaction, and every instance listening
 * drops its copy; and no copy outlives `ttlMs`, so a missed notification costs at most that long. Nothing that moves money reads from here: starting a
 * session re-reads the link from the database.
 */
import type { Database } from '../../db/index.js';
import { ApiError } from '../errors.js';
import { LINK_CHANNEL } from '../events/index.js';
import { getLinkBySlug, type LinkRow } from './domain.js';

export interface LinkCache {
  /** The link, or the 404 `ApiError` for an unknown slug (also cached, against random-slug floods). */
  get(slug: string): Promise<LinkRow>;
  /** Drops this instance's copy at once (the NOTIFY reaches the others). */
  invalidate(slug: string): void;
}

interface Entry {
  expires: number;
  value: Promise<LinkRow>;
}

export function createLinkCache(db: Database, options: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}): LinkCache {
  const ttlMs = options.ttlMs ?? 2000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  // Copies are kept only while the invalidation channel is heard; until then every read goes to the database.
  let listening: 'no' | 'starting' | 'yes' = 'no';

  const listen = () => {
    listening = 'starting';
    // After a lost and re-established listener, notifications may have been missed: forget everything.
    db.listen(
      LINK_CHANNEL,
      (slug) => entries.delete(slug),
      () => entries.clear(),
    ).then(
      () => (listening = 'yes'),
      () => (listening = 'no'),
    );
  };

  return {
    get(slug) {
      if (listening === 'no') listen();
      if (listening !== 'yes') return getLinkBySlug(db, slug);
      const cached = entries.get(slug);
      if (cached && cached.expires > now()) return cached.value;
      const value = getLinkBySlug(db, slug);
      entries.delete(slug);
      entries.set(slug, { expires: now() + ttlMs, value });
      // Errors other than "not found" are not remembered.
      value.catch((error) => {
        if (!(error instanceof ApiError && error.statusCode === 404) && entries.get(slug)?.value === value) entries.delete(slug);
      });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      return value;
    },
    invalidate(slug) {
      entries.delete(slug);
    },
  };
}
