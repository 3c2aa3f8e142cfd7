/**
 * `npm run build`: the script-tag bundles, each a self-contained ES module (DESIGN §2).
 * Prints raw (unminified), minified, gzip and brotli sizes and the SRI hash of each, writes
 * `dist/manifest.json` (`{file: {raw, bytes, gzip, brotli, integrity}}`, bytes = the shipped file), and
 * fails when `dist/paylink-checkout.js` is over its budget of 15,000 bytes gzipped.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'vite';
import { libraryBuild } from '../vite.config.js';

const CHECKOUT_BUDGET_GZIP = 15_000;
const bundles = [
  { entry: './src/checkout.ts', file: 'paylink-checkout.js' },
  { entry: './src/index.ts', file: 'paylink.js' },
];

const dist = new URL('../dist/', import.meta.url);
await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });

/** Size of the same bundle unminified (in memory), to show what minifying saves. */
async function rawSize(entry: string, file: string): Promise<number> {
  const config = libraryBuild(entry, file);
  config.build = { ...config.build, write: false, minify: false, rolldownOptions: { output: { codeSplitting: false, minify: false } } };
  const result = (await build(config)) as { output: { code?: string }[] } | { output: { code?: string }[] }[];
  const output = Array.isArray(result) ? result[0]!.output : result.output;
  return Buffer.byteLength(output[0]!.code ?? '');
}

const manifest: Record<string, { raw: number; bytes: number; gzip: number; brotli: number; integrity: string }> = {};
for (const { entry, file } of bundles) {
  await build(libraryBuild(entry, file));
  const code = await readFile(new URL(file, dist));
  if (/^\s*import\b|\bimport\(/m.test(code.toString('utf8'))) throw new Error(`${file} is not self-contained: it imports`);
  manifest[file] = {
    raw: await rawSize(entry, file),
    bytes: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`,
  };
}
await writeFile(new URL('manifest.json', dist), `${JSON.stringify(manifest, null, 2)}\n`);

const pad = (value: string | number, width: number) => String(value).padStart(width);
console.log(`${'file'.padEnd(22)}${pad('raw', 9)}${pad('min', 9)}${pad('gzip', 9)}${pad('brotli', 9)}  integrity`);
for (const [file, size] of Object.entries(manifest)) {
  console.log(`${file.padEnd(22)}${pad(size.raw, 9)}${pad(size.bytes, 9)}${pad(size.gzip, 9)}${pad(size.brotli, 9)}  ${size.integrity}`);
}

const checkout = manifest['paylink-checkout.js']!;
if (checkout.gzip > CHECKOUT_BUDGET_GZIP) {
  console.error(`\npaylink-checkout.js is ${checkout.gzip} bytes gzipped: over its budget of ${CHECKOUT_BUDGET_GZIP}.`);
  process.exit(1);
}
console.log(`\npaylink-checkout.js: ${checkout.gzip} of ${CHECKOUT_BUDGET_GZIP} bytes gzipped (${CHECKOUT_BUDGET_GZIP - checkout.gzip} to spare).`);
