/**
 * JSON bodies read without losing a number's digits. `JSON.parse` turns every number into a double, so
 * `{"fiatAmount": 10.000000000000000000000000000001}` arrives as 10 and the amount rule (at most the
 * currency's decimals) never sees the 30 decimals it would refuse in the string
 * `"10.000000000000000000000000000001"`; `12345678901234567890123` arrives rounded; `1.5e-30` as a
 * number the rules read as 0. Node 20's `JSON.parse` can't show a reviver the source text, so the body is
 * scanned once: a number whose value, written as the rules write it (`toDecimalString`), is not exactly
 * the number the text wrote is handed on as the string of its text. The rules then refuse it as they
 * refuse that string (an amount) or as a wrong type (a count). Numbers that a double holds exactly
 * (`12.5`, `1e3`, `2`) stay numbers.
 */
import { toDecimalString } from '../../core/money.js';

/** A JSON string (skipped whole, so digits inside it are never read as numbers) or a JSON number. */
const TOKEN = /"(?:[^"\\]|\\.)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Exponents past this are never exact in a double (it overflows or underflows), so such a number is kept as text. */
const MAX_EXPONENT = 400;

/**
 * The plain decimal a JSON number's text writes, without its sign, leading or trailing zeros
 * (`"1.50e2"` → `"150"`), or null when its exponent is out of any double's reach.
 */
function plainDecimal(number: string): string | null {
  const match = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(number)!;
  const exponent = Number(match[3] ?? 0);
  if (Math.abs(exponent) > MAX_EXPONENT) return null;
  const fraction = match[2] ?? '';
  const digits = match[1]! + fraction;
  // Where the decimal point falls within `digits`, after the exponent moved it.
  const point = match[1]!.length + exponent;
  const padded = point <= 0 ? '0'.repeat(1 - point) + digits : point >= digits.length ? digits + '0'.repeat(point - digits.length) : digits;
  const at = Math.max(point, 1);
  const whole = padded.slice(0, at).replace(/^0+(?=\d)/, '');
  const rest = padded.slice(at).replace(/0+$/, '');
  return rest ? `${whole}.${rest}` : whole;
}

/** True when the double `JSON.parse` makes of `number` is, as the rules read it, exactly what the text wrote. */
function isExact(number: string): boolean {
  const written = plainDecimal(number);
  return written !== null && toDecimalString(Math.abs(Number(number))) === written;
}

/**
 * `JSON.parse(text)`, except that a number a double would change (see the module comment) becomes the
 * string of its text. Throws as `JSON.parse` does on text that is not JSON.
 */
export function parseJsonKeepingDigits(text: string): unknown {
  const value: unknown = JSON.parse(text); // malformed JSON fails here, before anything is rewritten
  let changed = false;
  const rewritten = text.replace(TOKEN, (token) => {
    if (token.startsWith('"') || isExact(token)) return token;
    changed = true;
    return JSON.stringify(token);
  });
  return changed ? JSON.parse(rewritten) : value;
}
