/**
 * The documentation's links, as a reader follows them: every relative link and `#anchor` in README.md,
 * CONTRIBUTING.md and docs/*.md names a file that exists and a heading that file has (GitHub's heading
 * ids). The README and docs/ ship in the package, so their links stay inside it (docs/, the README,
 * the LICENSE): a link into the repository's source would be dead for everyone who installed from npm.
 * CONTRIBUTING.md's layout names real paths. No doc cites an issue number or a design section.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SHIPPED_DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const DOCS = [...SHIPPED_DOCS, 'CONTRIBUTING.md'];

/** The text of a Markdown file with fenced code blocks and inline code blanked, so their brackets are not links. */
function prose(markdown: string): string {
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '))
    .replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
}

/** GitHub's id for a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** Every heading id of a Markdown file, with GitHub's `-1`, `-2` suffixes on repeats. */
function anchors(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    ids.add(count === 0 ? base : `${base}-${count}`);
  }
  return ids;
}

/** The relative links of a Markdown file: `[text](target)` outside code, without web and mail addresses. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('documentation links', () => {
  it('finds the docs it checks, each with links to follow', () => {
    for (const file of ['README.md', 'CONTRIBUTING.md', 'docs/api.md', 'docs/configuration.md', 'docs/operations.md', 'docs/going-live.md'])
      assert.ok(existsSync(path.join(ROOT, file)), `${file} exists`);
    assert.ok(relativeLinks(read('README.md')).filter((target) => target.startsWith('docs/')).length >= 6, 'the README links to docs/ for depth');
  });

  it('reads heading ids and links as GitHub does', () => {
    assert.equal(slug('Prices: market rates (`PAYLINK_RATES_*`)'), 'prices-market-rates-paylink_rates_');
    assert.equal(slug('On a real chain (`--chain evm`)'), 'on-a-real-chain---chain-evm');
    assert.equal(slug('1. Rehearse on BNB Smart Chain Testnet'), '1-rehearse-on-bnb-smart-chain-testnet');
    assert.deepEqual([...anchors('# A\n```\n# not a heading\n```\n## A\n')], ['a', 'a-1']);
    assert.deepEqual(relativeLinks('[a](docs/x.md#y) `[b](c.md)` [web](https://e.x) [here](#z)\n```\n[d](e.md)\n```\n'), ['docs/x.md#y', '#z']);
  });

  for (const file of DOCS) {
    it(`${file}: every relative link and #anchor resolves`, () => {
      const broken: string[] = [];
      for (const target of relativeLinks(read(file))) {
        const [filePart, anchor] = target.split('#') as [string, string | undefined];
        const resolved = filePart ? path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(filePart))) : file;
        const full = path.join(ROOT, resolved);
        if (!existsSync(full)) {
          broken.push(`${target}: no file ${resolved}`);
          continue;
        }
        if (anchor !== undefined) {
          if (!resolved.endsWith('.md') || statSync(full).isDirectory()) broken.push(`${target}: an anchor into ${resolved}, which has no headings`);
          else if (!anchors(read(resolved)).has(anchor)) broken.push(`${target}: ${resolved} has no heading #${anchor}`);
        }
        if (SHIPPED_DOCS.includes(file) && !(resolved.startsWith('docs/') || resolved === 'README.md' || resolved === 'LICENSE'))
          broken.push(`${target}: ${resolved} is not in the package, so the link is dead on npm`);
      }
      assert.deepEqual(broken, []);
    });
  }

  it('CONTRIBUTING.md: the layout names paths that exist', () => {
    const layout = /^## Layout\n[\s\S]*?^```text\n([\s\S]*?)^```/m.exec(read('CONTRIBUTING.md'))?.[1];
    assert.ok(layout, 'the Layout section has its text block');
    const paths = layout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(/\s+/)[0]!);
    assert.ok(paths.length > 20, 'the layout names the repository’s parts');
    assert.deepEqual(
      paths.filter((entry) => !existsSync(path.join(ROOT, entry))),
      [],
      'paths in the layout that do not exist',
    );
  });

  it('cites no issue number, design section or project phase', () => {
    for (const file of DOCS) {
      const text = read(file);
      assert.doesNotMatch(text, /\bissue #?\d+|§\s*\d|DESIGN\.md|\bphase \d/i, file);
    }
  });
});
