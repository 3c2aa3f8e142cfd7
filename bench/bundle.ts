/**
 * Bundle bytes (min, gzip, brotli) of the script-tag builds against a bare LitElement bundle built
 * with the same Vite configuration, in the same run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'vite';
import { libraryBuild } from '../vite.config.js';
import { ROOT } from './support/processes.js';

export interface BundleRow {
  file: string;
  min: number;
  gzip: number;
  brotli: number;
  gzipVsBareLit: number;
}

function sizes(code: Buffer) {
  return {
    min: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

export async function runBundleBench(): Promise<BundleRow[]> {
  const out = mkdtempSync(path.join(os.tmpdir(), 'paylink-bare-lit-'));
  try {
    const config = libraryBuild('./bench/support/bare-lit.ts', 'bare-lit.js');
    await build({ ...config, build: { ...config.build, outDir: out } });
    const bare = sizes(readFileSync(path.join(out, 'bare-lit.js')));
    const rows: BundleRow[] = [{ file: 'bare LitElement (baseline)', ...bare, gzipVsBareLit: 1 }];
    for (const file of ['paylink-checkout.js', 'paylink.js']) {
      const size = sizes(readFileSync(path.join(ROOT, 'dist', file)));
      rows.push({ file, ...size, gzipVsBareLit: Number((size.gzip / bare.gzip).toFixed(2)) });
    }
    return rows;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await runBundleBench());
