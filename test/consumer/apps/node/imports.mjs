// Every entry of the installed package, imported where there is no DOM (plain Node; run with
// --conditions=… for an edge runtime's resolver): prints what each exports and the DOM globals after.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const manifest = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('paylink/package.json'), 'utf8'));
const entries = Object.keys(manifest.exports)
  .filter((key) => !key.endsWith('.json') && !key.includes('*'))
  .map((key) => (key === '.' ? 'paylink' : `paylink/${key.slice(2)}`));
const results = {};
for (const entry of entries) {
  if (entry === 'paylink/server' && process.execArgv.some((arg) => arg.startsWith('--conditions'))) continue; // Node only
  const module = await import(entry);
  results[entry] = Object.keys(module).length;
}
console.log(JSON.stringify({ results, dom: ['HTMLElement', 'window', 'document'].filter((name) => name in globalThis) }));
