/**
 * The script-tag bundles must never compile code at run time: merchants paste them into pages with a
 * strict Content-Security-Policy (no `'unsafe-eval'`) and Trusted Types, where `new Function` is
 * refused and reported even when the refusal is caught.
 *
 * The only such code we bundle is zod's JIT: a `new Function("")` probe and the parser compiler, both
 * reached through `const F = Function`. `src/internal/zod-jitless.ts` keeps them from running; this
 * plugin also takes them out of the bundle, so that a reader (or `findEvalCalls`) can check the file.
 * The stand-in throws, which zod already handles as "eval is not allowed here".
 */
import type { Plugin } from 'vite';

const ZOD_MODULE = /[\\/]node_modules[\\/]zod[\\/].*\.js$/;
const FUNCTION_ALIAS = /\bconst (\w+) = Function;/g;

/** A Vite/Rolldown plugin replacing zod's `const F = Function` with a constructor that always throws. */
export function noEvalPlugin(): Plugin {
  return {
    name: 'paylink:no-eval',
    transform(source, id) {
      if (!ZOD_MODULE.test(id) || !source.includes('Function')) return null;
      const code = source.replace(
        FUNCTION_ALIAS,
        (_, name: string) => `const ${name} = function () { throw new EvalError("Paylink's bundles compile no code"); };`,
      );
      return code === source ? null : { code, map: null };
    },
  };
}

/** One place in a bundle that compiles code from a string, with some context. */
export interface EvalCall {
  pattern: string;
  context: string;
}

/**
 * Every use of `eval` or the `Function` constructor in a minified bundle: calls (`eval(`,
 * `Function(`, `new Function`) and aliases (`x=Function`, `(eval)`), which is how libraries hide them.
 * Property reads (`Function.prototype`) and `instanceof Function` are not calls and are allowed.
 */
export function findEvalCalls(code: string): EvalCall[] {
  const patterns: Array<[string, RegExp]> = [
    ['Function(…)', /(?<![\w$.])Function\s*\(/g],
    ['new Function', /\bnew\s+Function\b/g],
    ['alias of Function', /[=,(:?&|]\s*Function\b(?!\s*\.)/g],
    ['eval(…)', /(?<![\w$.])eval\s*\(/g],
    ['alias of eval', /[=,(:?&|]\s*eval\b(?!\s*\.)/g],
  ];
  const found: EvalCall[] = [];
  for (const [pattern, regex] of patterns) {
    for (const match of code.matchAll(regex)) {
      const at = match.index ?? 0;
      found.push({ pattern, context: code.slice(Math.max(0, at - 40), at + 40) });
    }
  }
  return found;
}
