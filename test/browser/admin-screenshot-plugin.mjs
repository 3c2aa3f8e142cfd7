/**
 * Web-test-runner commands for the admin's layout test, run on the test runner's side (the browser
 * can neither write files nor read its own accessibility tree):
 * - `admin-screenshot` saves a PNG of the page, clipped to a box the test names, under
 *   `test-results/` (gitignored), for a person to look at. Payload: `{name, clip: {x, y, width, height}}`;
 *   `name` becomes `test-results/<name>.png`.
 * - `admin-accessible-names` answers the names Chromium's accessibility tree gives every node of
 *   `role` (what a screen reader announces, CSS generated content included). Payload: `{role}`.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const resultsDir = fileURLToPath(new URL('../../test-results/', import.meta.url));

/** The plugin to list in `plugins` of web-test-runner.config.mjs. */
export function adminScreenshotPlugin() {
  return {
    name: 'paylink-admin-screenshot',
    async executeCommand({ command, payload, session }) {
      if (command === 'admin-accessible-names') {
        const page = session.browser.getPage(session.id);
        const names = [];
        const walk = (node) => {
          if (node.role === payload?.role) names.push(node.name ?? '');
          for (const child of node.children ?? []) walk(child);
        };
        walk(await page.accessibility.snapshot({ interestingOnly: false }));
        return names;
      }
      if (command !== 'admin-screenshot') return undefined;
      const name = String(payload?.name ?? '');
      if (!/^[\w.-]+$/.test(name)) throw new Error(`admin-screenshot: bad name ${JSON.stringify(name)}`);
      const page = session.browser.getPage(session.id);
      await mkdir(resultsDir, { recursive: true });
      const path = `${resultsDir}${name}.png`;
      await page.screenshot({ path, clip: payload.clip, captureBeyondViewport: true });
      return path;
    },
  };
}
