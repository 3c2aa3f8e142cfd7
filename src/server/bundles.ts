/**
 * Serving the script-tag bundles (`dist/`) of the installed package: the service mounts it at
 * `/dist/*`, the proxy at `basePath/dist/*`, the demo through the service. A storefront may load the
 * checkout from its own origin (through its proxy) or from the service.
 *
 * - Names: those of `dist/manifest.json` only: each bundle's versioned file (`paylink-checkout.0.1.0.js`,
 *   cached for a year, `immutable`), its alias (`paylink-checkout.js`, the current version, cached for
 *   5 minutes), and `manifest.json` itself (sizes and SRI hashes). Anything else is the service's JSON
 *   404, so no path can reach another file.
 * - Compression: the `.br` and `.gz` files the build wrote, chosen by `Accept-Encoding` (brotli first).
 * - Revalidation: a strong `ETag` per encoding; `If-None-Match` gets a 304.
 * - Cross-origin: module scripts are fetched with CORS, so every answer carries
 *   `Access-Control-Allow-Origin: *` and `Cross-Origin-Resource-Policy: cross-origin` (a page with
 *   COEP may embed it). Nothing here is private.
 *
 * Node only (it reads files); the files are read once and kept in memory, and read again when the
 * manifest changes on disk (a rebuild while the demo runs); until then, and while the build has
 * removed them, the ones read last are served.
 */
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { defaultLogger } from './log.js';

/** Cache of a versioned file: its bytes never change for a version. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
/** Cache of an alias and of the manifest: they move to the next version when the package is upgraded. */
export const ALIAS_CACHE = 'public, max-age=300';

/** Serves one file of `dist/` by name (no directories): what the service and the proxy mount at `/dist/*`. */
export type BundleHandler = (request: Request, fileName: string) => Promise<Response>;

/** Options of {@link createBundleHandler}. */
export interface BundleHandlerOptions {
  /** The folder of the built bundles (default: this package's `dist/`). */
  distDir?: string | URL;
}

type Encoding = 'br' | 'gzip' | 'identity';

type Bytes = Uint8Array<ArrayBuffer>;

interface Representation {
  body: Bytes;
  etag: string;
}

interface Asset {
  contentType: string;
  cacheControl: string;
  /** Keyed by encoding; `identity` is always there. */
  representations: Partial<Record<Encoding, Representation>> & { identity: Representation };
}

interface Loaded {
  /** The manifest's modification time when it was read. */
  version: number;
  assets: Map<string, Asset>;
}

interface ManifestEntry {
  versioned?: string;
  integrity?: string;
}

/** This package's `dist/`: two levels up from `src/server/` and from `lib/server/` alike. */
const PACKAGE_DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function jsonError(statusCode: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ status: 'error', statusCode, code, message }), {
    status: statusCode,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
      ...headers,
    },
  });
}

/** `"<first 27 base64url characters of SHA-384>-<encoding>"`: from the SRI hash when the manifest has it. */
async function etagOf(body: Bytes, encoding: Encoding, integrity?: string): Promise<string> {
  let hash = integrity?.startsWith('sha384-') ? integrity.slice(7) : '';
  if (!hash) hash = Buffer.from(await crypto.subtle.digest('SHA-384', body)).toString('base64');
  const token = hash.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '').slice(0, 27);
  return `"${token}${encoding === 'identity' ? '' : `-${encoding}`}"`;
}

