/**
 * A migration's SQL script cut into its statements, the way PostgreSQL's own lexer reads it: a `;`
 * ends a statement only outside string literals (`'…'` with `''` inside, `E'…'` with backslash
 * escapes), quoted identifiers (`"…"`), dollar-quoted bodies (`$$…$$`, `$fn$…$fn$`: a function's or a
 * `DO` block's statements), line comments (`-- …`) and block comments (`/* … *\/`, which nest).
 * Each statement is sent on its own (PGlite and node-postgres both take one statement with
 * parameters, and a script of several only without), so where the script is cut decides what runs.
 */

/** The text of each statement of `script`, trimmed, without the `;` that ends it; blank or comment-only pieces are left out. */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let start = -1; // where the current statement's first token is; -1 while only blanks and comments were read
  let i = 0;
  const begin = () => {
    if (start === -1) start = i;
  };
  const push = (end: number) => {
    if (start !== -1) statements.push(script.slice(start, end).trim());
    start = -1;
  };
  while (i < script.length) {
    const char = script[i]!;
    const next = script[i + 1];
    if (char === '-' && next === '-') {
      const end = script.indexOf('\n', i);
      i = end === -1 ? script.length : end + 1;
    } else if (char === '/' && next === '*') {
      i = blockCommentEnd(script, i);
    } else if (char === "'") {
      begin();
      i = quotedEnd(script, i, "'", isEscapeString(script, i));
    } else if (char === '"') {
      begin();
      i = quotedEnd(script, i, '"', false);
    } else if (char === '$' && !isIdentifierPart(script[i - 1])) {
      begin();
      const tag = /^\$([A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/.exec(script.slice(i, i + 64))?.[0];
      if (tag) {
        const end = script.indexOf(tag, i + tag.length);
        if (end === -1) throw new SyntaxError(`Unterminated dollar-quoted string ${tag} at offset ${i}`);
        i = end + tag.length;
      } else i++; // a parameter ($1) or part of a name
    } else if (char === ';') {
      push(i);
      i++;
    } else {
      if (!/\s/.test(char)) begin();
      i++;
    }
  }
  push(script.length);
  return statements;
}

/** After the block comment that opens at `from` (nested ones included). */
function blockCommentEnd(script: string, from: number): number {
  let depth = 0;
  let i = from;
  while (i < script.length) {
    if (script.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (script.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  throw new SyntaxError(`Unterminated block comment at offset ${from}`);
}

/** After the literal or identifier quoted by `quote` that opens at `from` (a doubled quote stays inside; so does `\'` in an E'' string). */
function quotedEnd(script: string, from: number, quote: string, backslashEscapes: boolean): number {
  let i = from + 1;
  while (i < script.length) {
    const char = script[i]!;
    if (backslashEscapes && char === '\\') i += 2;
    else if (char === quote) {
      if (script[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  throw new SyntaxError(`Unterminated ${quote === "'" ? 'string' : 'quoted identifier'} at offset ${from}`);
}

/** Whether the `'` at `at` opens an escape string (`E'…'`, `e'…'`): an `E` that is a word of its own just before it. */
function isEscapeString(script: string, at: number): boolean {
  return /[Ee]/.test(script[at - 1] ?? '') && !isIdentifierPart(script[at - 2]);
}

function isIdentifierPart(char: string | undefined): boolean {
  return char !== undefined && /[\w$\u0080-\uffff]/.test(char);
}
