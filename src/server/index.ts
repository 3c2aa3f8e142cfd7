/**
 * `paylink/server`: the Payment Link and Crypto Withdrawal Service as a library — start it on a
 * port, or build its Hono app to mount elsewhere, on PGlite or PostgreSQL.
 */
export { createApp, type ServiceDeps } from './service/app.js';
export { startService, type RunningService, type ServiceOptions } from './service/serve.js';
export { openDatabase, migrate, DataDirInUseError, type Database, type OpenDatabaseOptions, type Queryable } from './db/index.js';
export { createApiKey, type CreatedKey, type Principal } from './service/keys/index.js';
export { createSandboxChain } from './chain/sandbox/index.js';
export { createBundleHandler, serveBundle, type BundleHandler, type BundleHandlerOptions } from './bundles.js';
export type { ChainAdapter, Network } from './chain/types.js';
export { RateConfigError, type RateOptions, type RateSourceName } from './service/rates/index.js';
