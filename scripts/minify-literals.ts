/**
 * A Vite/Rolldown plugin that minifies the static text of Lit's `html`, `svg` and `css` tagged
 * templates in our sources (the JS minifier leaves template text alone). HTML loses its comments
 * (notes for the reader: lit-html's own markers are made at run time, never written in a source), the
 * indentation between tags and the quotes of attribute values that need none; CSS loses comments, the
 * spaces a parser does not need and the quotes of attribute selectors' values that are names.
 * Expressions (`${…}`) are kept as they are, nested templates included.
 */
import type { Plugin } from 'vite';

export type Kind = 'html' | 'svg' | 'css' | 'other';

function minifyText(text: string, kind: Kind): string {
  if (kind == 'css') {
    return (
      text
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\s+/g, ' ')
        .replace(/ ?([{};,>]) ?/g, '$1')
        .replace(/: /g, ':')
        .replace(/ !important|@media \(/g, (match) => match.replace(' ', ''))
        .replace(/;}/g, '}')
        .replace(/([^\w.])0\.(\d)/g, '$1.$2')
        // An attribute selector's value that is a name needs no quotes (`[part~=links-table]`).
        .replace(/(\[[\w-]+[~|^$*]?=)(['"])(-?[A-Za-z_][\w-]*)\2\]/g, '$1$3]')
    );
  }
  if (kind == 'html' || kind == 'svg') {
    return (
      text
        // A comment wholly within this static part (one around a binding stays: a rare case, kept as written).
        .replace(/<!--[^]*?-->/g, '')
        .replace(/>\s*\n\s*</g, '><')
        // The end of a tag whose attributes were spread over lines: nothing before its `>`.
        .replace(/\s*\n\s*>/g, '>')
        .replace(/\s*\n\s*/g, ' ')
        // An attribute value without spaces or quote-like characters needs no quotes (HTML's unquoted
        // form); not before a `/`, which would join the value (`<br class=x/>`).
        .replace(/(\s[\w:-]+)="([^\s"'=<>`]+)"(?!\/)/g, '$1=$2')
    );
  }
  return text;
}

/** Rewrites the tagged templates of `source`. */
export function minifyLiterals(source: string): string {
  return rewriteTemplates(source, minifyText);
}

/**
 * `source` with the static text of each template literal through `rewrite` (given its tag's kind, and
 * the template's static parts before it, and whether the template ends after it); `strings` sees the text of each quoted string as written.
 * Expressions (`${…}`) and the rest of the code are kept as they are, nested templates rewritten too.
 */
export function rewriteTemplates(
  source: string,
  rewrite: (text: string, kind: Kind, before: readonly string[], last: boolean) => string,
  strings?: (text: string) => void,
): string {
  let out = '';
  let i = 0;

  // Copies JS code from `i` up to the `}` that closes the current `${`, or to the end.
  const code = (closeOnBrace: boolean): void => {
    let depth = 0;
    while (i < source.length) {
      const char = source[i]!;
      if (char == '`') {
        const kind = (/\b(html|svg|css)\s*$/.exec(source.slice(Math.max(0, i - 8), i))?.[1] as Kind) ?? 'other';
        out += char;
        i++;
        template(kind);
      } else if (char == "'" || char == '"') {
        const start = i++;
        while (i < source.length && source[i] != char) i += source[i] == '\\' ? 2 : 1;
        strings?.(source.slice(start + 1, i));
        out += source.slice(start, ++i);
      } else if (char == '/' && source[i + 1] == '/') {
        const end = source.indexOf('\n', i);
        out += source.slice(i, (i = end < 0 ? source.length : end));
      } else if (char == '/' && source[i + 1] == '*') {
        const end = source.indexOf('*/', i + 2) + 2;
        out += source.slice(i, (i = end));
      } else {
        if (char == '{') depth++;
        if (char == '}' && depth-- == 0 && closeOnBrace) return;
        out += char;
        i++;
      }
    }
  };

  // Copies a template body after its opening backtick, through its closing one.
  const template = (kind: Kind): void => {
    let text = '';
    const before: string[] = [];
    while (i < source.length) {
      const char = source[i]!;
      if (char == '\\') {
        text += source.slice(i, i + 2);
        i += 2;
      } else if (char == '`') {
        out += rewrite(text, kind, before, true) + '`';
        i++;
        return;
      } else if (char == '$' && source[i + 1] == '{') {
        out += rewrite(text, kind, before, false) + '${';
        before.push(text);
        text = '';
        i += 2;
        code(true);
        out += '}';
        i++;
      } else {
        text += char;
        i++;
      }
    }
    out += text;
  };

  code(false);
  return out;
}

/** The plugin: applies `minifyLiterals` to TypeScript sources under `src/` at build time. */
export function minifyLiteralsPlugin(): Plugin {
  return {
    name: 'paylink:minify-literals',
    enforce: 'pre',
    transform(source, id) {
      if (!/\/src\/.*\.ts$/.test(id) || !/\b(html|svg|css)`/.test(source)) return null;
      return { code: minifyLiterals(source), map: null };
    },
  };
}
