/**
 * Serves React to the browser tests as ES modules: `react`, `react-dom/client` and `react-dom/server`
 * ship CommonJS only, which the test runner's node resolution does not convert. esbuild bundles the
 * three once (production builds, one shared React), split so that every specifier gets the same copy.
 */
import { build } from 'esbuild';

/** Each specifier the tests (and `paylink/react`) import, with the names it exports. */
const ENTRIES = {
  react: `import * as React from 'react'; export default React;
    export const { createElement, useCallback, useLayoutEffect, useRef, useState, Fragment } = React;`,
  'react-dom/client': `export { createRoot, hydrateRoot } from 'react-dom/client';`,
  'react-dom/server': `export { renderToString } from 'react-dom/server.browser';`,
};
const fileOf = (specifier) => `${specifier.replace(/\//g, '-')}.js`;

export function reactEsmPlugin() {
  let files;
  const bundle = async () => {
    const result = await build({
      stdin: undefined,
      entryPoints: Object.keys(ENTRIES).map((specifier) => ({ in: `virtual:${specifier}`, out: fileOf(specifier).replace(/\.js$/, '') })),
      plugins: [
        {
          name: 'virtual-entries',
          setup(esbuild) {
            esbuild.onResolve({ filter: /^virtual:/ }, (args) => ({ path: args.path.slice('virtual:'.length), namespace: 'virtual' }));
            esbuild.onLoad({ filter: /.*/, namespace: 'virtual' }, (args) => ({ contents: ENTRIES[args.path], resolveDir: process.cwd(), loader: 'js' }));
          },
        },
      ],
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'browser',
      outdir: '/__react',
      write: false,
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    });
    return new Map(result.outputFiles.map((file) => [file.path, file.text]));
  };
  return {
    name: 'react-esm',
    resolveImport({ source }) {
      if (source in ENTRIES) return `/__react/${fileOf(source)}`;
    },
    async serve(context) {
      if (!context.path.startsWith('/__react/')) return undefined;
      files ??= bundle();
      const body = (await files).get(context.path);
      return body === undefined ? undefined : { body, type: 'js' };
    },
  };
}
