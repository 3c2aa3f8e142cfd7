/**
 * The Mocha globals web-test-runner provides in the browser (no `@types/mocha` in the project).
 * Declared as functions so another test folder's declarations of the same names merge with these.
 */
declare function describe(title: string, body: (this: unknown) => void): void;
declare function it(title: string, body: (this: unknown) => void | Promise<void>): void;
declare function before(body: () => void | Promise<void>): void;
declare function after(body: () => void | Promise<void>): void;
declare function beforeEach(body: () => void | Promise<void>): void;
declare function afterEach(body: () => void | Promise<void>): void;
