/**
 * A CSV reader for the tests of the payments export, in Node and in the browser: RFC 4180 with the
 * separator of the reader's choice (`,` as the file is written; `;` or a tab as a spreadsheet in
 * another locale splits it), and lenient as spreadsheets are.
 */

/**
 * Reads CSV text with `separator`, quote-aware: a quote opens a quoted part anywhere in a field, `""`
 * inside one is a quote, and a quote that closes is followed by whatever comes (another separator than
 * the file's leaves the rest of the line in the field). Rows end with CRLF; a last row without one is
 * kept.
 */
export function readCsv(text: string, separator = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === separator) (row.push(field), (field = ''));
    else if (char === '\r' && text[i + 1] === '\n') (row.push(field), rows.push(row), (row = []), (field = ''), i++);
    else field += char;
  }
  if (field !== '' || row.length) (row.push(field), rows.push(row));
  return rows;
}
