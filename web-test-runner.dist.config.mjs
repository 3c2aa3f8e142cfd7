/**
 * The admin's browser tests against the built `dist/paylink.js` instead of the sources
 * (`npm run test:browser:dist`, after `npm run build`). The script-tag build changes what the sources
 * say in ways the source tests cannot see: lean response parsers instead of zod, packed translation
 * tables, translation keys written as slot numbers (`scripts/key-literals.ts`). Here the element the
 * tests mount is the bundle's: the modules that define it are served as re-exports of the bundle.
 * `admin-resource.test.ts` tests the controllers on a host of its own and stays with the sources, as does
 * `admin-locales.test.ts`, which registers a readable table (the bundle reads packed ones by slot number);
 * `test/browser/dist/` tests the bundles themselves (the admin's French locale file).
 */
import config from './web-test-runner.config.mjs';

/**
 * The source modules that define `<paylink-admin>`, as the bundle with its French locale file (as a
 * page with both script tags: the sources have French built in).
 */
const FROM_DIST = {
  '/src/admin.ts': `import '/dist/paylink-admin.fr.js';\nexport * from '/dist/paylink.js';`,
  '/src/components/admin/paylink-admin.ts': `import '/dist/paylink-admin.fr.js';\nexport { PaylinkAdmin } from '/dist/paylink.js';`,
};

export default {
  ...config,
  files: ['test/browser/admin*.test.ts', '!test/browser/admin-resource.test.ts', '!test/browser/admin-locales.test.ts', 'test/browser/dist/*.test.ts'],
  plugins: [
    {
      name: 'paylink-admin-from-dist',
      serve(context) {
        const body = FROM_DIST[context.path];
        return body === undefined ? undefined : { body, type: 'js' };
      },
    },
    ...config.plugins,
  ],
};
