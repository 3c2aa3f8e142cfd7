/**
 * What a merchant attaches to a checkout session: its `reference` (the order id, the
 * element's `reference` attribute) and `metadata` (the element's `metadata` property). Kept apart from
 * `session.ts`, which the checkout bundle loads, so the statuses stay free of the text rules.
 * Isomorphic: no DOM, no Node, no zod.
 */
import { MAX_COUNT, MAX_LENGTH, MIN_LENGTH } from './limits.js';
import { checkText } from './text.js';
import { RuleErrors, type RuleError } from './types.js';

/** The merchant's tags of a session, as stored: `reference` null when none was given, `metadata` `{}`. */
export interface SessionTags {
  reference: string | null;
  metadata: Record<string, string>;
}

/**
 * Checks the `reference` (the merchant's order id: ≤ 200 characters, trimmed, empty = none) and
 * `metadata` (≤ 20 pairs of strings, keys 1 to 40 characters, values ≤ 500) a session is started with.
 * They are the merchant's, returned on the keyed session read and in webhooks, never on the keyless one.
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
      if (key.length < MIN_LENGTH.metadataKey || key.length > MAX_LENGTH.metadataKey)
        errors.fail(path, 'metadata.keyInvalid', { max: MAX_LENGTH.metadataKey });
      else if (typeof value !== 'string') errors.fail(path, 'metadata.valueInvalid');
      else if (checkText(value, path, { max: MAX_LENGTH.metadataValue }, errors) !== null) tags.metadata[key] = value;
    }
  }
  return { tags, errors: errors.list };
}
