/**
 * No import cycles in `src/`: a module graph without cycles is one a newcomer can read bottom-up and
 * whose modules load in one order whatever the entry point. The walk follows the static relative
 * imports and re-exports of every `src/**\/*.ts` file; type-only ones (`import type`, `export type`)
 * are left out because they vanish at compile time and cannot change load order. Dynamic `import()`
 * is left out too: it loads late by design.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

/** Cycles known to exist, each as its sorted files: none. An entry here is debt, with its reason beside it. */
const KNOWN_CYCLES: string[][] = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const IMPORT = /(?:^|[;\n])\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/g;

/** The relative modules `file` imports for their values. */
function valueImports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const out: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    if (match[2]) continue;
    const target = resolveModule(dirname(file), match[3]!);
    if (target) out.push(target);
  }
  return out;
}

function resolveModule(from: string, specifier: string): string | undefined {
  const base = resolve(from, specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((path) => path.startsWith(SRC) && existsSync(path) && statSync(path).isFile());
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('import cycles', () => {
  it('finds a cycle in a small graph, and none in a chain', () => {
    const cyclic = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    assert.deepEqual(cyclesOf(cyclic), [['a', 'b', 'c']]);
    assert.deepEqual(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
      [],
    );
    assert.deepEqual(cyclesOf(new Map([['a', ['a']]])), [['a']]);
  });

  it('reads value imports and re-exports, not type-only ones', () => {
    const graph = new Map(sourceFiles(SRC).map((file) => [file, valueImports(file)]));
    const rel = (file: string) => relative(ROOT, file);
    const edges = (file: string) => (graph.get(join(ROOT, file)) ?? []).map(rel);
    // app.ts imports the service's rooms by value; the proxy's index re-exports the rate limiter.
    assert.ok(edges('src/server/service/app.ts').includes('src/server/service/links/index.ts'));
    assert.ok(edges('src/server/proxy/index.ts').includes('src/server/limits/rate-limit.ts'));
    // options.ts imports only a type from the rate limiter: no edge.
    assert.ok(!edges('src/server/limits/options.ts').includes('src/server/limits/rate-limit.ts'));
  });

  it('src/ has no import cycle beyond the known ones, and every known one still exists', () => {
    const graph = new Map(sourceFiles(SRC).map((file) => [file, valueImports(file)]));
    const cycles = cyclesOf(graph).map((component) => component.map((file) => relative(ROOT, file)));
    const key = (cycle: string[]) => cycle.join(' → ');
    const known = new Set(KNOWN_CYCLES.map(key));
    assert.deepEqual(
      cycles.filter((cycle) => !known.has(key(cycle))),
      [],
      'a new import cycle: move what both sides need into a module of its own',
    );
    const present = new Set(cycles.map(key));
    assert.deepEqual(
      KNOWN_CYCLES.filter((cycle) => !present.has(key(cycle))),
      [],
      'a known cycle is gone: delete it from KNOWN_CYCLES',
    );
  });

  it('no module of the service or of the shared limits imports from the proxy', () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => /src\/server\/(service|limits)\//.test(file))
      .flatMap((file) =>
        valueImportsAndTypes(file)
          .filter((target) => target.includes('/src/server/proxy/'))
          .map((target) => `${relative(ROOT, file)} → ${relative(ROOT, target)}`),
      );
    assert.deepEqual(offenders, []);
  });
});

/** Every relative import of `file`, type-only ones included (a dependency on the proxy's types is one still). */
function valueImportsAndTypes(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].flatMap((match) => resolveModule(dirname(file), match[3]!) ?? []);
}
