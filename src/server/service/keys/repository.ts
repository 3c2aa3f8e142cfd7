/**
 * The SQL of `integrators` and `api_keys`: nothing else in the service writes these tables. Keys are
 * stored only as SHA-256 digests, each tied to one integrator and one user.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/index.js';

/** Who a valid key speaks for. */
export interface Principal {
  integratorId: string;
  userId: string;
  keyId: string;
}

const KEY_PREFIX = 'pl_sk_';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `count` random characters of [A-Za-z0-9], without modulo bias. */
export function randomAlphanumeric(count: number): string {
  let out = '';
  while (out.length < count) {
    for (const byte of randomBytes(count * 2)) {
      // 248 = 4 * 62: bytes at or above it would favour the first characters.
      if (byte < 248 && out.length < count) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** The digest a key is stored and looked up by. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export interface CreatedKey {
  key: string;
  keyId: string;
  integratorId: string;
  userId: string;
}

/**
 * Creates a key. Without `integratorId` a new integrator (and user) is created for it; with one,
 * the key is another key of that integrator.
 */
export async function createApiKey(db: Queryable, options: { name?: string; integratorId?: string; userId?: string } = {}): Promise<CreatedKey> {
  // The integrator's name is the merchant's display name on checkout pages: none unless given.
  const name = options.name?.trim() ?? '';
  const integratorId = options.integratorId ?? randomUUID();
  const userId = options.userId ?? randomUUID();
  if (!options.integratorId) {
    await db.query('INSERT INTO integrators (id, name) VALUES ($1, $2)', [integratorId, name]);
  }
  const key = KEY_PREFIX + randomAlphanumeric(32);
  const keyId = randomUUID();
  await db.query('INSERT INTO api_keys (id, integrator_id, user_id, name, key_prefix, key_hash) VALUES ($1, $2, $3, $4, $5, $6)', [
    keyId,
    integratorId,
    userId,
    name || 'default',
    key.slice(0, KEY_PREFIX.length + 4),
    hashApiKey(key),
  ]);
  return { key, keyId, integratorId, userId };
}

/** The principal of a presented key, or null when it is unknown or revoked. */
export async function findPrincipal(db: Queryable, key: string): Promise<Principal | null> {
  return (await findPrincipals(db, [key]))[0]!;
}

/** The principals of several presented keys (in one query), each null when its key is unknown or revoked. */
export async function findPrincipals(db: Queryable, keys: readonly string[]): Promise<Array<Principal | null>> {
  const hashes = keys.map((key) => (key.startsWith(KEY_PREFIX) && key.length <= 100 ? hashApiKey(key) : null));
  const wanted = [...new Set(hashes.filter((hash) => hash !== null))];
  if (wanted.length === 0) return keys.map(() => null);
  const { rows } = await db.query<{ id: string; integrator_id: string; user_id: string; key_hash: string }>(
    'SELECT id, integrator_id, user_id, key_hash FROM api_keys WHERE key_hash = ANY($1::text[]) AND revoked_at IS NULL',
    [wanted],
  );
  const byHash = new Map(rows.map((row) => [row.key_hash, { keyId: row.id, integratorId: row.integrator_id, userId: row.user_id }]));
  return hashes.map((hash) => (hash === null ? null : (byHash.get(hash) ?? null)));
}

/**
 * Takes the integrator's next link number (1, 2, 3… in creation order). The UPDATE locks the
 * integrator's row until the caller's transaction ends, so numbers stay gap-free and ordered.
 */
export async function nextLinkSeq(tx: Queryable, integratorId: string): Promise<string | number> {
  const { rows } = await tx.query<{ link_seq: string | number }>('UPDATE integrators SET link_seq = link_seq + 1 WHERE id = $1 RETURNING link_seq', [
    integratorId,
  ]);
  return rows[0]!.link_seq;
}

/**
 * SQL fragments other rooms' reads may embed, so the columns of `integrators` are named only here:
 * the last link number of the integrator whose id is `$n`, and the display name of an integrator id.
 */
export const integratorSql = {
  lastLinkSeq: (param: string) => `(SELECT link_seq FROM integrators WHERE id = ${param})`,
  displayName: (integratorIdColumn: string) => `(SELECT name FROM integrators i WHERE i.id = ${integratorIdColumn})`,
};
