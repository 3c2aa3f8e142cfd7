#!/usr/bin/env node
// The `paylink` command: the compiled CLI in lib/ (plain JavaScript, nothing compiled at run time).
// In a clone of the repository, `npm install` builds lib/ (the `prepare` script), and `npm run build`
// after a change to src/; this says so when src/ is newer than the last build.
import { existsSync, readdirSync, statSync } from 'node:fs';

const src = new URL('../src/', import.meta.url);
const buildInfo = new URL('../lib/.tsbuildinfo', import.meta.url);
if (existsSync(src) && existsSync(buildInfo)) {
  const built = statSync(buildInfo).mtimeMs;
  const changed = readdirSync(src, { recursive: true }).some((name) => statSync(new URL(String(name), src)).mtimeMs > built);
  if (changed) process.stderr.write('paylink: src/ changed since lib/ was built; run "npm run build" to use the changes.\n');
}

try {
  await import('../lib/server/cli.js');
} catch (error) {
  // Only when the CLI itself is missing; a missing dependency of it is reported as it is.
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && /Cannot find module '[^']*lib[\\/]server[\\/]cli\.js'/.test(error.message)) {
    process.stderr.write('paylink: lib/ is not built; run "npm run build" (or "npm install") in the repository first.\n');
    process.exit(1);
  }
  throw error;
}
