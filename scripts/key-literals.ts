/**
 * In the script-tag bundles, a translation key of `<paylink-admin>` or `<paylink-checkout>` written as a
 * string literal where the code asks for a key (`t('tabLinks')`, `label: 'tabLinks'`, `counts:
 * ['linkOne', 'linksMany']`, `copyButton(m, text, 'amount')`) becomes the number of its slot in its
 * element's packed table (`scripts/packed-tables.ts`), which the table reads directly; a key the code
 * computes (`status_${status}`, a link's `state`) stays a string and is hashed as before. The admin's
 * 384 keys were written once more in the code that asks for them: 0.5 kB gzipped; the checkout's, 0.1 kB
 * of its 15 kB.
 *
 * TypeScript decides what is a key: a literal is replaced where its contextual type is the whole key
 * union of its element (`AdminKey`: the parameter of `AdminText.t`, a field typed `AdminKey`;
 * `MessageKey` in the checkout), never where a narrower union happens to hold the same words (a link's
 * `status: 'active'`). Since a key may then be a number
 * at run time, the build refuses code that uses a value of type `AdminKey` other than as a key: passed
 * on where a key is expected, tested for truth (slot numbers start at 1), compared with another key, or
 * indexing a table. A string operation on it (`label.length`, `${label}`) or a comparison with a literal
 * fails the build with its place, instead of misbehaving in the bundle only.
 * The browser tests run the sources, where keys stay strings; `test/server/key-literals.test.ts` covers this.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { Plugin } from 'vite';
import { slotOf } from '../src/internal/packed-table.js';
import { perfectHash } from './packed-tables.js';
import { privateRenames } from './private-names.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = `${ROOT}src/index.ts`;

/** One element's keys: the type that is all of them, its fallback table, and the modules that ask for them. */
interface KeySet {
  keyType: { file: string; name: string };
  table: string;
  /** The modules whose key literals are replaced and whose key uses are checked. */
  scope: RegExp;
}

const KEY_SETS: readonly KeySet[] = [
  {
    keyType: { file: `${ROOT}src/components/admin/admin-context.ts`, name: 'AdminKey' },
    table: `${ROOT}src/components/admin/translations/en.ts`,
    scope: /[\\/]src[\\/]components[\\/]admin[\\/](?!translations[\\/]).*\.ts$/,
  },
  {
    keyType: { file: `${ROOT}src/components/checkout/checkout-machine.ts`, name: 'MessageKey' },
    table: `${ROOT}src/components/checkout/translations/en.ts`,
    scope: /[\\/]src[\\/]components[\\/]checkout[\\/](?!translations[\\/]).*\.ts$/,
  },
];
/** Every module of some key set. */
const SCOPE = new RegExp(KEY_SETS.map((set) => set.scope.source).join('|'));

/** Each module's replacements: `[start, end, slot]` in its source as read from disk. */
export type KeyEdits = Map<string, [start: number, end: number, slot: number][]>;

let found: Promise<KeyEdits> | undefined;

/**
 * The key literals of the admin's modules and their slots; throws on a use of a key the bundle would
 * break. Found once per process (a TypeScript program of the browser sources: some seconds).
 */
export function keyEdits(): Promise<KeyEdits> {
  return (found ??= findKeyEdits());
}

/**
 * What `keyEdits` finds, with the sources of `replaced` (absolute paths) read as given instead of from
 * disk; in the modules of `only` alone when given (the program still holds them all).
 */
