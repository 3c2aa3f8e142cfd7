/**
 * `npm run manifest`: custom-elements.json (the Custom Elements Manifest) from the elements' JSDoc,
 * with its modules sorted by path. The analyzer lists them in the order its file search returns,
 * which differs between runs and machines; sorted, a build leaves the committed file as it was.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const cem = path.join(path.dirname(createRequire(import.meta.url).resolve('@custom-elements-manifest/analyzer/package.json')), 'cem.js');
const result = spawnSync(
  process.execPath,
  [cem, 'analyze', '--litelement', '--globs', 'src/components/**/paylink-*.ts', '--exclude', 'src/components/**/*.styles.ts', '--outdir', '.'],
  { cwd: ROOT, stdio: 'inherit' },
);
if (result.status !== 0) process.exit(result.status ?? 1);

const file = path.join(ROOT, 'custom-elements.json');
const manifest = JSON.parse(readFileSync(file, 'utf8')) as { modules: { path: string }[] };
manifest.modules.sort((a, b) => a.path.localeCompare(b.path));
writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
