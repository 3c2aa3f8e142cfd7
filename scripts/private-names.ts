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
 * `test/scripts/private-names.test.ts` checks that too.
 *
 * Some classes are the bundles' own business although their members are public (`INTERNAL_CLASSES`):
 * the checkout's `CheckoutMachine` (its steps, in other modules, read its state; the element holds it
 * as an `@internal` member), `Localizer`, and the admin's controllers, tabs and texts; none is exported
 * by a browser entry. Their members take short names by the same rules, read through whatever type
 * the code gives them (`Pick<CheckoutMachine, …>`), except those read from outside: the React wrapper
 * reads the checkout's `machine.link` and `machine.session`; a member that a class it extends or an
 * interface it implements also names (a tab's `render`, read through `AdminTab`; a controller's
 * `hostConnected`, called by the element base), and every member of a type that an object of such a
 * class is given to (`host.addController(this)`) keeps its name. A string literal *type* (`'busy'`
 * in a `Pick`) never reaches run time, so it keeps no name.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Every browser entry: a module reached by one bundle only (the refund claim page's) must be read too. */
const ENTRIES = ['index', 'checkout', 'admin', 'refund'].map((name) => `${ROOT}src/${name}.ts`);
/** The browser sources whose private members are renamed (the server's are never bundled). */
const SCOPE = /[\\/]src[\\/](?!server[\\/]).*\.ts$/;

/** Classes whose public members are renamed too (see the module comment), and the members kept. */
const INTERNAL_CLASSES: readonly { file: string; name: string; keep: readonly string[] }[] = [
  { file: `${ROOT}src/components/checkout/checkout-machine.ts`, name: 'CheckoutMachine', keep: ['link', 'session'] },
  { file: `${ROOT}src/components/checkout/checkout-state.ts`, name: 'CheckoutState', keep: ['link', 'session'] },
  { file: `${ROOT}src/internal/localize.ts`, name: 'Localizer', keep: [] },
  ...[
    'links/link-detail.ts:LinkDetailController',
    'links/link-payments.ts:LinkPaymentsController',
    'links/link-form-model.ts:LinkFormModel',
    'links/links-view.ts:LinksListController',
    'money/money-view.ts:BalanceController',
    'money/withdrawal-history.ts:WithdrawalHistoryController',
    'orders/orders-view.ts:OrdersListController',
    'payments/payment-detail.ts:PaymentDetailController',
    'webhooks/webhook-detail.ts:WebhookDetailController',
    'webhooks/webhook-form.ts:WebhookFormController',
    'webhooks/webhooks-view.ts:EndpointsListController',
    'networks.ts:NetworkDirectory',
    'admin-context.ts:AdminText',
    'links/link-form.ts:LinkFormController',
    'links/links-tab.ts:LinksTab',
    'money/money-tab.ts:MoneyTab',
    'orders/orders-tab.ts:OrdersTab',
    'payments/payments-tab.ts:PaymentsTab',
    'webhooks/webhooks-tab.ts:WebhooksTab',
    'resource-controller.ts:ResourceController',
    'resource-controller.ts:PagedResource',
    'poll-controller.ts:PollController',
    'money/withdraw-form.ts:WithdrawController',
    'payments/payments-view.ts:PaymentsListController',
  ].map((entry) => {
    const [file, name] = entry.split(':');
    return { file: `${ROOT}src/components/admin/${file}`, name: name!, keep: [] };
  }),
];

/**
 * True for a member of one of `INTERNAL_CLASSES` that takes a short name whether private or not: not
 * one that a class it extends or an interface it implements also names (`render` of a tab, read through
 * `AdminTab`; `hostConnected` of a controller, called by the element base), unless that class is internal too.
 */
function isInternalMember(node: ts.ClassElement | ts.ParameterDeclaration, name: string, checker: ts.TypeChecker): boolean {
  const owner = node.parent;
  return ts.isClassDeclaration(owner) && !(ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Static) && renamable(owner, name, checker);
}

/** True when class `owner` is internal and `name` may be renamed in it and in every class it extends (see `isInternalMember`). */
function renamable(owner: ts.ClassDeclaration, name: string, checker: ts.TypeChecker): boolean {
  const internal = INTERNAL_CLASSES.find((entry) => entry.file === owner.getSourceFile().fileName && entry.name === owner.name?.text);
  if (!internal || internal.keep.includes(name)) return false;
  for (const clause of owner.heritageClauses ?? [])
    for (const heritage of clause.types) {
      const base = checker.getTypeAtLocation(heritage).getProperty(name);
      const declaration = base?.declarations?.[0]?.parent;
      if (base && !(declaration && ts.isClassDeclaration(declaration) && renamable(declaration, name, checker))) return false;
    }
  return true;
}

/** Each module's renames: `[start, end, name]` in its source as read from disk. */
export type NameEdits = Map<string, [start: number, end: number, name: string][]>;

/** What `privateRenames` found: the edits, and the new name of each renamed member name. */
export interface PrivateRenames {
  edits: NameEdits;
  names: Map<string, string>;
  /** The renamed names of `INTERNAL_CLASSES`' public members (read as `other.member` too). */
  internal: Set<string>;
}

let found: PrivateRenames | undefined;

/** The renames of the browser sources (a TypeScript program of them: some seconds, once per process). */
export function privateRenames(): PrivateRenames {
  return (found ??= findPrivateRenames());
}

function findPrivateRenames(): PrivateRenames {
  const { config } = ts.readConfigFile(`${ROOT}tsconfig.json`, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const program = ts.createProgram(ENTRIES, { ...options, noEmit: true });
  const checker = program.getTypeChecker();
  const files = program.getSourceFiles().filter((file) => SCOPE.test(file.fileName) && !file.isDeclarationFile);

  // The private members, and every name the sources could reach them by other than a reference.
  const members = new Map<ts.Symbol, string>();
  const internalNames = new Set<string>();
  const unsafe = new Set<string>();
  const identifiers = new Set<string>();
  for (const file of files) {
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) identifiers.add(node.text);
      if (ts.isStringLiteralLike(node) && !ts.isLiteralTypeNode(node.parent)) unsafe.add(node.text);
      if (ts.isTemplateExpression(node)) for (const span of [node.head, ...node.templateSpans.map((s) => s.literal)]) unsafe.add(span.text);
      // A class's `static properties` name its members for the element base to read at run time.
      if (ts.isObjectLiteralElementLike(node) && node.name && ts.isIdentifier(node.name) && inStaticInitializer(node)) unsafe.add(node.name.text);
      if (
        (ts.isPropertyDeclaration(node) ||
          ts.isMethodDeclaration(node) ||
          ts.isGetAccessor(node) ||
          ts.isSetAccessor(node) ||
          ts.isParameterPropertyDeclaration(node, node.parent)) &&
        ts.isIdentifier(node.name) &&
        (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Private || (!ts.isParameter(node) && isInternalMember(node, node.name.text, checker)))
      ) {
        // A parameter property (`constructor(private host: …)`) is two symbols: the property, and the
        // parameter the constructor's body reads as `host`; both take the short name.
        const symbols = ts.isParameter(node)
          ? checker.getSymbolsOfParameterPropertyDeclaration(node, node.name.text)
          : [checker.getSymbolAtLocation(node.name)];
        for (const symbol of symbols) if (symbol) members.set(symbol, node.name.text);
        if (!(ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Private)) internalNames.add(node.name.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }

  /** The internal classes' declarations, to know their objects by their types. */
  const internalDeclarations = new Set<ts.Declaration>(
    [...members.keys()].flatMap((symbol) => symbol.declarations ?? []).map((declaration) => declaration.parent as ts.Declaration),
  );
  /** Where an object of an internal class is given to another type, that type's members keep their names. */
  const keepNamesOfTarget = (node: ts.Expression | ts.Identifier): void => {
    const declaration = checker.getTypeAtLocation(node).getSymbol()?.declarations?.[0];
    if (!declaration || !internalDeclarations.has(declaration)) return;
    const target = checker.getContextualType(node as ts.Expression);
    if (!target || target.getSymbol()?.declarations?.[0] === declaration) return;
    // A view of the class itself (`Pick<CheckoutMachine, …>`) reads the class's own members.
    for (const property of target.getProperties()) if (!checker.getRootSymbols(property).some((root) => members.has(root))) unsafe.add(property.name);
  };

  /** The member a symbol stands for: itself, or, read through a mapped or combined type (`Pick<…>`, `A & B`), its root. */
  const memberOf = (symbol: ts.Symbol | undefined): ts.Symbol | undefined =>
    symbol && (members.has(symbol) ? symbol : checker.getRootSymbols(symbol).find((root) => members.has(root)));

  // Every reference of a member: a declaration's name or the name of `x.member`; anything else makes it unsafe.
  const references = new Map<ts.Symbol, [ts.SourceFile, ts.Identifier][]>();
  for (const file of files) {
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node)) {
        const symbol = checker.getSymbolAtLocation(node);
        const member = memberOf(symbol);
        const name = member && members.get(member);
        if (name !== undefined) {
          const { parent } = node;
          const plain =
            (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
            ((parent as { name?: ts.Node }).name === node && !ts.isShorthandPropertyAssignment(parent) && !ts.isBindingElement(parent)) ||
            // A parameter property's parameter, read in its constructor as a variable.
            (symbol!.flags & ts.SymbolFlags.FunctionScopedVariable && !ts.isShorthandPropertyAssignment(parent));
          if (plain) references.set(member!, [...(references.get(member!) ?? []), [file, node]]);
          else unsafe.add(name);
        }
        // An internal class's object given where another type is expected (`host.addController(this)`):
        // that type reads its members by their names.
        keepNamesOfTarget(node);
        // `const { member } = this`: the binding reads the member by its name.
        if (ts.isBindingElement(node.parent) && (node.parent.propertyName ?? node.parent.name) === node) {
          const property = checker.getTypeAtLocation(node.parent.parent).getProperty(node.text);
          if (memberOf(property)) unsafe.add(node.text);
        }
      }
      if (node.kind === ts.SyntaxKind.ThisKeyword || ts.isNewExpression(node) || ts.isPropertyAccessExpression(node)) keepNamesOfTarget(node as ts.Expression);
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
  return { edits, names, internal: new Set([...internalNames].filter((name) => names.has(name))) };
}

/** True inside the initializer of a class's static member. */
function inStaticInitializer(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isPropertyDeclaration(at)) return !!(ts.getCombinedModifierFlags(at) & ts.ModifierFlags.Static);
    if (ts.isClassLike(at) || ts.isSourceFile(at)) return false;
  }
  return false;
}