export async function findKeyEdits(replaced: Record<string, string> = {}, only?: readonly string[]): Promise<KeyEdits> {
  const { config } = ts.readConfigFile(`${ROOT}tsconfig.json`, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => replaced[file] ?? readFile(file);
  const program = ts.createProgram([ENTRY], { ...options, noEmit: true }, host);
  const edits: KeyEdits = new Map();
  const problems: string[] = [];
  for (const set of KEY_SETS) await findSetEdits(program, set, only, edits, problems);
  if (problems.length) throw new Error(`key-literals: in the bundles a translation key may be a number:\n${problems.join('\n')}`);
  return edits;
}

/** The edits (and problems) of one key set in `program`, added to `edits` (and `problems`). */
async function findSetEdits(program: ts.Program, set: KeySet, only: readonly string[] | undefined, edits: KeyEdits, problems: string[]): Promise<void> {
  const table = ((await import(set.table)) as { default: Record<string, string> }).default;
  const { seeds, size } = perfectHash(Object.keys(table));
  const checker = program.getTypeChecker();

  const keyDeclaration = program
    .getSourceFile(set.keyType.file)
    ?.statements.find((node): node is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(node) && node.name.text === set.keyType.name);
  if (!keyDeclaration) throw new Error(`key-literals: no type ${set.keyType.name} in ${set.keyType.file}`);
  const keyType = checker.getTypeAtLocation(keyDeclaration.name);
  const keyMembers = new Set(keyType.isUnion() ? keyType.types : [keyType]);
  if (keyMembers.size !== Object.keys(table).length) throw new Error(`key-literals: ${set.keyType.name} is not the keys of ${set.table}`);
  /** True when `type` holds every key: a value of it may be a key's slot number at run time. */
  const holdsKeys = (type: ts.Type | undefined): boolean =>
    !!type && (type === keyType || (type.isUnion() && [...keyMembers].every((member) => type.types.includes(member))));
  const isTable = (type: ts.Type) => Object.keys(table).every((key) => type.getProperty(key));

  for (const file of program.getSourceFiles()) {
    if (!set.scope.test(file.fileName) || (only && !only.includes(file.fileName))) continue;
    const fileEdits: [number, number, number][] = [];
    const visit = (node: ts.Node): void => {
      // Types, and the names a declaration or an object literal gives, are not values.
      if (ts.isTypeNode(node) || ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
      if (ts.isIdentifier(node) && isDeclaredName(node)) return;
      if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && node.text in table && holdsKeys(checker.getContextualType(node))) {
        fileEdits.push([node.getStart(file), node.getEnd(), slotOf(node.text, seeds, size)]);
      } else if (ts.isExpression(node) && !ts.isLiteralExpression(node) && holdsKeys(valueType(node)) && !usedAsKey(node)) {
        const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
        problems.push(`${file.fileName}:${line + 1}:${character + 1}: ${node.getText(file)} is used other than as a translation key`);
      }
      ts.forEachChild(node, visit);
    };
    /**
     * The type of what `node` reads: a variable's or a property's declared type, not the type narrowed
     * where it is read (after `label === 'tabLinks' ||`, `label` is every key but one, and may still be a number).
     */
    const valueType = (node: ts.Expression): ts.Type => {
      const symbol = ts.isIdentifier(node) || ts.isPropertyAccessExpression(node) ? checker.getSymbolAtLocation(ts.isIdentifier(node) ? node : node.name) : undefined;
      return symbol && !(symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Method | ts.SymbolFlags.Class)) ? checker.getTypeOfSymbol(symbol) : checker.getTypeAtLocation(node);
    };
    /** Where a value that may be a slot number behaves as its key would. */
    const usedAsKey = (node: ts.Expression): boolean => {
      const { parent } = node;
      if (holdsKeys(checker.getContextualType(node))) return true;
      if (ts.isParenthesizedExpression(parent) || ts.isNonNullExpression(parent)) return usedAsKey(parent);
      // An assignment's own value, dropped (`this.copied = key;`): what was assigned is checked where it is read.
      if (ts.isExpressionStatement(parent)) return true;
      if (ts.isConditionalExpression(parent) && parent.condition === node) return true;
      if (ts.isPrefixUnaryExpression(parent) && parent.operator === ts.SyntaxKind.ExclamationToken) return true;
      if (ts.isIfStatement(parent) && parent.expression === node) return true;
      if (ts.isBinaryExpression(parent)) {
        const operator = parent.operatorToken.kind;
        const other = parent.left === node ? parent.right : parent.left;
        if ([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(operator)) return holdsKeys(valueType(other));
        if (operator === ts.SyntaxKind.AmpersandAmpersandToken && parent.left === node) return true;
        // Assigned to: the value put there is checked as it goes in (its contextual type is the target's).
        if (operator === ts.SyntaxKind.EqualsToken && parent.left === node) return true;
      }
      if (ts.isElementAccessExpression(parent) && parent.argumentExpression === node) return isTable(checker.getTypeAtLocation(parent.expression));
      // The field name of a property read: the read as a whole is checked where it is used.
      return ts.isPropertyAccessExpression(parent) && parent.name === node;
    };
    visit(file);
    if (fileEdits.length) edits.set(file.fileName, fileEdits);
  }
}

/** True for the name a declaration gives (a variable, parameter, property, binding) rather than a value read. */
function isDeclaredName(node: ts.Identifier): boolean {
  const { parent } = node;
  if (ts.isShorthandPropertyAssignment(parent)) return false;
  return !ts.isPropertyAccessExpression(parent) && (parent as { name?: ts.Node }).name === node;
}

/** `source` with its key literals replaced by their slots (and other edits by their text: `scripts/private-names.ts`). */
export function applyKeyEdits(source: string, edits: readonly [number, number, number | string][]): string {
  let out = '';
  let at = 0;
  for (const [start, end, slot] of edits) {
    out += `${source.slice(at, start)}${slot}`;
    at = end;
  }
  return out + source.slice(at);
}

/**
 * The Vite/Rolldown plugin of the script-tag bundles (see the module comment), which also gives private
 * members their short names (`scripts/private-names.ts`). Listed first: it edits the sources as read from disk.
 */
export function keyLiteralsPlugin(): Plugin {
  return {
    name: 'paylink:key-literals',
    enforce: 'pre',
    async transform(source, id) {
      if (!BROWSER_SOURCE.test(id)) return null;
      const keys = (SCOPE.test(id) && (await keyEdits()).get(id)) || [];
      let renames = privateRenames().edits.get(id) ?? [];
      const unchanged = source === readFileSync(id, 'utf8');
      if (keys.length && !unchanged) throw new Error(`key-literals: ${id} was changed by another plugin first`);
      // A module another plugin rewrote keeps its members' names: they are only referenced from within it.
      if (!unchanged) renames = [];
      if (!keys.length && !renames.length) return null;
      const edits = [...keys, ...renames].sort((a, b) => a[0] - b[0]);
      return { code: applyKeyEdits(source, edits), map: null };
    },
  };
}

/** The browser sources (the server's are never bundled). */
const BROWSER_SOURCE = /[\\/]src[\\/](?!server[\\/]).*\.ts$/;
