#!/usr/bin/env node
// The `paylink` command: the compiled CLI in lib/ (plain JavaScript, nothing compiled at run time).
// In a clone of the repository, `npm install` builds lib/ (the `prepare` script), and `npm run build`
// after a change to src/; this says so when src/ is newer than the last build.
import { existsSync, readdirSync, statSync } from 'node:fs';

/** A line of this launcher, in the CLI's log format: plain text at a terminal, a JSON line elsewhere (lib/server/log.js). */
function say(level, code, message) {
  const format = (process.env.PAYLINK_LOG_FORMAT ?? '').trim().toLowerCase() || (process.stdout.isTTY ? 'pretty' : 'json');
  process.stderr.write(format === 'pretty' ? `paylink: ${message}\n` : `${JSON.stringify({ time: new Date().toISOString(), level, code, message })}\n`);
}

const src = new URL('../src/', import.meta.url);
const buildInfo = new URL('../lib/.tsbuildinfo', import.meta.url);
if (existsSync(src) && existsSync(buildInfo)) {
  const built = statSync(buildInfo).mtimeMs;
  const changed = readdirSync(src, { recursive: true }).some((name) => statSync(new URL(String(name), src)).mtimeMs > built);
  if (changed) say('warn', 'lib_outdated', 'src/ changed since lib/ was built; run "npm run build" to use the changes.');
}

try {
  await import('../lib/server/cli.js');
} catch (error) {
  // Only when the CLI itself is missing; a missing dependency of it is reported as it is.
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && /Cannot find module '[^']*lib[\\/]server[\\/]cli\.js'/.test(error.message)) {
    say('error', 'lib_missing', 'lib/ is not built; run "npm run build" (or "npm install") in the repository first.');
    process.exit(1);
  }
  throw error;
}
