/**
 * The attacker of test/support/hard.ts as a process of its own (another machine, as far as the service
 * can tell: its event loop, busy with thousands of sockets, must not delay the customer's requests timed
 * in the test's process): receives one flood's name and arguments over IPC, runs it, sends back its figures.
 */
import { demoFloods } from './hard-demo.js';
import { floods, type FloodName } from './hard.js';

const all = { ...floods, ...demoFloods };

process.once('message', async ({ name, args }: { name: FloodName; args: unknown[] }) => {
  const figures = await (all[name] as (...args: unknown[]) => Promise<unknown>)(...args);
  process.send!(figures, () => process.exit(0));
});
