/**
 * The script-tag bundles (`npm run build` runs this after `scripts/build-lib.ts`), each a self-contained
 * ES module, under two names:
 * - `dist/<name>.<version>.js` (e.g. `paylink-checkout.0.1.0.js`): the versioned file. Its bytes never
 *   change for a published version, so it is served with an immutable cache.
 * - `dist/<name>.js`: the alias of the current version, served with a short cache.
 * Each versioned file gets `.br` and `.gz` siblings (compressed once here, served as they are by
 * `src/server/bundles.ts`), and `dist/manifest.json` lists every bundle:
 * `{"<name>.js": {versioned, raw, bytes, gzip, brotli, integrity}}` (bytes = the shipped file, raw =
 * the same unminified, integrity = its SRI hash, the same for both names).
 * Prints the sizes, refuses a bundle that imports or compiles code at run time (`eval`,
 * `new Function`), and fails when a bundle is over its gzip budget: the checkout, which every customer
 * downloads, the admin bundle with both elements (it parses responses without zod, see
 * `scripts/lean-schemas.ts`), and the admin's French (`paylink-admin.fr.js`, registered into the
 * element's table registry whichever script runs first: `src/components/admin/admin-locales.ts`).
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'vite';
import { libraryBuild, type BundleOptions } from '../vite.config.js';
import { findEvalCalls } from './no-eval.js';

/**
 * The budget of `dist/paylink.js`: what it weighs (58,156 bytes) with room. It carries both
 * elements and the whole client; the admin's texts in English only: its French table (4.5 kB gzipped)
 * is `dist/paylink-admin.fr.js`, one more script tag for a French console (the checkout's French, 0.6 kB,
 * stays built in: customers never load a second file). Its translation tables are packed and keyless
 * (`scripts/packed-tables.ts`, `scripts/key-literals.ts`), its private members' names short
 * (`scripts/private-names.ts`), its parsers lean (`scripts/lean-schemas.ts`), its element base its own
 * (`src/internal/paylink-element.ts`).
 */
const ADMIN_BUDGET_GZIP = 60_000;
/**
 * The budget of `dist/paylink-refund.js`: the claim page's element (lit-html, the light element base, the
 * EIP-55 check with its keccak, EIP-6963 discovery, English and French) with room.
 */
const REFUND_BUDGET_GZIP = 10_500;
/** The admin's French: `dist/paylink.js` leaves it out, `dist/paylink-admin.fr.js` registers it. */
const ADMIN_FRENCH = './src/components/admin/locale-fr.ts';
const bundles: { entry: string; file: string; options: BundleOptions; budgetGzip: number }[] = [
  // The checkout renders plain templates: lit-html's directive support is left out (scripts/lit-static.ts).
  { entry: './src/checkout.ts', file: 'paylink-checkout.js', options: { staticLit: true }, budgetGzip: 15_000 },
  // Both elements render plain templates too (the admin's bars set their width through the CSSOM, `.style`).
  { entry: './src/index.ts', file: 'paylink.js', options: { leaveOut: [ADMIN_FRENCH], staticLit: true, renderOptions: true }, budgetGzip: ADMIN_BUDGET_GZIP },
  // Its tables packed in the slots of the English one that dist/paylink.js carries, without it.
  { entry: ADMIN_FRENCH, file: 'paylink-admin.fr.js', options: { standaloneTables: true }, budgetGzip: 5_500 },
  // The refund claim page's element alone (only that hosted page loads it).
  { entry: './src/refund.ts', file: 'paylink-refund.js', options: { staticLit: true, renderOptions: true }, budgetGzip: REFUND_BUDGET_GZIP },
];

const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
/**
 * The bundles are written to a folder of their own, then moved into `dist/` one file at a time (a
 * rename replaces a file at once) and `manifest.json` last: a demo or service running from this tree
 * keeps serving whole bundles while they are rebuilt, never a missing or half-written one.
 */
