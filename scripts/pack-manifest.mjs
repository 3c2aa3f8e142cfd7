// The package.json of the tarball without the `prepare` script. `prepare` builds lib/ and dist/ in a
// clone of the repository (scripts/prepare.mjs, which is not packed); in the tarball it would only make
// npm warn, at every install of it from a file, about an install script whose file is not there.
// `prepack` runs `strip` last, once everything is built; `postpack` runs `restore`. A strip whose
// pack failed before `postpack` is undone by the next `strip` or `restore`.
//
//   node scripts/pack-manifest.mjs strip|restore
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const manifest = new URL('../package.json', import.meta.url);
const kept = new URL('../node_modules/.package.json.before-pack', import.meta.url);

const restore = () => {
  if (existsSync(kept)) renameSync(kept, manifest);
};

const command = process.argv[2];
if (command === 'restore') restore();
else if (command === 'strip') {
  restore();
  const text = readFileSync(manifest, 'utf8');
  const json = JSON.parse(text);
  if (json.scripts?.prepare) {
    writeFileSync(kept, text);
    delete json.scripts.prepare;
    writeFileSync(manifest, `${JSON.stringify(json, null, 2)}\n`);
  }
} else {
  process.stderr.write('usage: node scripts/pack-manifest.mjs strip|restore\n');
  process.exit(2);
}
