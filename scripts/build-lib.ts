/**
 * `lib/`: what `import … from 'paylink/…'` and the `paylink` command run. Plain ES2022
 * JavaScript with a `.d.ts` beside each module, so Node 20 and every bundler load it with their
 * default settings: no TypeScript loader, and no decorator settings (tsc compiles Lit's legacy
 * decorators away).
 *
 * 1. `tsc -p tsconfig.build.json`: src/ → lib/, incremental (lib/.tsbuildinfo), or from nothing with
 *    `--clean` (what `npm pack` runs). Outputs whose source is gone are removed.
 * 2. The SQL migrations are copied beside the compiled database module.
 * 3. The demo server (demo/*.ts, type-checked by `npm run typecheck`) is transpiled to lib/demo/, its
 *    `../src/…` imports pointing at lib/ instead; its pages and assets ship from demo/ as they are.
 * 4. Every relative import in lib/ must name a file that exists, or the build fails.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
const LIB = path.join(ROOT, 'lib');
const clean = process.argv.includes('--clean');

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

const started = performance.now();
if (clean) rmSync(LIB, { recursive: true, force: true });

// 1. Compile.
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit', cwd: ROOT });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

// Outputs of removed sources (tsc never deletes): each lib/x.js or x.d.ts needs src/x.ts.
for (const file of walk(LIB)) {
  const relative = path.relative(LIB, file);
  if (relative.startsWith(`demo${path.sep}`) || relative.startsWith(`server${path.sep}db${path.sep}migrations`)) continue;
  const match = /^(.*)\.(?:js|d\.ts)$/.exec(relative);
  if (match && !existsSync(path.join(SRC, `${match[1]}.ts`))) rmSync(file);
}

// 2. Migrations.
const migrations = path.join(SRC, 'server', 'db', 'migrations');
const migrationsOut = path.join(LIB, 'server', 'db', 'migrations');
rmSync(migrationsOut, { recursive: true, force: true });
mkdirSync(migrationsOut, { recursive: true });
for (const name of readdirSync(migrations).filter((n) => n.endsWith('.sql'))) copyFileSync(path.join(migrations, name), path.join(migrationsOut, name));

// 3. The demo server.
const demoOut = path.join(LIB, 'demo');
rmSync(demoOut, { recursive: true, force: true });
mkdirSync(demoOut, { recursive: true });
for (const name of readdirSync(path.join(ROOT, 'demo')).filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts'))) {
  const source = readFileSync(path.join(ROOT, 'demo', name), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: name,
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: true },
  });
  // demo/x.ts imports '../src/…'; lib/demo/x.js finds the same modules at '../…'.
  writeFileSync(path.join(demoOut, name.replace(/\.ts$/, '.js')), outputText.replace(/(from\s+|import\()(['"])\.\.\/src\//g, '$1$2../'));
}

// 4. Every relative import resolves.
const missing: string[] = [];
for (const file of walk(LIB).filter((f) => /\.(js|d\.ts)$/.test(f))) {
  const code = readFileSync(file, 'utf8');
  for (const match of code.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)(['"])(\.{1,2}\/[^'"]+)\1/g)) {
    let target = path.resolve(path.dirname(file), match[2]!);
    if (file.endsWith('.d.ts') && target.endsWith('.js')) target = target.replace(/\.js$/, '.d.ts');
    if (!existsSync(target)) missing.push(`${path.relative(ROOT, file)} → ${match[2]}`);
  }
}
if (missing.length) {
  console.error(`lib/ has imports of files that do not exist:\n  ${missing.join('\n  ')}`);
  process.exit(1);
}

// bin/paylink.mjs compares src/ with this file's time to tell a repository user lib/ is stale; tsc
// leaves it alone when nothing changed.
const now = new Date();
utimesSync(path.join(LIB, '.tsbuildinfo'), now, now);

const files = walk(LIB).filter((f) => !f.endsWith('.tsbuildinfo'));
const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
console.log(
  `lib/: ${files.length} files, ${(bytes / 1024).toFixed(0)} KiB, in ${((performance.now() - started) / 1000).toFixed(1)} s${clean ? ' (clean)' : ''}`,
);
