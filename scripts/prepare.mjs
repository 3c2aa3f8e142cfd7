// `npm install` / `npm ci` in a clone of the repository: build lib/ and dist/, which the `paylink`
// command, `npm start` and the tests run. Not for:
// - `npm pack` and `npm publish`, which run `prepare` right after `prepack` has built everything from
//   nothing (and whose tarball has no `prepare` script at all: see scripts/pack-manifest.mjs);
// - `npx paylink …` (or `npm exec`) inside the repository: npm links the repository into its npx cache
//   and runs its `prepare` there, which rebuilt everything (a minute and more) for a command that runs
//   lib/ as it is (bin/paylink.mjs says when src/ is newer than lib/: `npm run build`).
import { spawnSync } from 'node:child_process';

if (!['pack', 'publish', 'exec'].includes(process.env.npm_command ?? '')) {
  const npm = process.env.npm_execpath;
  const result = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(result.status ?? 1);
}
