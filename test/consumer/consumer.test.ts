/**
 * The package as its users get it: `npm pack` once, then fresh folders (in memory where there is room,
 * else under the OS temp dir) that install the tarball from npm's cache (the registry for the rest),
 * each used the way its users work:
 *
 * 1. plain Node ESM: the client creates and lists links against a running service; the proxy mounted
 *    in Express answers checkout and admin routes;
 * 2. a Vite vanilla-ts app made by create-vite (its default tsconfig: strict, erasableSyntaxOnly,
 *    noUnusedLocals, skipLibCheck): `tsc` and `vite build` pass, `<paylink-checkout>` fires
 *    `paylink-ready` in Chromium, and importing `paylink/checkout` bundles no admin code;
 * 3. React 19 TSX and a Vue 3 SFC (vue-tsc), also from create-vite: typed attributes and events, a
 *    file of wrong usages that must fail to compile exactly where marked, and both render in Chromium;
 * 4. `npx paylink serve --chain sandbox`, `keys create`, `proxy` and `demo` from the installed package;
 * 5. every export imported in plain Node and under an edge runtime's conditions, React and Vue server
 *    rendering, and `npm run release:check` on the same tarball (files, exports, publint, attw);
 * 6. the framework recipes of docs/frameworks.md: Next.js App Router (`next build` without the API key,
 *    `next start`, a server component page and a client component, in Chromium: the element upgrades, a
 *    React handler hears `paylink-ready`, no console error, no layout shift; and the page, the client
 *    component and the proxy's route handler written from the doc's own code blocks, paying through that
 *    route), Nuxt 4 (the doc's nuxt.config.ts and client plugin, `nuxt build`, in Chromium), Astro 5
 *    (frontmatter import and script tag, `astro build`, in Chromium) and plain HTML (the script-tag bundle).
 *
 * Figures (tarball, what a consumer installs, each build's gzip size) are printed as test
 * diagnostics and written to test-results/consumer.json.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { CHROME_PATH, CHROMIUM_ARGS } from '../support/chromium.mjs';
import { exited, waitForHealth } from '../support/processes.js';
import { freePort } from '../support/postgres.js';
import { until } from '../support/wait.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const APPS = path.join(import.meta.dirname, 'apps');
/** The scaffolding users run (`npm create vite`), pinned so its templates do not move under the test. */
const CREATE_VITE = 'create-vite@9.3.0';
/** The frameworks of the recipes, pinned for the same reason (Astro 5 is the line that runs on Node 20). */
const NEXT = { next: '16.4.6', react: '19.3.1', 'react-dom': '19.3.1' };
const ASTRO = { astro: '5.18.2' };
const NUXT = { nuxt: '4.4.5' };
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** The environment of a consumer's commands: no npm lifecycle variables of `npm test`, no TypeScript loader. */
function consumerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('npm_') && !['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig'].includes(name)) continue;
    if (name === 'NODE_OPTIONS' || name.startsWith('PAYLINK_')) continue;
    env[name] = value;
  }
  return { ...env, CI: 'true', ...extra };
}

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();

/**
 * The code blocks of docs/frameworks.md that name their file on their first line (`// app/paylink/[...path]/route.ts`,
 * `// plugins/paylink.client.ts: …`), by that path: the recipes are tested as the doc writes them.
 */
function docsFiles(): Map<string, string> {
  const markdown = readFileSync(path.join(ROOT, 'docs', 'frameworks.md'), 'utf8');
  const files = new Map<string, string>();
  for (const [, code] of markdown.matchAll(/^```(?:ts|tsx|vue)\n([\s\S]*?)^```$/gm)) {
    const file = /^\/\/ ([\w.[\]/-]+\.(?:ts|tsx|vue))\b/.exec(code!)?.[1];
    if (file) files.set(file, code!);
  }
  return files;
}

/** Writes the doc's code blocks named `files` into `dir`, each at its path. */
function writeDocsFiles(dir: string, files: readonly string[]): void {
  const docs = docsFiles();
  for (const file of files) {
    const code = docs.get(file);
    assert.ok(code, `docs/frameworks.md has a code block for ${file}`);
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), code);
  }
}

/** The recipes' files the consumer apps take from docs/frameworks.md. */
const NEXT_DOC_FILES = ['app/pay/[slug]/page.tsx', 'app/pay/[slug]/checkout.tsx', 'app/paylink/[...path]/route.ts'];
const NUXT_DOC_FILES = ['nuxt.config.ts', 'plugins/paylink.client.ts'];

