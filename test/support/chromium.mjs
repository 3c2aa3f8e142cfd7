/**
 * How every test and benchmark starts Chromium: Debian's build (never a downloaded one) with the
 * flags this closed-network, root, GPU-less machine needs. Plain ESM so that
 * web-test-runner.config.mjs can import it as well as the TypeScript tests.
 */
export const CHROME_PATH = process.env.CHROME_PATH || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];