async function readIfPresent(file: string): Promise<Bytes | undefined> {
  try {
    return new Uint8Array(await readFile(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The encoding to send: brotli, else gzip, else none; `q=0` refuses one, `*` stands for the unnamed. */
export function chooseEncoding(acceptEncoding: string | null, available: Iterable<Encoding>): Encoding {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    accepted.set(name, Number.isFinite(quality) ? quality : 0);
  }
  const wants = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  const have = new Set(available);
  if (have.has('br') && wants('br')) return 'br';
  if (have.has('gzip') && wants('gzip')) return 'gzip';
  return 'identity';
}

/** True when `If-None-Match` names `etag` (weak comparison, as RFC 9110 asks of it) or is `*`. */
function notModified(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** A handler serving the bundles of `distDir` (default: this package's `dist/`). */
export function createBundleHandler(options: BundleHandlerOptions = {}): BundleHandler {
  const distDir = options.distDir === undefined ? PACKAGE_DIST : options.distDir instanceof URL ? fileURLToPath(options.distDir) : options.distDir;
  const manifestFile = path.join(distDir, 'manifest.json');
  let loading: Promise<Loaded | undefined> | undefined;

  async function load(version: number): Promise<Loaded> {
    const manifestBytes = new Uint8Array(await readFile(manifestFile));
    const manifest = JSON.parse(new TextDecoder().decode(manifestBytes)) as Record<string, ManifestEntry>;
    const assets = new Map<string, Asset>();
    assets.set('manifest.json', {
      contentType: 'application/json; charset=utf-8',
      cacheControl: ALIAS_CACHE,
      representations: { identity: { body: manifestBytes, etag: await etagOf(manifestBytes, 'identity') } },
    });
    for (const [alias, entry] of Object.entries(manifest)) {
      const versioned = entry.versioned;
      if (!NAME.test(alias) || !alias.endsWith('.js') || !versioned || !NAME.test(versioned)) continue;
      const body = await readIfPresent(path.join(distDir, versioned));
      if (!body) continue;
      const representations: Asset['representations'] = { identity: { body, etag: await etagOf(body, 'identity', entry.integrity) } };
      for (const [encoding, suffix] of [
        ['br', '.br'],
        ['gzip', '.gz'],
      ] as const) {
        const compressed = await readIfPresent(path.join(distDir, versioned + suffix));
        if (compressed) representations[encoding] = { body: compressed, etag: await etagOf(body, encoding, entry.integrity) };
      }
      const contentType = 'text/javascript; charset=utf-8';
      assets.set(versioned, { contentType, cacheControl: IMMUTABLE_CACHE, representations });
      // The alias has the same bytes: the same ETags, a short cache.
      assets.set(alias, { contentType, cacheControl: ALIAS_CACHE, representations });
    }
    return { version, assets };
  }

  /**
   * The assets, read again when the manifest changed on disk; undefined when nothing was ever read. While
   * the bundles are rebuilt (the manifest gone, or caught half-written), the last ones read are served:
   * a running demo or service never answers 404 for a bundle it served a moment ago.
   */
  async function current(): Promise<Loaded | undefined> {
    const last = await loading;
    let version: number;
    try {
      version = (await stat(manifestFile)).mtimeMs;
    } catch {
      return last;
    }
    if (last?.version === version) return last;
    loading = load(version).catch((error: unknown) => {
      // A manifest caught mid-rewrite reads again on the next request (its time changes once written).
      defaultLogger.error('bundles_unreadable', 'cannot read the bundles', { error });
      return last;
    });
    return loading;
  }

  return async (request, fileName) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return jsonError(405, 'method_not_allowed', `${request.method} is not allowed on bundles; use GET`, { allow: 'GET, HEAD' });
    }
    const loaded = NAME.test(fileName) ? await current() : undefined;
    const asset = loaded?.assets.get(fileName);
    if (!asset) {
      const known = loaded ? [...loaded.assets.keys()].sort().join(', ') : 'none: the bundles are not built (npm run build)';
      return jsonError(404, 'not_found', `No bundle named ${JSON.stringify(fileName.slice(0, 100))}. Bundles: ${known}`);
    }
    const encoding = chooseEncoding(request.headers.get('accept-encoding'), Object.keys(asset.representations) as Encoding[]);
    const representation = asset.representations[encoding] ?? asset.representations.identity;
    const headers = new Headers({
      'content-type': asset.contentType,
      'cache-control': asset.cacheControl,
      etag: representation.etag,
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
      'timing-allow-origin': '*',
      'x-content-type-options': 'nosniff',
    });
    if (Object.keys(asset.representations).length > 1) headers.set('vary', 'Accept-Encoding');
    if (notModified(request.headers.get('if-none-match'), representation.etag)) {
      headers.delete('content-type');
      return new Response(null, { status: 304, headers });
    }
    if (encoding !== 'identity') headers.set('content-encoding', encoding);
    headers.set('content-length', String(representation.body.length));
    return new Response(request.method === 'HEAD' ? null : representation.body, { status: 200, headers });
  };
}

/** Serves this package's built bundles: `serveBundle(request, 'paylink-checkout.js')`. */
export const serveBundle: BundleHandler = createBundleHandler();