/** Runs a command to its end; rejects after `timeoutMs`. */
function run(command: string, args: string[], cwd: string, options: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: consumerEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      killGroup(child, 'SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} took over ${(options.timeoutMs ?? 180_000) / 1000} s\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 180_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Asserts that a command succeeded, showing its output when it did not. */
function ok(result: Result, what: string): Result {
  assert.equal(result.code, 0, `${what} failed:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/**
 * Signals a command's whole process group. `npx` does not pass SIGTERM on to the program it runs (it
 * dies and leaves the program running), so each command runs in a group of its own and the group is
 * signalled, as a terminal's Ctrl-C or a service manager does.
 */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Already gone.
  }
}

/** Starts a long-running command (through `npx`) and waits until `ready(output)` holds. */
async function startProcess(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  ready: (output: string) => boolean,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(NPX, ['--no-install', ...args], { cwd, env: consumerEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await until(
    () => {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}:\n${output}`);
      return ready(output);
    },
    `${args.join(' ')} to start`,
    120_000,
    { everyMs: 100, explain: () => output },
  );
  return { child, output: () => output };
}

/** SIGTERM to the command's group; resolves once every process of it has exited (SIGKILL after 20 s). */
async function stop(child: ChildProcess): Promise<void> {
  killGroup(child, 'SIGTERM');
  await exited(child);
  const groupGone = () => {
    try {
      process.kill(-child.pid!, 0);
      return false;
    } catch {
      return true;
    }
  };
  await until(groupGone, `every process of ${child.spawnargs.join(' ')} to stop after SIGTERM`, 20_000, { everyMs: 100 }).catch((error: unknown) => {
    killGroup(child, 'SIGKILL');
    throw error;
  });
  children.delete(child);
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

/** Serves a built app's folder (Vite's dist/) on a loopback port. */
async function serveStatic(dir: string): Promise<{ url: string; server: Server }> {
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };
  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    const file = path.join(dir, pathname === '/' ? 'index.html' : pathname);
    if (!file.startsWith(dir) || !existsSync(file) || statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': `${types[path.extname(file)] ?? 'application/octet-stream'}; charset=utf-8` }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Gzip bytes of the JavaScript of a Vite build (level 9, as `npm run build` measures ours). */
function buildGzip(appDir: string): { files: number; bytes: number; gzip: number } {
  const files = walk(path.join(appDir, 'dist')).filter((file) => file.endsWith('.js'));
  const bytes = files.reduce((sum, file) => sum + statSync(file).size, 0);
  const gzip = files.reduce((sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).length, 0);
  return { files: files.length, bytes, gzip };
}

/** `tsc`/`vue-tsc` errors as `file:line`, from their `file(line,col): error` or `file:line:col - error` lines. */
function errorLines(output: string): string[] {
  const found = new Set<string>();
  for (const match of output.matchAll(/^(\S+?)[(:](\d+)[,:]\d+\)?:? -? ?error/gm)) found.add(`${path.basename(match[1]!)}:${match[2]}`);
  return [...found].sort();
}

/** The lines a must-fail file marks with a trailing `// ✗` or `<!-- ✗ -->`. */
function markedLines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, index) => (/(\/\/ ✗|<!-- ✗ -->)\s*$/.test(line) ? [`${path.basename(file)}:${index + 1}`] : []))
    .sort();
}

/** The packages `name` brings into `node_modules` (itself included), resolved the way Node resolves them. */
function installedClosure(appDir: string, name: string): { packages: number; bytes: number } {
  const seen = new Set<string>();
  const visit = (from: string, dependency: string) => {
    for (let dir = from; ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'node_modules', dependency);
      if (existsSync(path.join(candidate, 'package.json'))) {
        if (seen.has(candidate)) return;
        seen.add(candidate);
        const manifest = JSON.parse(readFileSync(path.join(candidate, 'package.json'), 'utf8'));
        const optional = Object.keys(manifest.optionalDependencies ?? {});
        for (const next of [...Object.keys(manifest.dependencies ?? {}), ...optional]) visit(candidate, next);
        return;
      }
      if (dir === path.dirname(dir) || dir === path.dirname(appDir)) return; // not installed (an optional one)
    }
  };
  visit(appDir, name);
  const size = (dir: string): number => walk(dir).reduce((sum, file) => sum + statSync(file).size, 0);
  // A package's own folder, without the node_modules nested in it (counted as packages of their own).
  const own = (dir: string) =>
    readdirSync(dir)
      .filter((entry) => entry !== 'node_modules')
      .reduce((sum, entry) => {
        const full = path.join(dir, entry);
        return sum + (statSync(full).isDirectory() ? size(full) : statSync(full).size);
      }, 0);
  return { packages: seen.size, bytes: [...seen].reduce((sum, dir) => sum + own(dir), 0) };
}

const MB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Room the apps' folders take at most (six installs, their builds), with a margin. */
const SCRATCH_BYTES = 4 * 1024 ** 3;

/**
 * A fresh folder for the apps: in memory (/dev/shm) where it has the room, else under the OS temp dir.
 * The installs write, and the clean-up deletes, tens of thousands of small files: on a shared disk the
 * deletion alone took 40 s, in memory 3 s, and the installs are faster too. What is installed is the same.
 */
