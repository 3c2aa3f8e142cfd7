/**
 * `npm test`: every check, in stages. A stage's lanes run side by side, each lane's steps in order;
 * the next stage starts once every lane has passed. The checks that only read the sources (the type
 * check, then the format check) run beside the lints and the build, whose outputs the test suites need; each suite then has
 * the machine to itself, as its timeouts assume. The first lane of a stage prints as it goes, the
 * others when they end. The first failure fails the run (after its stage has ended); the last lines
 * are each step's time, for keeping the whole run within its budget.
 */
import { spawn } from 'node:child_process';

/** Stages of lanes of npm scripts. */
const STAGES: string[][][] = [
  [
    ['typecheck', 'format:check'],
    ['lint:openapi', 'lint:owasp', 'build'],
  ],
  [['test:server']],
  // Three instances behind HAProxy, PgBouncer and Prometheus under restarts: its own stage, as it loads the
  // machine (about two minutes).
  [['test:ops']],
  // The script-tag bundles' own tests (the admin's French file) are short; the admin's whole browser suite
  // against dist/paylink.js is `npm run test:browser:dist` (about two minutes more).
  [['test:browser', 'test:browser:bundles']],
  [['test:e2e']],
  [['test:consumer']],
];

const npm = process.env.npm_execpath;
const times: [string, number, boolean][] = [];

/** Runs one npm script; its output goes to this process's (live) or into `buffer`. */
function runScript(script: string, buffer?: string[]): Promise<boolean> {
  const args = ['run', script];
  const started = performance.now();
  const child = npm
    ? spawn(process.execPath, [npm, ...args], { stdio: buffer ? ['ignore', 'pipe', 'pipe'] : 'inherit' })
    : spawn('npm', args, { stdio: buffer ? ['ignore', 'pipe', 'pipe'] : 'inherit', shell: process.platform === 'win32' });
  if (buffer) {
    child.stdout!.on('data', (chunk: Buffer) => buffer.push(chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => buffer.push(chunk.toString()));
  }
  return new Promise((resolve) => {
    child.on('error', (error) => {
      buffer?.push(`${error.message}\n`);
      times.push([script, (performance.now() - started) / 1000, false]);
      resolve(false);
    });
    child.on('close', (code) => {
      times.push([script, (performance.now() - started) / 1000, code === 0]);
      resolve(code === 0);
    });
  });
}

/** Runs a lane's steps in order, up to the first that fails. */
async function runLane(lane: string[], live: boolean): Promise<boolean> {
  const buffer: string[] = [];
  let passed = true;
  for (const script of lane) {
    passed = await runScript(script, live ? undefined : buffer);
    if (!passed) break;
  }
  if (!live) process.stdout.write(`\n── ${lane.join(' → ')} ──\n${buffer.join('')}`);
  return passed;
}

const started = performance.now();
let failed = false;
for (const stage of STAGES) {
  const results = await Promise.all(stage.map((lane, index) => runLane(lane, index === 0)));
  if (results.includes(false)) {
    failed = true;
    break;
  }
}

const width = Math.max(...times.map(([script]) => script.length));
process.stdout.write("\nnpm test, each step (wall-clock seconds; a stage's lanes overlap):\n");
for (const [script, seconds, passed] of times)
  process.stdout.write(`  ${script.padEnd(width)}  ${seconds.toFixed(0).padStart(5)}${passed ? '' : '  FAILED'}\n`);
process.stdout.write(`  ${'total'.padEnd(width)}  ${((performance.now() - started) / 1000).toFixed(0).padStart(5)}\n`);
process.exit(failed ? 1 : 0);
