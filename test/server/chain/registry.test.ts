/**
 * The chain families as the registry lists them: each provides every part of the family interface,
 * refuses bad settings by naming every problem (with the caller's), and is named only by the registry;
 * the chain interface and core/ import no family; docs/adding-a-chain.md names files that exist.
 * No node is asked: settings are refused before a family connects.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CHAIN_FAMILY_PARTS, ChainSettingsError } from '../../../src/server/chain/family.js';
import { CHAIN_FAMILIES, chainFamily } from '../../../src/server/chain/registry.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const CHAIN = path.join(ROOT, 'src/server/chain');
const PART_TYPES = { name: 'string', summary: 'string', realMoney: 'boolean', checkAddress: 'function', connect: 'function', describe: 'function' } as const;

/** Every .ts file under `dir`, as paths relative to the repository. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith('.ts') ? [path.relative(ROOT, full)] : [];
  });
}

/** The relative imports of a source file, resolved to repository paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map(([, spec]) =>
    path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), spec!)),
  );
}

const familyFolders = CHAIN_FAMILIES.map((family) => `src/server/chain/${family.name}`);

describe('chain families', () => {
  it('registers families with distinct names, each in its own folder with its family.ts', () => {
    assert.ok(CHAIN_FAMILIES.length >= 2);
    assert.equal(new Set(CHAIN_FAMILIES.map((f) => f.name)).size, CHAIN_FAMILIES.length);
    for (const family of CHAIN_FAMILIES) {
      assert.match(family.name, /^[a-z][a-z0-9]*$/);
      assert.equal(chainFamily(family.name), family);
      assert.ok(existsSync(path.join(CHAIN, family.name, 'family.ts')), `${family.name} has src/server/chain/${family.name}/family.ts`);
    }
    assert.equal(chainFamily('tron'), undefined);
  });

  for (const family of CHAIN_FAMILIES) {
    it(`${family.name} provides every part of the interface`, () => {
      assert.deepEqual(Object.keys(PART_TYPES).sort(), [...CHAIN_FAMILY_PARTS].sort());
      for (const part of CHAIN_FAMILY_PARTS) assert.equal(typeof family[part], PART_TYPES[part], `${family.name}.${part}`);
      assert.ok(family.summary.length > 20, 'the summary says what choosing it means');
    });

    it(`${family.name} refuses its settings with every problem named, the caller's first, before any node is asked`, async () => {
      const refusal = await family.connect({}, { otherProblems: ['PAYLINK_RATES_SOURCES is not set'] }).then(
        () => assert.fail('connected with a problem'),
        (error: unknown) => error,
      );
      assert.ok(refusal instanceof ChainSettingsError);
      assert.equal(refusal.problems[0], 'PAYLINK_RATES_SOURCES is not set');
      // A family of real money has settings of its own, and names them too (none are set here).
      if (family.realMoney) assert.ok(refusal.problems.length > 1, `${family.name} names its own missing settings`);
    });
  }

  it('each family keeps the address rules it states: a mistyped character is refused with a reason', () => {
    for (const family of CHAIN_FAMILIES) {
      assert.deepEqual(family.checkAddress('not an address').ok, false);
      const refused = family.checkAddress('');
      assert.ok(!refused.ok && refused.message.length > 0);
    }
  });

  it('is named only by the registry: nothing else imports a family.ts, and the interface and core/ import no family', () => {
    const files = sources(path.join(ROOT, 'src'));
    for (const file of files) {
      const imports = importsOf(file);
      if (file !== 'src/server/chain/registry.ts') {
        for (const target of imports)
          assert.ok(!/^src\/server\/chain\/[^/]+\/family\.(js|ts)$/.test(target), `${file} imports ${target}: only the registry may`);
      }
      const neutral = file.startsWith('src/core/') || (path.dirname(file) === 'src/server/chain' && file !== 'src/server/chain/registry.ts');
      if (!neutral) continue;
      for (const target of imports) {
        assert.ok(!familyFolders.some((folder) => target.startsWith(`${folder}/`)), `${file} imports ${target}, a family's`);
      }
    }
  });

  it('docs/adding-a-chain.md names files that exist, for every registered family, and is linked from CONTRIBUTING', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/adding-a-chain.md'), 'utf8');
    const named = [...new Set([...doc.matchAll(/`((?:src|test)\/[^`\s*]+)`/g)].map(([, p]) => p!))];
    assert.ok(
      named.includes('src/server/chain/registry.ts') && named.includes('src/server/chain/family.ts') && named.includes('test/server/chain/registry.test.ts'),
    );
    for (const name of named) {
      const concrete = name.includes('<family>') ? CHAIN_FAMILIES.map((f) => name.replace('<family>', f.name)) : [name];
      for (const file of concrete) assert.ok(existsSync(path.join(ROOT, file)), `docs/adding-a-chain.md names ${file}, which exists`);
    }
    assert.match(readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8'), /\(docs\/adding-a-chain\.md\)/);
  });
});
