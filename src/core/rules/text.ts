/**
 * Rules of free text: every string a person types (titles, descriptions, messages, names, customer
 * details) goes through `checkText`, so a rule about text is written once here.
 *
 * Characters text can't hold: NUL (PostgreSQL refuses it, which used to be a 500), the other
 * C0 control characters, and halves of surrogate pairs (they have no UTF-8 form, so storing them would
 * silently change the text). A field of several lines (a description, a delivery address) may hold tab,
 * line feed and carriage return; a one-line field (a title, an id, a code) none of them, except as
 * surrounding whitespace that is trimmed anyway, and no bidirectional control character either (the
 * embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, the marks U+200E, U+200F and
 * U+061C): a title such as `Invoice \u202Efdp.exe` shows reversed, and a one-line text is shown beside
 * other text (a table row, a wallet's prompt) where the reversal leaks into what follows. A text of
 * several lines may hold them, as right-to-left writing sometimes needs. `textSchema` of `core/schemas.ts`, which builds every
 * zod string of a request, refuses them with these patterns, and states them in the OpenAPI document.
 * Isomorphic: no DOM, no Node, no zod.
 */
import type { RuleErrors } from './types.js';

/** Whether a text field may span lines (tab, LF and CR allowed inside it). */
export type TextKind = 'line' | 'multiline';

/**
 * What a one-line text may be, as a JSON Schema (ECMA-262) pattern: no C0 control character and no
 * bidirectional control. (The check itself also forgives tab and line breaks in the whitespace around
 * the text, e.g. a pasted title's trailing newline, which is trimmed anyway; the pattern states the
 * stricter rule a client can rely on.)
 */
export const LINE_TEXT_PATTERN = '^[^\\u0000-\\u001F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]*$';

/** What a text of several lines may be: no C0 control character but tab, line feed and carriage return. */
export const MULTILINE_TEXT_PATTERN = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F]*$';

const LINE_TEXT = new RegExp(LINE_TEXT_PATTERN);
const MULTILINE_TEXT = new RegExp(MULTILINE_TEXT_PATTERN);
/** A bidirectional control character (see the module comment). */
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
/** Half of a surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `value` holds a character no text of `kind` may hold (see the module comment). */
export function hasForbiddenCharacters(value: string, kind: TextKind = 'line'): boolean {
  // A one-line text forgives tab and line breaks only in the whitespace trimmed around it, never the
  // other controls (a vertical tab or form feed is no more welcome at the end of a title than inside it).
  const allowed = MULTILINE_TEXT.test(value) && (kind === 'multiline' || (LINE_TEXT.test(value.trim()) && !BIDI_CONTROL.test(value)));
  return !allowed || LONE_SURROGATE.test(value);
}

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
export function checkText(value: string, path: string, rule: TextRule, errors: Pick<RuleErrors, 'fail'>, options: { trim?: boolean } = {}): string | null {
  const text = options.trim ? value.trim() : value;
  if (rule.required && text.trim() === '') return errors.fail(path, 'text.required');
  if (text.length > rule.max) return errors.fail(path, 'text.tooLong', { max: rule.max });
  return text;
}
