/**
 * Rules of free text: every string a person types (titles, descriptions, messages, names, customer
 * details) goes through `checkText`, so a rule about text is written once here.
 *
 * This is where text refusals belong: issue 15 adds NUL bytes (and other bytes PostgreSQL can't
 * store) here and in `textSchema` of `core/schemas.ts`, which builds every zod string of a request.
 * Isomorphic: no DOM, no Node, no zod.
 */
import type { RuleErrors } from './types.js';

/** What a text field allows. */
export interface TextRule {
  /** Longest text, in UTF-16 code units (see `MAX_LENGTH`). */
  max: number;
  /** Refuse an empty text (after trimming). */
  required?: boolean;
}

/**
 * Checks one text, adding at most one error on `path` to `errors`. Returns the text as stored
 * (trimmed when `trim`), or null when it was refused.
 */
export function checkText(
  value: string,
  path: string,
  rule: TextRule,
  errors: Pick<RuleErrors, 'fail'>,
  options: { trim?: boolean } = {},
): string | null {
  const text = options.trim ? value.trim() : value;
  if (rule.required && text.trim() === '') return errors.fail(path, 'text.required');
  if (text.length > rule.max) return errors.fail(path, 'text.tooLong', { max: rule.max });
  return text;
}
