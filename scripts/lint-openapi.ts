/**
 * `npm run lint:openapi`: writes the service's OpenAPI document (`GET /v1/openapi.json`, built
 * without starting anything) to a temporary file and lints it with Redocly's recommended rules
 * (scripts/redocly.yaml). It runs offline: telemetry is off and the update check is skipped, so
 * nothing leaves the machine. Fails on any error; warnings are printed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../src/server/service/openapi.js';

/**
 * Redocly's stderr without its boxed notice that Node.js 20 support is ending: it prints the box on
 * every run under Node 20 (which this project supports, package.json `engines`), and no setting of
 * its own turns it off. Everything else it writes (the lint's problems) passes through.
 */
function withoutNodeNotice(stderr: string): string {
  return stderr.replace(/[ \t]*╔[^╚]*Node\.js 20 support is ending[^╚]*╚═*╝[ \t]*\n?\n?/u, '');
}

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'paylink-openapi-'));
const file = path.join(dir, 'openapi.json');
writeFileSync(file, JSON.stringify(openApiDocument(), null, 2));
const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
const started = performance.now();
const result = spawnSync(process.execPath, [cli, 'lint', file, '--config', path.join(here, 'redocly.yaml'), '--format', 'stylish'], {
  stdio: ['ignore', 'inherit', 'pipe'],
  encoding: 'utf8',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
});
process.stderr.write(withoutNodeNotice(result.stderr ?? ''));
rmSync(dir, { recursive: true, force: true });
process.stderr.write(`lint-openapi: ${Math.round(performance.now() - started)} ms\n`);
process.exit(result.status ?? 1);
