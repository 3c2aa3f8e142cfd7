/**
 * In the script-tag bundles, a translation key of `<paylink-admin>` or `<paylink-checkout>` written as a
 * string literal where the code asks for a key (`t('tabLinks')`, `label: 'tabLinks'`, `counts:
 * ['linkOne', 'linksMany']`) becomes the number of its slot in the element's packed table
 * (`scripts/packed-tables.ts`), which the table reads directly. The admin's 384 keys were written once
 * more in the code that asks for them: 0.5 kB gzipped; the checkout's, 0.1 kB of its 15 kB budget.
 *
 * TypeScript decides what is a key: a literal is replaced where its contextual type is the element's
 * whole key union (`AdminKey`, the checkout's `MessageKey`: the parameter of `t`, a field typed with
 * it), never where a narrower union happens to hold the same words (a link's `status: 'active'`). Since
 * a key may then be a number at run time, the build refuses code that uses a value of the key type
 * other than as a key: passed on where a key is expected, tested for truth (slot numbers start at 1),
 * compared with another key, or indexing a table. A string operation on it (`label.length`, `${label}`)
 * or a comparison with a literal fails the build with its place, instead of misbehaving in the bundle only.
 *
 * A key the code computes (`status_${status}`, a rule's `error.key`) stays a string, so its text must be
 * found by its name: TypeScript lists the keys such an expression may be (its type is a union of key
 * literals; through an `as`, the type of what is asserted), and those are hashed in the packed table
 * (`literalLayout` in `scripts/packed-tables.ts`), with every key written as a string where no key is
 * expected (it may reach `t()` as one); the others are read by number alone. A computed key whose type
 * lists no keys (`string`, `any`), or an assertion to a key type away from where a key is expected
 * (the keys the value may be are lost there), fails the build.
 * The browser tests run the sources, where keys stay strings; `test/scripts/key-literals.test.ts` covers this.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { Plugin } from 'vite';
import { literalLayout, type TableLayout } from './packed-tables.js';
import { privateRenames } from './private-names.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = `${ROOT}src/index.ts`;

/** An element whose literal keys the bundles write as numbers: the type of its keys, its English table, its modules. */
interface KeyedElement {
  keyType: { file: string; name: string };
  table: string;
  /** The modules whose key literals are replaced and whose key uses are checked. */
  scope: RegExp;
}

/** The elements of `src/index.ts` whose keys become numbers, by the folder of their translation tables. */
export const KEYED_ELEMENTS = {
  admin: {
    keyType: { file: `${ROOT}src/components/admin/admin-context.ts`, name: 'AdminKey' },
    table: `${ROOT}src/components/admin/translations/en.ts`,
    scope: /[\\/]src[\\/]components[\\/]admin[\\/](?!translations[\\/]).*\.ts$/,
  },
  checkout: {
    keyType: { file: `${ROOT}src/components/checkout/checkout-types.ts`, name: 'MessageKey' },
    table: `${ROOT}src/components/checkout/translations/en.ts`,
    scope: /[\\/]src[\\/]components[\\/]checkout[\\/](?!translations[\\/]).*\.ts$/,
  },
} satisfies Record<string, KeyedElement>;
export type KeyedElementName = keyof typeof KEYED_ELEMENTS;

/** Each module's replacements: `[start, end, slot]` in its source as read from disk. */
export type KeyEdits = Map<string, [start: number, end: number, slot: number][]>;

/** What an element's modules do with keys: their key literals, and the keys they may ask for by name. */
interface KeyUses {
  /** Each module's key literals: `[start, end, key]` in its source as read from disk. */
  literals: Map<string, [start: number, end: number, key: string][]>;
  /** The keys the code may ask for by name at run time: those it computes, and those it writes as plain strings. */
  computed: Set<string>;
}

let found: Promise<{ edits: KeyEdits; layouts: Record<KeyedElementName, TableLayout> }> | undefined;

/**
 * The key literals of the elements' modules and their slots; throws on a use of a key the bundle would
 * break. Found once per process (a TypeScript program of the browser sources: some seconds).
 */
export async function keyEdits(): Promise<KeyEdits> {
  return (await (found ??= analyse())).edits;
}