const target = new URL('../dist/', import.meta.url);
const dist = new URL(`../dist.building-${process.pid}/`, import.meta.url);
// What an interrupted build left (its process is gone).
for (const name of await readdir(new URL('../', import.meta.url))) {
  const pid = /^dist\.building-(\d+)$/.exec(name)?.[1];
  if (pid && !isRunning(Number(pid))) await rm(new URL(`../${name}`, import.meta.url), { recursive: true, force: true });
}
await mkdir(dist, { recursive: true });

/** Whether process `pid` runs on this machine. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `paylink-checkout.js` → `paylink-checkout.0.1.0.js`. */
const versionedName = (file: string) => file.replace(/\.js$/, `.${version}.js`);

/** Size of the same bundle unminified (in memory), to show what minifying saves. */
async function rawSize(entry: string, file: string, options: BundleOptions): Promise<number> {
  const config = libraryBuild(entry, file, options);
  config.build = { ...config.build, write: false, minify: false, rolldownOptions: { output: { codeSplitting: false, minify: false } } };
  // Unminified: without the second minifying pass either.
  config.plugins = config.plugins!.filter((plugin) => !(plugin && 'name' in plugin && plugin.name === 'paylink:terser-pass'));
  const result = (await build(config)) as { output: { code?: string }[] } | { output: { code?: string }[] }[];
  const output = Array.isArray(result) ? result[0]!.output : result.output;
  return Buffer.byteLength(output[0]!.code ?? '');
}

interface ManifestEntry {
  versioned: string;
  raw: number;
  bytes: number;
  gzip: number;
  brotli: number;
  integrity: string;
}

const manifest: Record<string, ManifestEntry> = {};
for (const { entry, file, options } of bundles) {
  const config = libraryBuild(entry, file, options);
  await build({ ...config, build: { ...config.build, outDir: fileURLToPath(dist) } });
  const code = await readFile(new URL(file, dist));
  const text = code.toString('utf8');
  if (/^\s*import\b|\bimport\(/m.test(text)) throw new Error(`${file} is not self-contained: it imports`);
  const evalCalls = findEvalCalls(text);
  if (evalCalls.length) throw new Error(`${file} compiles code at run time:\n${evalCalls.map((c) => `  ${c.pattern}: …${c.context}…`).join('\n')}`);

  const versioned = versionedName(file);
  const gzip = gzipSync(code, { level: 9 });
  const brotli = brotliCompressSync(code, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: code.length,
    },
  });
  await copyFile(new URL(file, dist), new URL(versioned, dist));
  await writeFile(new URL(`${versioned}.gz`, dist), gzip);
  await writeFile(new URL(`${versioned}.br`, dist), brotli);
  manifest[file] = {
    versioned,
    raw: await rawSize(entry, file, options),
    bytes: code.length,
    gzip: gzip.length,
    brotli: brotli.length,
    integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`,
  };
}
await writeFile(new URL('manifest.json', dist), `${JSON.stringify(manifest, null, 2)}\n`);
await mkdir(target, { recursive: true });
const built = (await readdir(dist)).filter((name) => name !== 'manifest.json');
for (const name of [...built, 'manifest.json']) await rename(new URL(name, dist), new URL(name, target));
for (const name of await readdir(target))
  if (name !== 'manifest.json' && !built.includes(name)) await rm(new URL(name, target), { recursive: true, force: true });
await rm(dist, { recursive: true, force: true });

const pad = (value: string | number, width: number) => String(value).padStart(width);
console.log(`${'file'.padEnd(28)}${pad('raw', 9)}${pad('min', 9)}${pad('gzip', 9)}${pad('brotli', 9)}  integrity`);
for (const size of Object.values(manifest)) {
  console.log(`${size.versioned.padEnd(28)}${pad(size.raw, 9)}${pad(size.bytes, 9)}${pad(size.gzip, 9)}${pad(size.brotli, 9)}  ${size.integrity}`);
}

console.log('');
let over = false;
for (const { file, budgetGzip } of bundles) {
  const { gzip } = manifest[file]!;
  if (gzip > budgetGzip) {
    console.error(`${file} is ${gzip} bytes gzipped: over its budget of ${budgetGzip}.`);
    over = true;
  } else {
    console.log(`${file}: ${gzip} of ${budgetGzip} bytes gzipped (${budgetGzip - gzip} to spare).`);
  }
}
if (over) process.exit(1);
