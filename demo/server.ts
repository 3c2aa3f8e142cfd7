/**
 * `paylink demo` (`npm start`): the service on PGlite with the sandbox chain, seeded with a
 * demo merchant and links, printing the URLs to try.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openDatabase } from '../src/server/db/index.js';
import { startService } from '../src/server/service/serve.js';
import { seedDemo } from './seed.js';

export interface DemoOptions {
  port: number;
  host?: string | undefined;
  dataDir?: string | undefined;
  databaseUrl?: string | undefined;
}

export async function runDemo(options: DemoOptions, onSignal: (close: () => Promise<void>) => void): Promise<void> {
  const dataDir = options.dataDir ?? path.join('.paylink-data', 'demo');
  if (!options.databaseUrl) await mkdir(dataDir, { recursive: true });
  const db = await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.databaseUrl ? undefined : dataDir });
  const keyFile = path.join(options.databaseUrl ? '.paylink-data' : dataDir, 'demo-api-key');
  const previousKey = await readFile(keyFile, 'utf8').then((text) => text.trim(), () => undefined);
  const seed = await seedDemo(db, previousKey);
  await mkdir(path.dirname(keyFile), { recursive: true });
  await writeFile(keyFile, `${seed.apiKey}\n`, { mode: 0o600 });

  const service = await startService({ db, port: options.port, host: options.host ?? '127.0.0.1' });
  const url = service.url;
  process.stdout.write(
    [
      `Paylink demo running at ${url}`,
      `  sandbox API key: ${seed.apiKey}`,
      `  try: curl -H "X-API-KEY: ${seed.apiKey}" ${url}/v1/payment-link`,
      `  public link: ${url}/v1/checkout/${seed.slugs.store}`,
      '',
    ].join('\n'),
  );
  onSignal(async () => {
    await service.close();
    await db.close();
  });
}
