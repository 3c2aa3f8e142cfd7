/**
 * In the script-tag bundles, a member TypeScript declares `private` (`private host`, `private loadView()`)
 * gets a short name (`$a`): the minifier shortens local names but keeps property names, and the
 * elements' controllers write `this.host.…`, `this.formError` hundreds of times.
 *
 * TypeScript decides what is the member: each reference of its symbol is renamed (`this.host` in its
 * class, not `link.host` of a URL), and a private member can only be referenced from its class's body,
 * so a module is renamed whole or not at all. A member is left as it is where its name could be
 * reached another way: written as a string anywhere in the browser sources (`changed.has('view')`,
 * `this[name]`), as an object literal's property name (a `static properties` entry), or referenced
 * other than as `x.name` or its declaration (destructuring). The public API is never private, so its
 * names (attributes, properties, events, methods in custom-elements.json and the .d.ts) stay;
 * `test/server/private-names.test.ts` checks that too.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = `${ROOT}src/index.ts`;
/** The browser sources whose private members are renamed (the server's are never bundled). */
const SCOPE = /[\\/]src[\\/](?!server[\\/]).*\.ts$/;

/** Each module's renames: `[start, end, name]` in its source as read from disk. */
export type NameEdits = Map<string, [start: number, end: number, name: string][]>;

/** What `privateRenames` found: the edits, and the new name of each renamed member name. */
export interface PrivateRenames {
  edits: NameEdits;
  names: Map<string, string>;
}

let found: PrivateRenames | undefined;

/** The renames of the browser sources (a TypeScript program of them: some seconds, once per process). */
export function privateRenames(): PrivateRenames {
  return (found ??= findPrivateRenames());
}

function findPrivateRenames(): PrivateRenames {
  const { config } = ts.readConfigFile(`${ROOT}tsconfig.json`, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const program = ts.createProgram([ENTRY], { ...options, noEmit: true });
  const checker = program.getTypeChecker();
  const files = program.getSourceFiles().filter((file) => SCOPE.test(file.fileName) && !file.isDeclarationFile);

  // The private members, and every name the sources could reach them by other than a reference.
  const members = new Map<ts.Symbol, string>();
  const unsafe = new Set<string>();
  const identifiers = new Set<string>();
  for (const file of files) {
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) identifiers.add(node.text);
      if (ts.isStringLiteralLike(node)) unsafe.add(node.text);
      if (ts.isTemplateExpression(node)) for (const span of [node.head, ...node.templateSpans.map((s) => s.literal)]) unsafe.add(span.text);
      // A class's `static properties` name its members for the element base to read at run time.
      if (ts.isObjectLiteralElementLike(node) && node.name && ts.isIdentifier(node.name) && inStaticInitializer(node)) unsafe.add(node.name.text);
      if ((ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node) || ts.isParameterPropertyDeclaration(node, node.parent)) &&
        ts.isIdentifier(node.name) && ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Private) {
        // A parameter property (`constructor(private host: …)`) is two symbols: the property, and the
        // parameter the constructor's body reads as `host`; both take the short name.
        const symbols = ts.isParameter(node) ? checker.getSymbolsOfParameterPropertyDeclaration(node, node.name.text) : [checker.getSymbolAtLocation(node.name)];
        for (const symbol of symbols) if (symbol) members.set(symbol, node.name.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }

  // Every reference of a member: a declaration's name or the name of `x.member`; anything else makes it unsafe.
  const references = new Map<ts.Symbol, [ts.SourceFile, ts.Identifier][]>();
  for (const file of files) {
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) {
        const symbol = checker.getSymbolAtLocation(node);
        const name = symbol && members.get(symbol);
        if (name !== undefined) {
          const { parent } = node;
          const plain =
            (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
            ((parent as { name?: ts.Node }).name === node && !ts.isShorthandPropertyAssignment(parent) && !ts.isBindingElement(parent)) ||
            // A parameter property's parameter, read in its constructor as a variable.
            (symbol!.flags & ts.SymbolFlags.FunctionScopedVariable && !ts.isShorthandPropertyAssignment(parent));
          if (plain) references.set(symbol!, [...(references.get(symbol!) ?? []), [file, node]]);
          else unsafe.add(name);
        }
        // `const { member } = this`: the binding reads the member by its name.
        if (ts.isBindingElement(node.parent) && (node.parent.propertyName ?? node.parent.name) === node) {
          const property = checker.getTypeAtLocation(node.parent.parent).getProperty(node.text);
          if (property && members.has(property)) unsafe.add(node.text);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }

  // Short names by how often a member name is written, none of them a name the sources use already.
  const counts = new Map<string, number>();
  for (const [symbol, refs] of references) {
    const name = members.get(symbol)!;
    if (!unsafe.has(name)) counts.set(name, (counts.get(name) ?? 0) + refs.length);
  }
  const names = new Map<string, string>();
  let next = 0;
  const shortName = (): string => {
    for (;;) {
      const candidate = `$${(next++).toString(36)}`;
      if (!identifiers.has(candidate) && !unsafe.has(candidate)) return candidate;
    }
  };
  for (const [name] of [...counts].sort((a, b) => b[1] - a[1])) names.set(name, shortName());

  const edits: NameEdits = new Map();
  for (const [symbol, refs] of references) {
    const short = names.get(members.get(symbol)!);
    if (short === undefined) continue;
    for (const [file, node] of refs) {
      const list = edits.get(file.fileName) ?? [];
      list.push([node.getStart(file), node.getEnd(), short]);
      edits.set(file.fileName, list);
    }
  }
  for (const list of edits.values()) list.sort((a, b) => a[0] - b[0]);
  return { edits, names };
}

/** True inside the initializer of a class's static member. */
function inStaticInitializer(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isPropertyDeclaration(at)) return !!(ts.getCombinedModifierFlags(at) & ts.ModifierFlags.Static);
    if (ts.isClassLike(at) || ts.isSourceFile(at)) return false;
  }
  return false;
}
