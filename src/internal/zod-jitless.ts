/**
 * Turns zod's JIT off before any schema exists. zod compiles object parsers with `new Function`,
 * which a strict Content-Security-Policy (no `'unsafe-eval'`) or Trusted Types refuses and reports,
 * and it decides whether to do so (probing `new Function("")`) when a schema is constructed, not
 * when it parses. So every browser entry that reaches zod imports this module first: ES modules run
 * in import order, and this one runs before the schemas of `core/schemas.ts` are built.
 *
 * It is one of the package's `sideEffects` files: a bundler must keep this bare import. The setting is
 * zod's global one, so an app sharing one zod copy with us parses without the JIT as well (slower by a
 * little on large objects, never wrong).
 */
import { config } from 'zod';

config({ jitless: true });
