/**
 * Vite configuration of the browser builds. `scripts/build.ts` (`npm run build`) runs one library
 * build per script-tag bundle with `libraryBuild()`, so each file is self-contained: no imports,
 * no shared chunks, Lit and the QR encoder inlined.
 *
 * Lit's decorators need TypeScript's legacy decorators and `useDefineForClassFields: false`
 * (a native class field would shadow Lit's reactive accessors); both are set here explicitly so
 * the build never depends on how the transformer reads tsconfig.json.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig, type InlineConfig, type Plugin } from 'vite';
import { keyLiteralsPlugin } from './scripts/key-literals.js';
import { leanSchemasPlugin } from './scripts/lean-schemas.js';
import { litHooksPlugin } from './scripts/lit-hooks.js';
import { cssPrivateClassesPlugin } from './scripts/css-private-classes.js';
import { cssPrivateVarsPlugin } from './scripts/css-private-vars.js';
import { litStaticPlugin } from './scripts/lit-static.js';
import { minifyLiteralsPlugin } from './scripts/minify-literals.js';
import { noEvalPlugin } from './scripts/no-eval.js';
import { packedTablesPlugin } from './scripts/packed-tables.js';
import { terserPassPlugin } from './scripts/terser-pass.js';

const root = fileURLToPath(new URL('.', import.meta.url));

const shared: InlineConfig = {
  root,
  configFile: false,
  logLevel: 'warn',
  // keyLiteralsPlugin first: it edits the browser sources as they are on disk (key literals, private names);
  // the admin's class names are renamed in its templates before they are minified.
  plugins: [keyLiteralsPlugin(), leanSchemasPlugin(), cssPrivateClassesPlugin(), minifyLiteralsPlugin(), noEvalPlugin(), litHooksPlugin()],
  oxc: {
    decorator: { legacy: true },
    typescript: { removeClassFieldsWithoutInitializer: true },
    assumptions: { setPublicClassFields: true },
  },
};

/** How `libraryBuild` builds a bundle beyond its entry. */
export interface BundleOptions {
  /**
   * The bundle renders plain templates only, so lit-html's directive support goes
   * (`scripts/lit-static.ts`, which refuses a bundle where it is needed); `{keep}` names the parts of
   * lit-html the bundle still needs (`LIGHT_ELEMENT_PARTS` for the light elements).
   */
  staticLit?: boolean;
  /** With `staticLit`: the bundle calls `render()` with options (`{ host }`), whose support stays. */
  renderOptions?: boolean;
  /**
   * Modules (paths from the root) the bundle leaves out: an import of one imports nothing. For a
   * module of side effects only that another file brings instead (the admin's French, `dist/paylink-admin.fr.js`).
   */
  leaveOut?: readonly string[];
  /** A locale file: its translation tables do not bring their English fallback (`scripts/packed-tables.ts`). */
  standaloneTables?: boolean;
}

/** The Vite/Rolldown plugin that makes the modules of `paths` (from the root) empty. */
function leaveOutPlugin(paths: readonly string[]): Plugin {
  const ids = new Set(paths.map((file) => fileURLToPath(new URL(file, import.meta.url))));
  return {
    name: 'paylink:leave-out',
    enforce: 'pre',
    load: (id) => (ids.has(id) ? 'export {};' : null),
  };
}

/** The config of one self-contained ES module bundle: `entry` (under src/) → `dist/<fileName>`. */
export function libraryBuild(entry: string, fileName: string, options: BundleOptions = {}): InlineConfig {
  return {
    ...shared,
    plugins: [
      ...(options.leaveOut?.length ? [leaveOutPlugin(options.leaveOut)] : []),
      ...shared.plugins!,
      packedTablesPlugin(options.standaloneTables),
      ...(options.staticLit ? [litStaticPlugin({ renderOptions: options.renderOptions })] : []),
      terserPassPlugin(),
      // After Terser's pass, which leaves out the comments (a doc comment may name `--_*`).
      cssPrivateVarsPlugin(),
    ],
    build: {
      outDir: 'dist',
      emptyOutDir: false,
      target: 'es2022',
      minify: true,
      sourcemap: false,
      reportCompressedSize: false,
      copyPublicDir: false,
      lib: { entry: fileURLToPath(new URL(entry, import.meta.url)), formats: ['es'], fileName: () => fileName },
      // Vite keeps whitespace in ES library builds, and the minifier keeps `/* @__PURE__ */` notes
      // for a later bundler; a script-tag bundle is the last step and wants both gone.
      rolldownOptions: { output: { codeSplitting: false, minify: true, comments: false } },
    },
  };
}

export default defineConfig({ ...shared, ...libraryBuild('./src/index.ts', 'paylink.js') });
