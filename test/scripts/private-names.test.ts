/**
 * `scripts/private-names.ts`: the script-tag bundles give the members TypeScript declares `private` short
 * names. The public API (custom-elements.json's members, attributes and events, the package's exported
 * types) keeps every name; a private member whose name the sources also write as a string or list in
 * `static properties` keeps its own.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { privateRenames } from '../../scripts/private-names.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface ManifestDeclaration {
  name: string;
  customElement?: boolean;
  tagName?: string;
  members?: { name: string; privacy?: string }[];
  attributes?: { name: string; fieldName?: string }[];
  events?: { name: string }[];
}

/** The names custom-elements.json gives the public members, attributes and events of the elements (those `only` keeps, by tag). */
function elementApiNames(only: (tagName: string) => boolean = () => true): Set<string> {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'custom-elements.json'), 'utf8')) as { modules: { declarations?: ManifestDeclaration[] }[] };
  const names = new Set<string>();
  for (const declaration of manifest.modules.flatMap((module) => module.declarations ?? [])) {
    if (!declaration.customElement || !only(declaration.tagName ?? '')) continue;
    for (const member of declaration.members ?? []) if (member.privacy !== 'private') names.add(member.name);
    for (const attribute of declaration.attributes ?? []) if (attribute.fieldName) names.add(attribute.fieldName);
    for (const event of declaration.events ?? []) names.add(event.name);
  }
  return names;
}

