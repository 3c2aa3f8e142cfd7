// `npm install` / `npm ci` in a clone of the repository: build lib/ and dist/, which the `paylink`
// command, `npm start` and the tests run. `npm pack` and `npm publish` run `prepare` as well, right
// after `prepack` has built everything from nothing: no second build there.
import { spawnSync } from 'node:child_process';

if (!['pack', 'publish'].includes(process.env.npm_command ?? '')) {
  const npm = process.env.npm_execpath;
  const result = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(result.status ?? 1);
}
