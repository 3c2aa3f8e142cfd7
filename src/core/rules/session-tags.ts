/**
 * The tags of a checkout session or an order: a `reference` and `metadata`. Who sent them decides what
 * they mean: an order's (created with the API key) are the merchant's and its sessions carry them; a
 * keyless session start's `reference` is what the page said (the element's `client-reference`), stored
 * as `clientReference` and never trusted. Kept apart from `session.ts`, which the checkout bundle
 * loads, so the statuses stay free of the text rules. Isomorphic: no DOM, no Node, no zod.
 */
import { MAX_COUNT, MAX_LENGTH, MIN_LENGTH } from './limits.js';
import { checkText } from './text.js';
import { RuleErrors, type RuleError } from './types.js';

/** Tags as stored: `reference` null when none was given, `metadata` `{}`. */
export interface SessionTags {
  reference: string | null;
  metadata: Record<string, string>;
}

/**
 * Checks a `reference` (≤ 200 characters, trimmed, empty = none) and `metadata` (≤ 20 pairs of
 * strings, keys 1 to 40 characters, values ≤ 500). They are returned on the keyed reads and in
 * webhooks, never on a keyless one.
 */
export function checkSessionTags(
  reference: string | undefined,
  metadata: Readonly<Record<string, unknown>> | undefined,
): { tags: SessionTags; errors: RuleError[] } {
  const errors = new RuleErrors();
  const tags: SessionTags = { reference: null, metadata: {} };
  if (reference !== undefined) {
    const text = checkText(reference, 'reference', { max: MAX_LENGTH.reference }, errors, { trim: true });
    if (text) tags.reference = text;
  }
  if (metadata !== undefined) {
    const entries = Object.entries(metadata);
    if (entries.length > MAX_COUNT.metadataEntries) errors.fail('metadata', 'metadata.tooMany', { max: MAX_COUNT.metadataEntries });
    for (const [key, value] of entries) {
      const path = `metadata.${key}`;
      if (key.length < MIN_LENGTH.metadataKey || key.length > MAX_LENGTH.metadataKey) errors.fail(path, 'metadata.keyInvalid', { max: MAX_LENGTH.metadataKey });
      else if (typeof value !== 'string') errors.fail(path, 'metadata.valueInvalid');
      else if (checkText(value, path, { max: MAX_LENGTH.metadataValue }, errors) !== null) tags.metadata[key] = value;
    }
  }
  return { tags, errors: errors.list };
}