function scratchFolder(): string {
  try {
    const { bavail, bsize } = statfsSync('/dev/shm');
    if (bavail * bsize >= SCRATCH_BYTES) return mkdtempSync(path.join('/dev/shm', 'paylink-consumer-'));
  } catch {
    // No /dev/shm (not Linux), or not writable: the temp dir.
  }
  return mkdtempSync(path.join(os.tmpdir(), 'paylink-consumer-'));
}

describe('paylink as installed from its tarball', { timeout: 900_000 }, () => {
  const work = scratchFolder();
  const dirs = {
    node: path.join(work, 'node'),
    vanilla: path.join(work, 'vanilla'),
    react: path.join(work, 'react'),
    vue: path.join(work, 'vue'),
    next: path.join(work, 'next'),
    nuxt: path.join(work, 'nuxt'),
    astro: path.join(work, 'astro'),
  };
  const figures: Record<string, unknown> = {};
  let tarball = '';
  let browser: Browser | undefined;
  let service: { url: string; child: ChildProcess; key: string } | undefined;
  let slug = '';
  const servers: Server[] = [];
  /** What each app's `npm install` printed. */
  const installLogs: Record<string, string> = {};

  before(async () => {
    // 1. The tarball, as `npm pack` (its prepack builds lib/ and dist/ from nothing) makes it.
    const started = Date.now();
    const packed = ok(await run(NPM, ['pack', '--json', '--pack-destination', work], ROOT, { timeoutMs: 300_000 }), 'npm pack');
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.search(/^\[\s*$/m))) as [
      { filename: string; size: number; unpackedSize: number; entryCount: number; files: { path: string }[] },
    ];
    tarball = path.join(work, info.filename);
    figures.tarball = {
      file: info.filename,
      bytes: info.size,
      unpackedBytes: info.unpackedSize,
      files: info.entryCount,
      packSeconds: (Date.now() - started) / 1000,
    };
    figures.tarballFiles = info.files.map((file) => file.path);

    // 2. The folders: a plain Node one, and three made by create-vite as users make them.
    mkdirSync(dirs.node);
    cpSync(path.join(APPS, 'node'), dirs.node, { recursive: true });
    writeFileSync(
      path.join(dirs.node, 'package.json'),
      JSON.stringify(
        {
          name: 'shop',
          private: true,
          type: 'module',
          dependencies: { paylink: `file:${tarball}`, express: '^4.21.2', react: NEXT.react, 'react-dom': NEXT['react-dom'], vue: '^3.5.0' },
        },
        null,
        2,
      ),
    );
    // The recipes' apps, written by hand as their READMEs show (no scaffolding to install).
    for (const [kind, dependencies, devDependencies] of [
      ['next', NEXT, { typescript: '^5.9.3', '@types/react': '^19.2.0', '@types/node': '^20.19.0' }],
      ['nuxt', NUXT, {}],
      ['astro', ASTRO, {}],
    ] as const) {
      cpSync(path.join(APPS, kind), dirs[kind], { recursive: true });
      if (kind === 'next') writeDocsFiles(dirs.next, NEXT_DOC_FILES);
      if (kind === 'nuxt') writeDocsFiles(dirs.nuxt, NUXT_DOC_FILES);
      const manifest = { name: `${kind}-shop`, private: true, type: 'module', dependencies: { ...dependencies, paylink: `file:${tarball}` }, devDependencies };
      writeFileSync(path.join(dirs[kind], 'package.json'), JSON.stringify(manifest, null, 2));
    }
    const scaffoldStarted = Date.now();
    const templates = [
      ['vanilla', 'vanilla-ts'],
      ['react', 'react-ts'],
      ['vue', 'vue-ts'],
    ] as const;
    const scaffolds = await Promise.all(
      templates.map(([kind, template]) =>
        run(NPM, ['exec', '--yes', '--prefer-offline', '--', CREATE_VITE, kind, '--template', template, '--no-interactive', '--no-immediate'], work),
      ),
    );
    scaffolds.forEach((result, index) => ok(result, `create-vite ${templates[index]![1]}`));
    figures.scaffoldSeconds = (Date.now() - scaffoldStarted) / 1000;
    for (const [kind] of templates) {
      const dir = dirs[kind];
      rmSync(path.join(dir, 'src'), { recursive: true, force: true });
      cpSync(path.join(APPS, kind), dir, { recursive: true });
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
      manifest.dependencies = { ...manifest.dependencies, paylink: `file:${tarball}` };
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
    }
    // The wrong usages compile on their own, with the app's settings (they must fail).
    writeFileSync(
      path.join(dirs.react, 'tsconfig.fail.json'),
      JSON.stringify({ extends: './tsconfig.app.json', compilerOptions: { tsBuildInfoFile: null }, include: ['fail'] }),
    );
    const vueApp = JSON.parse(readFileSync(path.join(dirs.vue, 'tsconfig.app.json'), 'utf8').replace(/^\s*\/\*.*\*\/\s*$/gm, ''));
    // A misspelt event is an error only where the app asks vue-tsc to check unknown events.
    vueApp.vueCompilerOptions = { strictTemplates: true };
    writeFileSync(path.join(dirs.vue, 'tsconfig.app.json'), JSON.stringify(vueApp, null, 2));
    writeFileSync(
      path.join(dirs.vue, 'tsconfig.fail.json'),
      JSON.stringify({ extends: './tsconfig.app.json', compilerOptions: { tsBuildInfoFile: null }, include: ['fail/*.vue'] }),
    );

    // 3. Install, all at once: the tarball, the rest from npm's cache (the registry when missing).
    const installStarted = Date.now();
    const installs = await Promise.all(
      Object.entries(dirs).map(
        async ([kind, dir]) => [kind, await run(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund'], dir, { timeoutMs: 400_000 })] as const,
      ),
    );
    for (const [kind, result] of installs) {
      ok(result, `npm install (${kind})`);
      installLogs[kind] = result.stdout + result.stderr;
    }
    figures.installSeconds = (Date.now() - installStarted) / 1000;
  });

  after(async () => {
    await browser?.close();
    for (const server of servers) server.close();
    for (const child of children) killGroup(child, 'SIGKILL');
    mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
    writeFileSync(path.join(ROOT, 'test-results', 'consumer.json'), `${JSON.stringify({ ...figures, tarballFiles: undefined }, null, 2)}\n`);
    rmSync(work, { recursive: true, force: true });
  });

  it('packs lib/, dist/, the migrations, the demo, README, docs/ and LICENSE, and nothing of the repository', async (t) => {
    const files = figures.tarballFiles as string[];
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    for (const file of [
      'package.json',
      'README.md',
      'docs/api.md',
      'docs/configuration.md',
      'docs/frameworks.md',
      'docs/going-live.md',
      'docs/operations.md',
      'LICENSE',
      'bin/paylink.mjs',
      'lib/index.js',
      'lib/index.d.ts',
      'lib/checkout.js',
      'lib/webhooks/index.js',
      'lib/server/cli.js',
      'lib/server/db/migrations/001_payment_links.sql',
      'lib/demo/server.js',
      'demo/pages/index.html',
      'demo/assets/demo.css',
      'dist/manifest.json',
      'dist/paylink-checkout.js',
      `dist/paylink-checkout.${version}.js`,
      `dist/paylink-checkout.${version}.js.br`,
      `dist/paylink-checkout.${version}.js.gz`,
      'custom-elements.json',
    ]) {
      assert.ok(files.includes(file), `the tarball has ${file}`);
    }
    const unwanted = files.filter((file) => /^(src|test|bench|scripts|examples|node_modules)\/|\.tsbuildinfo$|^demo\/[^/]+\.ts$/.test(file));
    assert.deepEqual(unwanted, []);
    // The tarball's package.json has no prepare script (its scripts/prepare.mjs is not packed), and the
    // repository's keeps it: no install of the tarball warns of an install script.
    const packed = JSON.parse(ok(await run('tar', ['-xzOf', tarball, 'package/package.json'], work), 'tar').stdout);
    assert.equal(packed.scripts.prepare, undefined);
    assert.match(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.prepare, /prepare\.mjs/);
    for (const [kind, log] of Object.entries(installLogs))
      assert.doesNotMatch(log, /install-scripts[\s\S]*paylink@|paylink@[^\n]*prepare/, `npm install (${kind})`);
    const { bytes, files: count, unpackedBytes } = figures.tarball as { bytes: number; files: number; unpackedBytes: number };
    t.diagnostic(`tarball: ${(bytes / 1024).toFixed(0)} KiB, ${count} files (${MB(unpackedBytes)} unpacked)`);
  });

  it('plain Node: keys create, serve --chain sandbox, the client creates and lists links', async (t) => {
    const dataDir = path.join(dirs.node, 'data');
    const created = ok(
      await run(NPX, ['--no-install', 'paylink', 'keys', 'create', '--data-dir', dataDir, '--name', 'Consumer shop'], dirs.node),
      'paylink keys create',
    );
    const key = created.stdout.trim().split('\n').at(-1)!;
    assert.match(key, /^pl_sk_/);

    const port = await freePort();
    const { child, output } = await startProcess(
      ['paylink', 'serve', '--chain', 'sandbox', '--data-dir', dataDir, '--port', String(port)],
      dirs.node,
      {},
      (text) => text.includes('listening on'),
    );
    const url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, child);
    assert.match(output(), /Sandbox chain: no real funds move/);
    service = { url, child, key };

    const result = JSON.parse(ok(await run('node', ['links.mjs'], dirs.node, { env: { PAYLINK_URL: url, PAYLINK_API_KEY: key } }), 'client').stdout);
    assert.match(result.slug, /^[A-Za-z0-9]{10}$/);
    assert.equal(result.url, `${url}/pay/${result.slug}`);
    assert.deepEqual(result.listed, [result.slug]);
    assert.equal(result.total, 1);
    assert.equal(result.event, 'checkout.session.paid', 'paylink/webhooks verifies in plain Node');
    slug = result.slug;
    t.diagnostic(`service up from the installed package at ${url}`);
  });

  it('plain Node: the proxy mounted in Express answers checkout and admin routes', async () => {
    assert.ok(service, 'the service runs');
    const { child, output } = await startProcess(
      ['node', 'shop.mjs'],
      dirs.node,
      { PAYLINK_URL: service.url, PAYLINK_API_KEY: service.key, PAYLINK_ADMIN_TOKEN: 'consumer-admin-token-0123456789abcdef' },
      (text) => /listening on \d+/.test(text),
    );
    try {
      const shop = `http://127.0.0.1:${/listening on (\d+)/.exec(output())![1]}`;
      const checkout = await fetch(`${shop}/paylink/checkout/${slug}`);
      assert.equal(checkout.status, 200);
      assert.equal((await checkout.json()).title, 'Consumer test order');
      const admin = await fetch(`${shop}/paylink/admin/payment-link`, { headers: { authorization: 'Bearer consumer-admin-token-0123456789abcdef' } });
      assert.equal(admin.status, 200);
      assert.equal((await admin.json()).items[0].slug, slug);
      const refused = await fetch(`${shop}/paylink/admin/payment-link`);
      assert.equal(refused.status, 401);
      assert.equal((await refused.json()).status, 'error');
      assert.equal((await fetch(shop)).status, 200, 'the shop itself still answers');
      const bundle = await fetch(`${shop}/paylink/dist/paylink-checkout.js`, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(bundle.status, 200, 'the proxy serves the bundles (bundles: serveBundle)');
      assert.equal(bundle.headers.get('content-encoding'), 'gzip');
      assert.equal(bundle.headers.get('access-control-allow-origin'), '*');
    } finally {
      await stop(child);
    }
  });

  it('npx paylink proxy runs the standalone proxy', async () => {
    assert.ok(service, 'the service runs');
    const port = await freePort();
    const { child } = await startProcess(
      ['paylink', 'proxy', '--upstream', service.url, '--port', String(port)],
      dirs.node,
      { PAYLINK_API_KEY: service.key, PAYLINK_ADMIN_TOKEN: 'consumer-admin-token-0123456789abcdef' },
      (text) => text.length > 0,
    );
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitForHealth(url, child);
      const checkout = await fetch(`${url}/paylink/checkout/${slug}`);
      assert.equal(checkout.status, 200);
      const admin = await fetch(`${url}/paylink/admin/balance`, { headers: { authorization: 'Bearer consumer-admin-token-0123456789abcdef' } });
      assert.equal(admin.status, 200);
      assert.ok(Array.isArray((await admin.json()).items));
      const manifest = await fetch(`${url}/paylink/dist/manifest.json`);
      assert.equal(manifest.status, 200, 'the standalone proxy serves the bundles');
      assert.match((await manifest.json())['paylink-checkout.js'].integrity, /^sha384-/);
    } finally {
      await stop(child);
    }
  });

  /**
   * What a page showed in Chromium: the text of each ready marker; the layout shift until the first
   * `paylink-ready` (the page's first paint and the elements' upgrade: what reserving the element's space
   * is for), and over the whole visit (the loaded checkout then takes the height its content needs).
   */
  interface PageCheck {
    texts: string[];
    upgradeShift: number;
    layoutShift: number;
  }

  /**
   * Opens `url` in Chromium with the link's slug and the service's API root; waits for each ready
   * marker, then for every `<paylink-checkout>` to show the link. Fails on an uncaught error or a
   * console error.
   */
  async function checkPage(
    url: string,
    readySelectors: string[],
    pagePath = `/?slug=${slug}&api=${encodeURIComponent(`${service!.url}/v1`)}`,
  ): Promise<PageCheck> {
    assert.ok(service, 'the service runs');
    browser ??= await chromium.launch({ executablePath: CHROME_PATH, args: CHROMIUM_ARGS });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // The browser's own request for /favicon.ico (these test pages have none) is not the page's error.
    page.on('console', (message) => message.type() === 'error' && !message.location().url.endsWith('/favicon.ico') && errors.push(message.text()));
    await page.addInitScript(() => {
      const seen = window as unknown as { shifts: [number, number][]; readyAt?: number; shiftObserver: PerformanceObserver };
      seen.shifts = [];
      // The observer is kept, so that the test can take the entries not delivered yet (`takeRecords`).
      seen.shiftObserver = new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
          if (!entry.hadRecentInput) seen.shifts.push([entry.startTime, entry.value]);
      });
      seen.shiftObserver.observe({ type: 'layout-shift', buffered: true });
      document.addEventListener('paylink-ready', () => (seen.readyAt ??= performance.now()), true);
    });
    try {
      await page.goto(`${url}${pagePath}`);
      const texts: string[] = [];
      for (const selector of readySelectors) {
        await page.waitForSelector(selector, { timeout: 30_000 });
        texts.push((await page.locator(selector).textContent()) ?? '');
      }
      // Each element rendered the link itself (its own shadow root), not only the event.
      const count = await page.locator('paylink-checkout').count();
      await page
        .getByRole('heading', { name: 'Consumer test order' })
        .nth(count - 1)
        .waitFor({ timeout: 10_000 });
      assert.equal(await page.getByRole('heading', { name: 'Consumer test order' }).count(), count, 'every element upgraded and loaded the link');
      // Two frames rendered since: the last shifts are measured; those not delivered yet are taken from the observer.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const { upgradeShift, layoutShift } = await page.evaluate(() => {
        const seen = window as unknown as { shifts: [number, number][]; readyAt?: number; shiftObserver: PerformanceObserver };
        for (const entry of seen.shiftObserver.takeRecords() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
          if (!entry.hadRecentInput) seen.shifts.push([entry.startTime, entry.value]);
        const { shifts, readyAt = Infinity } = seen;
        // No named function in here: the test's TypeScript loader would name it with a helper the page lacks.
        return {
          upgradeShift: shifts.filter(([at]) => at < readyAt).reduce((total, [, value]) => total + value, 0),
          layoutShift: shifts.reduce((total, [, value]) => total + value, 0),
        };
      });
      assert.deepEqual(errors, []);
      return { texts, upgradeShift, layoutShift };
    } finally {
      await page.close();
    }
  }

  /** Opens a built app's folder (served as it is) in Chromium: see `checkPage`. */
  async function openInChromium(appDir: string, readySelectors: string[]): Promise<string[]> {
    const site = await serveStatic(path.join(appDir, 'dist'));
    servers.push(site.server);
    return (await checkPage(site.url, readySelectors)).texts;
  }

  it('Vite vanilla-ts: tsc and vite build pass, paylink/checkout bundles no admin code, paylink-ready fires in Chromium', async (t) => {
    ok(await run(NPX, ['--no-install', 'tsc'], dirs.vanilla), 'tsc (vanilla-ts defaults)');
    ok(await run(NPX, ['--no-install', 'vite', 'build'], dirs.vanilla), 'vite build');
    const size = buildGzip(dirs.vanilla);
    const code = walk(path.join(dirs.vanilla, 'dist'))
      .filter((file) => file.endsWith('.js'))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    assert.doesNotMatch(code, /paylink-admin/, 'no admin element');
    assert.doesNotMatch(code, /withdrawal|jitless|ZodError/i, 'no admin forms, no zod');
    assert.doesNotMatch(code, /@(customElement|property|state|query)\(/, 'decorators compiled, not shipped raw');
    assert.match(code, /paylink-checkout/, 'the element is in the bundle (the side-effect import was kept)');
    assert.ok(size.gzip > 8_000 && size.gzip < 20_000, `the checkout-only build is the checkout's size (${size.gzip} B gzip)`);
    figures.vanilla = size;
    await openInChromium(dirs.vanilla, ['body[data-ready="Consumer test order"]']);
    t.diagnostic(`vanilla-ts build: ${size.bytes} B, ${size.gzip} B gzip`);
  });

  /**
   * The app type-checks as its template's build script does (`checker -b`), its file of wrong usages fails
   * exactly on the lines it marks, and `vite build` passes. Returns the build's size.
   */
  async function checkAndBuild(appDir: string, checker: 'tsc' | 'vue-tsc', mustFail: string): Promise<ReturnType<typeof buildGzip>> {
    ok(await run(NPX, ['--no-install', checker, '-b'], appDir), `${checker} -b`);
    const refused = await run(NPX, ['--no-install', checker, '-p', 'tsconfig.fail.json'], appDir);
    assert.notEqual(refused.code, 0, 'the wrong usages do not compile');
    assert.deepEqual(errorLines(refused.stdout + refused.stderr), markedLines(path.join(appDir, mustFail)), refused.stdout);
    ok(await run(NPX, ['--no-install', 'vite', 'build'], appDir), 'vite build');
    return buildGzip(appDir);
  }

  it('React 19: typed component and element, wrong usages refused, both render in Chromium', async (t) => {
    const size = await checkAndBuild(dirs.react, 'tsc', 'fail/must-fail.tsx');
    figures.react = size;
    // Both report paylink-ready: the component's onPaylinkReady and the element's own onpaylink-ready.
    assert.deepEqual(await openInChromium(dirs.react, ['#ready-component', '#ready-element']), ['Consumer test order', 'Consumer test order']);
    t.diagnostic(`react-ts build: ${size.bytes} B, ${size.gzip} B gzip`);
  });

  it('Vue 3 SFC: typed props and @paylink events under vue-tsc, wrong usages refused, renders in Chromium', async (t) => {
    const size = await checkAndBuild(dirs.vue, 'vue-tsc', 'fail/MustFail.vue');
    figures.vue = size;
    assert.deepEqual(await openInChromium(dirs.vue, ['#ready']), ['Consumer test order']);
    t.diagnostic(`vue-ts build: ${size.bytes} B, ${size.gzip} B gzip`);
  });

  it('every export imports in plain Node and under edge runtimes’ conditions, with no DOM global left', async () => {
    await Promise.all(
      [[], ['--conditions=workerd', '--conditions=worker', '--conditions=browser'], ['--conditions=edge-light', '--conditions=browser']].map(
        async (conditions) => {
          const { results, dom } = JSON.parse(ok(await run('node', [...conditions, 'imports.mjs'], dirs.node), `imports ${conditions.join(' ')}`).stdout);
          assert.deepEqual(dom, [], conditions.join(' '));
          const expected = [
            'paylink',
            'paylink/checkout',
            'paylink/admin',
            'paylink/client',
            'paylink/proxy',
            'paylink/server',
            'paylink/webhooks',
            'paylink/react',
            'paylink/vue',
          ];
          assert.deepEqual(Object.keys(results), conditions.length ? expected.filter((entry) => entry !== 'paylink/server') : expected);
          for (const [entry, count] of Object.entries(results)) if (entry !== 'paylink/vue') assert.ok((count as number) > 0, `${entry} exports something`);
        },
      ),
    );
  });

  it('React and Vue render the element on the server (Next.js and Nuxt style) with its attributes', async () => {
    const { react, vue } = JSON.parse(ok(await run('node', ['ssr.mjs'], dirs.node), 'ssr.mjs').stdout);
    assert.equal(react, '<paylink-checkout slug="abc" api-base="/paylink"></paylink-checkout>');
    assert.equal(vue, '<paylink-checkout slug="abc" api-base="/paylink"></paylink-checkout>');
  });

  it('npm run release:check finds the tarball publishable (files, exports with types, publint, attw)', async () => {
    const checked = ok(await run(NPM, ['run', '--silent', 'release:check', '--', '--tarball', tarball], ROOT, { timeoutMs: 300_000 }), 'release:check');
    assert.match(checked.stdout, /the tarball is publishable/);
  });

  it('plain HTML: the script-tag bundle from the installed package defines the element and loads the link', async (t) => {
    const site = path.join(work, 'html');
    cpSync(path.join(APPS, 'html'), site, { recursive: true });
    cpSync(path.join(dirs.node, 'node_modules', 'paylink', 'dist', 'paylink-checkout.js'), path.join(site, 'paylink-checkout.js'));
    const served = await serveStatic(site);
    servers.push(served.server);
    const { upgradeShift, layoutShift } = await checkPage(served.url, ['body[data-ready="Consumer test order"]']);
    assert.equal(upgradeShift, 0, 'the reserved space held the page still while the element upgraded');
    figures.html = { upgradeShift, layoutShift };
    t.diagnostic(`plain HTML layout shift: ${upgradeShift} until the link loaded, ${layoutShift.toFixed(4)} in all`);
  });

  it('Next.js App Router: next build, next start; the element upgrades and a React handler hears paylink-ready', async (t) => {
    const env = { NEXT_TELEMETRY_DISABLED: '1' };
    const started = Date.now();
    // Built as a CI machine builds it: without PAYLINK_API_KEY (the doc's route handler makes its proxy on first use).
    const built = ok(await run(NPX, ['--no-install', 'next', 'build'], dirs.next, { env, timeoutMs: 600_000 }), 'next build');
    figures.nextBuildSeconds = (Date.now() - started) / 1000;
    assert.match(built.stdout, /\/prerendered/, 'the prerendered page was rendered at build time');
    assert.match(built.stdout, /\/paylink\/\[\.\.\.path\]/, "the doc's route handler is built");
    const page = docsFiles().get('app/pay/[slug]/page.tsx')!;
    assert.match(
      page,
      /only a client module that imports\s*\/\/\s*'paylink\/checkout' defines the element/,
      "the page's comment says what defines the element",
    );
    const port = await freePort();
    const { child } = await startProcess(
      ['next', 'start', '--port', String(port), '--hostname', '127.0.0.1'],
      dirs.next,
      { ...env, PAYLINK_URL: service!.url, PAYLINK_API_KEY: service!.key },
      (text) => /Ready in|started server/i.test(text),
    );
    try {
      const url = `http://127.0.0.1:${port}`;
      const prerendered = await fetch(`${url}/prerendered`);
      assert.equal(prerendered.status, 200);
      assert.match(await prerendered.text(), /<paylink-checkout slug="prerendered"><\/paylink-checkout>/);
      const served = await fetch(`${url}/?slug=${slug}`);
      assert.equal(served.status, 200, 'a server-rendered request answers (no 500)');
      const html = await served.text();
      assert.match(
        html,
        new RegExp(`<paylink-checkout id="from-server" slug="${slug}" api-base="/paylink"></paylink-checkout>`),
        'the server component rendered the element',
      );
      const { texts, upgradeShift, layoutShift } = await checkPage(url, ['#ready']);
      assert.deepEqual(texts, ['Consumer test order'], 'onPaylinkReady of the client component ran after hydration');
      assert.equal(upgradeShift, 0, 'the reserved space held the server-rendered page still while the elements upgraded');
      // The doc's page, client component and route handler: the checkout loads its link through the proxy route.
      const throughRoute = await checkPage(url, [], `/pay/${slug}`);
      assert.equal(throughRoute.upgradeShift, 0);
      const link = await fetch(`${url}/paylink/checkout/${slug}`);
      assert.equal(link.status, 200, 'the route handler answers the public checkout call');
      const body = await link.text();
      assert.match(body, /Consumer test order/);
      assert.doesNotMatch(body, new RegExp(service!.key), 'never the key');
      figures.next = { buildSeconds: figures.nextBuildSeconds, upgradeShift, layoutShift };
      t.diagnostic(`next build ${figures.nextBuildSeconds} s; layout shift ${upgradeShift} until the link loaded, ${layoutShift.toFixed(4)} in all`);
    } finally {
      await stop(child);
    }
  });

  it("Nuxt 4: the doc's config and client plugin build; the plugin defines the element in Chromium", async (t) => {
    const env = { NUXT_TELEMETRY_DISABLED: '1' };
    const started = Date.now();
    ok(await run(NPX, ['--no-install', 'nuxt', 'build'], dirs.nuxt, { env, timeoutMs: 600_000 }), 'nuxt build');
    figures.nuxt = { buildSeconds: (Date.now() - started) / 1000 };
    const port = await freePort();
    const { child } = await startProcess(['node', '.output/server/index.mjs'], dirs.nuxt, { NITRO_PORT: String(port), NITRO_HOST: '127.0.0.1' }, (text) =>
      /Listening on/i.test(text),
    );
    try {
      const url = `http://127.0.0.1:${port}`;
      const served = await (await fetch(`${url}/?slug=${slug}`)).text();
      assert.match(served, new RegExp(`<paylink-checkout slug="${slug}" api-base="/paylink"></paylink-checkout>`), 'the server rendered the element as it is');
      const { texts, upgradeShift } = await checkPage(url, ['#ready']);
      assert.deepEqual(texts, ['Consumer test order'], 'the plugin defined the element; its paylink-ready reached the page');
      assert.equal(upgradeShift, 0);
      t.diagnostic(`nuxt build ${(figures.nuxt as { buildSeconds: number }).buildSeconds} s`);
    } finally {
      await stop(child);
    }
  });

  it('Astro 5: the frontmatter import builds, the script tag defines the element in Chromium', async (t) => {
    const started = Date.now();
    ok(await run(NPX, ['--no-install', 'astro', 'build'], dirs.astro, { env: { ASTRO_TELEMETRY_DISABLED: '1' }, timeoutMs: 300_000 }), 'astro build');
    figures.astro = { buildSeconds: (Date.now() - started) / 1000, ...buildGzip(dirs.astro) };
    const html = readFileSync(path.join(dirs.astro, 'dist', 'index.html'), 'utf8');
    assert.match(html, /<paylink-checkout><\/paylink-checkout>/);
    await openInChromium(dirs.astro, ['body[data-ready="Consumer test order"]']);
    t.diagnostic(`astro build ${(figures.astro as { buildSeconds: number }).buildSeconds} s`);
  });

  it('npx paylink demo runs from the installed package', async () => {
    const port = await freePort();
    const { child } = await startProcess(['paylink', 'demo', '--port', String(port)], dirs.node, {}, (text) => text.includes('Paylink demo running at'));
    try {
      const url = `http://127.0.0.1:${port}`;
      const home = await fetch(`${url}/`);
      assert.equal(home.status, 200);
      assert.match(await home.text(), /<paylink-checkout/);
      const bundle = await fetch(`${url}/dist/paylink-checkout.js`, { headers: { 'accept-encoding': 'br' } });
      assert.equal(bundle.status, 200);
      assert.equal(bundle.headers.get('content-encoding'), 'br');
      assert.equal((await fetch(`${url}/admin.html`)).status, 200);
      assert.equal((await fetch(`${url}/paylink/admin/balance`)).status, 401, 'the proxy guards the admin routes');
    } finally {
      await stop(child);
    }
    assert.equal(existsSync(path.join(dirs.node, '.paylink-data', 'demo', 'paylink.lock')), false, 'the demo closed its database on SIGTERM');
  });

  it('what a consumer installs', (t) => {
    const closure = installedClosure(dirs.node, 'paylink');
    figures.install = { packages: closure.packages, bytes: closure.bytes };
    assert.ok(closure.packages > 1);
    for (const devOnly of ['tsx', 'uqr', 'typescript', 'vite', 'playwright-core', 'pg']) {
      assert.ok(!existsSync(path.join(dirs.node, 'node_modules', devOnly)), `${devOnly} is not installed with paylink`);
    }
    t.diagnostic(`paylink brings ${closure.packages} packages, ${MB(closure.bytes)} on disk`);
  });

  it('the service stops cleanly on SIGTERM', async () => {
    assert.ok(service);
    await stop(service.child);
    service = undefined;
    assert.equal(existsSync(path.join(dirs.node, 'data', 'paylink.lock')), false, 'it closed its database');
  });
});
