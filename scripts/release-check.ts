/**
 * `npm run release:check`: proves the tarball publishable before `npm publish`. It packs the package
 * (`npm pack`, whose `prepack` builds lib/ and dist/ from nothing), or takes `--tarball <file>`
 * already packed (the package test does), and checks what a registry would serve:
 * 1. the files: what the package needs is there, and nothing of the repository (sources, tests,
 *    build state, environment files) is;
 * 2. every `exports` target (each condition) and the `bin` exist in the tarball, and every code entry
 *    has its declarations;
 * 3. publint (`--strict`: warnings fail too) and Are the Types Wrong (`--profile esm-only`: the
 *    package is ES modules only, for Node 20.19+, where `require()` of ES modules works; its node10 and
 *    CommonJS findings are the ones that profile leaves out) find nothing.
 * Prints one line per check and exits non-zero on the first failure.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** A dev tool's command, from this repository's node_modules. */
const tool = (...parts: string[]) => path.join(ROOT, 'node_modules', ...parts);
const work = mkdtempSync(path.join(tmpdir(), 'paylink-release-'));
const failures: string[] = [];

function check(what: string, problems: string[]): void {
  process.stdout.write(`${problems.length ? '✗' : '✓'} ${what}${problems.length ? `:\n  ${problems.join('\n  ')}` : ''}\n`);
  failures.push(...problems.map((problem) => `${what}: ${problem}`));
}

function run(command: string, args: string[], cwd = ROOT) {
  return spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

try {
  // The tarball: given, or packed now.
  const given = process.argv.indexOf('--tarball');
  let tarball = given > 0 ? path.resolve(process.argv[given + 1]!) : '';
  if (!tarball) {
    const packed = run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['pack', '--json', '--pack-destination', work]);
    if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stdout}\n${packed.stderr}`);
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.search(/^\[\s*$/m))) as [{ filename: string }];
    tarball = path.join(work, info.filename);
  }
  const unpacked = path.join(work, 'unpacked');
  mkdirSync(unpacked);
  const extracted = run('tar', ['-xzf', tarball, '-C', unpacked]);
  if (extracted.status !== 0) throw new Error(`tar could not read ${tarball}: ${extracted.stderr}`);
  const root = path.join(unpacked, 'package');
  const files = walk(root).map((file) => path.relative(root, file).split(path.sep).join('/'));
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

  // 1. Files.
  const needed = [
    'package.json',
    'README.md',
    'docs/api.md',
    'docs/configuration.md',
    'docs/going-live.md',
    'LICENSE',
    'custom-elements.json',
    'bin/paylink.mjs',
    'dist/manifest.json',
    'dist/paylink-checkout.js',
    'dist/paylink.js',
  ];
  const missing = needed.filter((file) => !files.includes(file));
  if (!files.some((file) => /^lib\/server\/db\/migrations\/\d+_.*\.sql$/.test(file))) missing.push('lib/server/db/migrations/*.sql');
  const unwanted = files.filter((file) =>
    /^(src|test|bench|scripts|examples|node_modules|\.github)\/|\.tsbuildinfo$|(^|\/)\.env|\.log$|^demo\/[^/]+\.ts$/.test(file),
  );
  check(`files (${files.length})`, [...missing.map((file) => `missing ${file}`), ...unwanted.map((file) => `must not ship ${file}`)]);

  // 2. Exports and bin.
  const problems: string[] = [];
  const targets = (value: unknown): string[] => (typeof value === 'string' ? [value] : Object.values(value as object).flatMap(targets));
  for (const [subpath, entry] of Object.entries<unknown>(manifest.exports)) {
    for (const target of targets(entry)) {
      if (target.includes('*')) {
        const prefix = target.slice(2, target.indexOf('*'));
        if (!files.some((file) => file.startsWith(prefix))) problems.push(`${subpath} → ${target} matches nothing`);
      } else if (!files.includes(target.replace(/^\.\//, ''))) problems.push(`${subpath} → ${target} is not in the tarball`);
    }
    if (typeof entry === 'object' && entry && !String((entry as { default: string }).default).endsWith('.json')) {
      const types = (entry as { types?: string }).types;
      if (!types?.endsWith('.d.ts')) problems.push(`${subpath} has no declarations (types)`);
    }
  }
  for (const [name, file] of Object.entries<string>(manifest.bin ?? {})) {
    const bin = path.join(root, file);
    if (!existsSync(bin)) problems.push(`bin ${name} → ${file} is missing`);
    else if (!readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node')) problems.push(`bin ${name} has no node shebang`);
  }
  check(`exports (${Object.keys(manifest.exports).length}) and bin`, problems);

  // 3. publint and Are the Types Wrong.
  const publint = run(process.execPath, [tool('publint', 'src', 'cli.js'), tarball, '--strict'], work);
  check('publint --strict', publint.status === 0 ? [] : [`${publint.stdout}${publint.stderr}`.trim()]);
  const attw = run(
    process.execPath,
    [tool('@arethetypeswrong', 'cli', 'dist', 'index.js'), tarball, '--profile', 'esm-only', '--format', 'table-flipped'],
    work,
  );
  check('attw --profile esm-only', attw.status === 0 ? [] : [`${attw.stdout}${attw.stderr}`.trim()]);
} catch (error) {
  failures.push(String((error as Error).message ?? error));
  process.stdout.write(`✗ ${(error as Error).message}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

process.stdout.write(failures.length ? `release:check: ${failures.length} problem(s)\n` : 'release:check: the tarball is publishable\n');
process.exit(failures.length ? 1 : 0);
