/**
 * `npm run lint:owasp`: lints the service's OpenAPI document (`GET /v1/openapi.json`, built without
 * starting anything) with Spectral's OpenAPI rules and its OWASP API Security ruleset
 * (scripts/spectral.yaml). Offline. Fails on any error; prints the warnings counted by rule (the
 * API reference, docs/api.md, says which remain and why).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../src/server/service/openapi.js';

interface Finding {
  code: string;
  message: string;
  severity: number;
  path: string[];
}

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'paylink-owasp-'));
const file = path.join(dir, 'openapi.json');
writeFileSync(file, JSON.stringify(openApiDocument(), null, 2));
const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('@stoplight/spectral-cli/package.json')), 'dist', 'index.js');
const started = performance.now();
const result = spawnSync(process.execPath, [cli, 'lint', file, '--ruleset', path.join(here, 'spectral.yaml'), '--format', 'json', '--quiet'], {
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
rmSync(dir, { recursive: true, force: true });
let findings: Finding[];
try {
  findings = JSON.parse(result.stdout || '[]');
} catch {
  process.stderr.write(`lint-owasp: Spectral did not answer in JSON:\n${result.stdout}\n${result.stderr}`);
  process.exit(1);
}
const errors = findings.filter((finding) => finding.severity === 0);
const warnings = new Map<string, number>();
for (const finding of findings) if (finding.severity === 1) warnings.set(finding.code, (warnings.get(finding.code) ?? 0) + 1);
for (const error of errors) process.stderr.write(`error ${error.code} at ${error.path.join('.')}: ${error.message}\n`);
process.stderr.write(
  `lint-owasp: ${errors.length} errors; warnings ${[...warnings].map(([code, count]) => `${code} ${count}`).join(', ') || 'none'} (${Math.round(performance.now() - started)} ms)\n`,
);
process.exit(errors.length ? 1 : 0);
