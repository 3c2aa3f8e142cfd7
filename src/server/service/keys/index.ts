/**
 * # Room: keys
 *
 * Owns: the tables `integrators` and `api_keys` (./repository.ts holds all their SQL), key creation
 * (`paylink keys create`), and the `X-API-KEY` check of every keyed route (./auth.ts).
 *
 * May touch: nothing of other rooms. Other rooms reach integrators only through this room:
 * `nextLinkSeq` (links number their links under the integrator's row lock) and the read fragments
 * of `integratorSql` (a link's merchant name, an integrator's last link number).
 *
 * Rules: a key is stored only as its SHA-256 digest; it belongs to one integrator and one user, and a
 * caller sees only its own integrator's data (the rooms filter by `principal.integratorId`).
 */
export { createApiKey, findPrincipal, hashApiKey, integratorSql, nextLinkSeq, randomAlphanumeric, type CreatedKey, type Principal } from './repository.js';
export { requireKey } from './auth.js';