describe('private member names in the script-tag bundles', () => {
  const { edits, names, internal } = privateRenames();

  test('renames private members only: never a public member of what the browser entry exports', () => {
    const { config } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
    const program = ts.createProgram([path.join(ROOT, 'src/index.ts')], { ...options, noEmit: true });
    const checker = program.getTypeChecker();
    const entry = checker.getSymbolAtLocation(program.getSourceFile(path.join(ROOT, 'src/index.ts'))!)!;
    const publicNames = new Set<string>();
    for (const exported of checker.getExportsOfModule(entry)) {
      publicNames.add(exported.name);
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = symbol.declarations?.[0];
      if (!declaration) continue;
      const types = [checker.getDeclaredTypeOfSymbol(symbol), checker.getTypeOfSymbolAtLocation(symbol, declaration)];
      for (const type of types) {
        for (const property of type.getProperties()) {
          const isPrivate = property.declarations?.some((d) => ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Private);
          if (!isPrivate) publicNames.add(property.name);
        }
      }
    }
    for (const name of elementApiNames()) publicNames.add(name);
    assert.ok(publicNames.has('apiBase') && publicNames.has('refresh') && publicNames.has('createPaylinkClient'), 'the public names are read');
    assert.ok(names.size > 50, `${names.size} names renamed`);
    // A private member may share a public member's name on another class (`values`): its own references
    // are renamed (its declaration, `this.values`), the public one's (`this.model.values`) are not.
    const clashes = [...names.keys()].filter((name) => publicNames.has(name));
    assert.ok(clashes.includes('values'), 'a clash is looked at');
    for (const [file, list] of edits) {
      const source = readFileSync(file, 'utf8');
      for (const [start, end] of list) {
        const before = source.slice(Math.max(0, start - 40), start);
        // The checkout machine's and the localizer's members are read from other modules (`m.busy`).
        if (internal.has(source.slice(start, end))) continue;
        // A declaration, `this.member`, or a parameter property's parameter read in its constructor: never `other.member`.
        assert.match(
          before,
          /(\bprivate\s+(readonly\s+|get\s+|set\s+|async\s+)*|(?<![\w$])this\.|[^\w$.])$/,
          `${path.relative(ROOT, file)}: …${before}${source.slice(start, end)}`,
        );
      }
    }
  });

  test('renames the internal classes’ members (the checkout machine’s, the localizer’s, the admin’s controllers’), but what is read from outside', () => {
    for (const name of ['publicDonors', 'payWithWallet', 'needsDetails', 'submitAmount', 'l10n', 'crypto', 'digits', 'scriptSrc', 'writeError', 'goTo'])
      assert.ok(internal.has(name), name);
    // `react.ts` reads `machine.link` and `machine.session` (declared by the state it extends);
    // strings and destructuring keep a name too.
    const machine = path.join(ROOT, 'src/components/checkout/checkout-state.ts');
    const machineSource = readFileSync(machine, 'utf8');
    const kept = (declaration: string) => {
      const at = machineSource.indexOf(declaration);
      assert.ok(at > 0, declaration);
      return !edits.get(machine)!.some(([start]) => start === at + 2);
    };
    for (const declaration of ['\n  link?: Payable', '\n  session?: CheckoutSession', '\n  donorName = ', '\n  address = '])
      assert.ok(kept(declaration), declaration);
    // What an interface reads keeps its name: a tab's `render` (`AdminTab`), a controller's `hostConnected`.
    const tab = path.join(ROOT, 'src/components/admin/links/links-tab.ts');
    const tabSource = readFileSync(tab, 'utf8');
    const tabNames = (edits.get(tab) ?? []).map(([start, end]) => tabSource.slice(start, end));
    for (const name of ['render', 'load', 'label']) assert.ok(!tabNames.includes(name), name);
    const resources = path.join(ROOT, 'src/components/admin/resource-controller.ts');
    const resourceSource = readFileSync(resources, 'utf8');
    assert.ok(!(edits.get(resources) ?? []).some(([start, end]) => resourceSource.slice(start, end).startsWith('host')), 'host… of ReactiveController');
    // An override keeps the name its base keeps (`PagedResource.hostDisconnected`, `ResourceController`'s being the interface's).
    for (const name of ['hostDisconnected', 'hostConnected', 'render', 'load']) assert.equal(internal.has(name), false, name);
    // A step reads the machine through `Pick<CheckoutMachine, …>`: those reads are renamed with it.
    const payStep = path.join(ROOT, 'src/components/checkout/pay-step.ts');
    const source = readFileSync(payStep, 'utf8');
    const renamed = edits.get(payStep)!.map(([start, end]) => source.slice(start, end));
    for (const name of ['payWithWallet', 'walletError']) assert.ok(renamed.includes(name), name);
    // A module only one bundle reaches is read too: the refund claim page calls the localizer's `t`,
    // which is renamed, so its call must be (it was not, once: `this.#l10n.t is not a function`).
    if (internal.has('t')) {
      const claimPage = path.join(ROOT, 'src/components/refund/paylink-refund.ts');
      const claimSource = readFileSync(claimPage, 'utf8');
      const claimRenamed = (edits.get(claimPage) ?? []).map(([start, end]) => claimSource.slice(start, end));
      assert.ok(claimRenamed.includes('t'), "the claim page's call of Localizer.t is renamed with it");
    }
  });

  test('keeps the names Lit-style property declarations and strings reach', () => {
    // `signedOut` and `announcement` are in PaylinkAdmin's static properties; `view` is read as changed.get('view').
    for (const name of ['signedOut', 'announcement', 'view']) assert.equal(names.has(name), false, name);
    assert.ok(names.has('loadView') && names.has('currentText'), 'plain private members are renamed');
    const admin = path.join(ROOT, 'src/components/admin/paylink-admin.ts');
    const source = readFileSync(admin, 'utf8');
    for (const [start, end, short] of edits.get(admin)!) {
      assert.match(source.slice(start, end), /^[A-Za-z_]\w*$/, 'an edit replaces a name');
      assert.equal(short, names.get(source.slice(start, end)));
    }
  });

  test(
    'dist/paylink.js keeps every public name of the elements and loses the renamed ones',
    { skip: !existsSync(path.join(ROOT, 'dist/paylink.js')) && 'not built' },
    () => {
      const bundle = readFileSync(path.join(ROOT, 'dist/paylink.js'), 'utf8');
      // The refund claim page's element is a bundle of its own (dist/paylink-refund.js).
      const claim = readFileSync(path.join(ROOT, 'dist/paylink-refund.js'), 'utf8');
      for (const name of elementApiNames((tag) => tag !== 'paylink-refund')) assert.ok(bundle.includes(name), `${name} is in the bundle`);
      for (const name of elementApiNames((tag) => tag === 'paylink-refund')) assert.ok(claim.includes(name), `${name} is in dist/paylink-refund.js`);
      for (const name of ['currentText', 'pendingFocus', 'applyPendingFocus', 'handleTabKeydown']) assert.ok(!bundle.includes(name), `${name} was renamed`);
    },
  );
});
