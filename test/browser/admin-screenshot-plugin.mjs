/**
 * A web-test-runner command for the admin's layout test: `admin-screenshot` saves a PNG of the
 * page, clipped to a box the test names, under `test-results/` (gitignored), for a person to look
 * at. The browser cannot write files, so the test runner's side takes the screenshot.
 *
 * Payload: `{name, clip: {x, y, width, height}}`; `name` becomes `test-results/<name>.png`.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const resultsDir = fileURLToPath(new URL('../../test-results/', import.meta.url));

/** The plugin to list in `plugins` of web-test-runner.config.mjs. */
export function adminScreenshotPlugin() {
  return {
    name: 'paylink-admin-screenshot',
    async executeCommand({ command, payload, session }) {
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
