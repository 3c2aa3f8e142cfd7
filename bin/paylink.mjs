#!/usr/bin/env node
// The `paylink` command. The sources are TypeScript; tsx compiles them on load so the
// command works straight after `npm install`, with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/server/cli.ts');
