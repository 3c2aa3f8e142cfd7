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
import { defineConfig, type InlineConfig } from 'vite';
import { keyLiteralsPlugin } from './scripts/key-literals.js';
import { leanSchemasPlugin } from './scripts/lean-schemas.js';
import { litHooksPlugin } from './scripts/lit-hooks.js';
import { litStaticPlugin } from './scripts/lit-static.js';
import { minifyLiteralsPlugin } from './scripts/minify-literals.js';
import { noEvalPlugin } from './scripts/no-eval.js';
import { packedTablesPlugin } from './scripts/packed-tables.js';

const root = fileURLToPath(new URL('.', import.meta.url));

const shared: InlineConfig = {
  root,
  configFile: false,
  logLevel: 'warn',
  // keyLiteralsPlugin first: it edits the admin's sources as they are on disk.
  plugins: [keyLiteralsPlugin(), leanSchemasPlugin(), packedTablesPlugin(), minifyLiteralsPlugin(), noEvalPlugin(), litHooksPlugin()],
  oxc: {
    decorator: { legacy: true },
    typescript: { removeClassFieldsWithoutInitializer: true },
    assumptions: { setPublicClassFields: true },
  },
};

/**
 * The config of one self-contained ES module bundle: `entry` (under src/) → `dist/<fileName>`.
 * `staticLit`: the bundle renders plain templates only, so lit-html's directive support goes
 * (`scripts/lit-static.ts`, which refuses a bundle where it is needed).
 */
export function libraryBuild(entry: string, fileName: string, options: { staticLit?: boolean } = {}): InlineConfig {
  return {
    ...shared,
    plugins: [...shared.plugins!, ...(options.staticLit ? [litStaticPlugin()] : [])],
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