/** The layout of an element's packed tables: the keys its code may ask for by name hashed, the others by number (`literalLayout`). */
export async function keyLayout(element: KeyedElementName): Promise<TableLayout> {
  return (await (found ??= analyse())).layouts[element];
}

/**
 * What `keyEdits` finds, with the sources of `replaced` (absolute paths) read as given instead of from
 * disk; in the modules of `only` alone when given (the program still holds them all).
 */
export async function findKeyEdits(replaced: Record<string, string> = {}, only?: readonly string[]): Promise<KeyEdits> {
  return (await analyse(replaced, only)).edits;
}

async function analyse(replaced: Record<string, string> = {}, only?: readonly string[]) {
  const { config } = ts.readConfigFile(`${ROOT}tsconfig.json`, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => replaced[file] ?? readFile(file);
  const program = ts.createProgram([ENTRY], { ...options, noEmit: true }, host);
  const edits: KeyEdits = new Map();
  const layouts = {} as Record<KeyedElementName, TableLayout>;
  const problems: string[] = [];
  for (const [name, element] of Object.entries(KEYED_ELEMENTS) as [KeyedElementName, KeyedElement][]) {
    const table = ((await import(element.table)) as { default: Record<string, string> }).default;
    const { literals, computed } = findKeyUses(program, element, table, problems, only);
    const layout = (layouts[name] = literalLayout(table, computed));
    for (const [file, keys] of literals)
      edits.set(
        file,
        keys.map(([start, end, key]) => [start, end, layout.slots.indexOf(key)]),
      );
  }
  if (problems.length) throw new Error(`key-literals: in the script-tag bundles a translation key may be a number:\n${problems.join('\n')}`);
  return { edits, layouts };
}

/** The key uses of an element's modules (see `findKeyEdits` for `only`); a use the bundle would break goes to `problems`. */
function findKeyUses(program: ts.Program, element: KeyedElement, table: Record<string, string>, problems: string[], only?: readonly string[]): KeyUses {
  const checker = program.getTypeChecker();
  const { file: typeFile, name: typeName } = element.keyType;
  const keyDeclaration = program
    .getSourceFile(typeFile)
    ?.statements.find((node): node is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(node) && node.name.text === typeName);
  if (!keyDeclaration) throw new Error(`key-literals: no type ${typeName} in ${typeFile}`);
  const keyType = checker.getTypeAtLocation(keyDeclaration.name);
  const keyMembers = new Set(keyType.isUnion() ? keyType.types : [keyType]);
  if (keyMembers.size !== Object.keys(table).length) throw new Error(`key-literals: ${typeName} is not the keys of ${element.table}`);
  /** True when `type` holds every key: a value of it may be a key's slot number at run time. */
  const holdsKeys = (type: ts.Type | undefined): boolean =>
    !!type && (type === keyType || (type.isUnion() && [...keyMembers].every((member) => type.types.includes(member))));
  const isTable = (type: ts.Type) => Object.keys(table).every((key) => type.getProperty(key));

  /** True when every member of `type` is a key (a value of it may be a number at run time only if it holds them all). */
  const onlyKeys = (type: ts.Type): boolean => (type.isUnion() ? type.types : [type]).every((member) => keyMembers.has(member));

  const literals: KeyUses['literals'] = new Map();
  const computed = new Set<string>();
  const stringLiterals = new Set<string>();
  for (const file of program.getSourceFiles()) {
    if (!element.scope.test(file.fileName) || (only && !only.includes(file.fileName))) continue;
    const fileLiterals: [number, number, string][] = [];
    const problem = (node: ts.Node, what: string) => {
      const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
      problems.push(`${file.fileName}:${line + 1}:${character + 1}: ${node.getText(file)} ${what}`);
    };
    /** A key the code passes on, made of literals (numbers in the bundle) or computed (a string: its possible keys are hashed). */
    const keyValue = (node: ts.Expression, asserted = false): void => {
      if (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node)) return keyValue(node.expression, asserted);
      // An assertion changes no value: what it asserts is what may come (a word that is no key finds no text, in the sources too).
      if (isAssertion(node)) return keyValue(node.expression, true);
      if (ts.isConditionalExpression(node)) return (keyValue(node.whenTrue, asserted), keyValue(node.whenFalse, asserted));
      if (ts.isBinaryExpression(node) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(node.operatorToken.kind)) {
        return (keyValue(node.left, asserted), keyValue(node.right, asserted));
      }
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
        if (asserted && node.text in table) computed.add(node.text);
        return;
      }
      const type = checker.getTypeAtLocation(node);
      // A value of the whole key type is one the code was given as a key (a literal, so a number).
      if (!asserted && holdsKeys(valueType(node))) return;
      const members = type.isUnion() ? type.types : [type];
      if (asserted ? !members.every((member) => member.isStringLiteral()) : !onlyKeys(type)) {
        return problem(node, 'is a translation key TypeScript cannot list the keys of (not a union of keys)');
      }
      for (const member of members) if (keyMembers.has(member)) computed.add((member as ts.StringLiteralType).value);
    };
    const visit = (node: ts.Node): void => {
      // Types, and the names a declaration or an object literal gives, are not values.
      if (ts.isTypeNode(node) || ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
      if (ts.isIdentifier(node) && isDeclaredName(node)) return;
      if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && node.text in table && holdsKeys(checker.getContextualType(node))) {
        fileLiterals.push([node.getStart(file), node.getEnd(), node.text]);
      } else if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && node.text in table) {
        // A key written where no key is expected (`readonly label = 'tabLinks'` in a class whose interface
        // types `label` as a key; a field's name, `'amount'`) stays a string, and may reach `t()` as one.
        stringLiterals.add(node.text);
      } else if (
        isAssertion(node) &&
        !ts.isLiteralExpression(node.expression) &&
        onlyKeys(checker.getTypeAtLocation(node.type)) &&
        // Where a key is expected, `keyValue` reads what is asserted.
        !holdsKeys(checker.getContextualType(node)) &&
        // Naming a field that happens to be called as a key (`errors[path as 'amount']`) is no key.
        !(ts.isElementAccessExpression(node.parent) && node.parent.argumentExpression === node)
      ) {
        problem(node, 'asserts a translation key away from where one is expected: the keys it may be are lost (type the value as a union of keys instead)');
      } else if (ts.isExpression(node) && !ts.isLiteralExpression(node) && holdsKeys(valueType(node)) && !usedAsKey(node)) {
        problem(node, 'is used other than as a translation key');
      }
      // Where a key is expected: a computed one is found by name in the bundle.
      if (ts.isExpression(node) && holdsKeys(checker.getContextualType(node)) && !isKeyPart(node)) keyValue(node);
      ts.forEachChild(node, visit);
    };
    /**
     * The type of what `node` reads: a variable's or a property's declared type, not the type narrowed
     * where it is read (after `label === 'tabLinks' ||`, `label` is every key but one, and may still be a number).
     */
    const valueType = (node: ts.Expression): ts.Type => {
      const symbol =
        ts.isIdentifier(node) || ts.isPropertyAccessExpression(node) ? checker.getSymbolAtLocation(ts.isIdentifier(node) ? node : node.name) : undefined;
      return symbol && !(symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Method | ts.SymbolFlags.Class))
        ? checker.getTypeOfSymbol(symbol)
        : checker.getTypeAtLocation(node);
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
    if (fileLiterals.length) literals.set(file.fileName, fileLiterals);
  }
  return { literals, computed: new Set([...computed, ...stringLiterals]) };
}

/** `x as T` or `<T>x`. */
function isAssertion(node: ts.Node): node is ts.AsExpression | ts.TypeAssertion {
  return ts.isAsExpression(node) || ts.isTypeAssertionExpression(node);
}

/** True for an expression within a larger one that is a key where it stands (a branch of `a ? 'x' : 'y'`), which `keyValue` reads whole. */
function isKeyPart(node: ts.Expression): boolean {
  const { parent } = node;
  return (
    ts.isParenthesizedExpression(parent) ||
    ts.isNonNullExpression(parent) ||
    isAssertion(parent) ||
    (ts.isConditionalExpression(parent) && parent.condition !== node) ||
    (ts.isBinaryExpression(parent) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(parent.operatorToken.kind))
  );
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
      const keys = (Object.values(KEYED_ELEMENTS).some(({ scope }) => scope.test(id)) && (await keyEdits()).get(id)) || [];
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
