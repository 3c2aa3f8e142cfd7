/**
 * # Room: idempotency
 *
 * Owns: the table `idempotency_keys` (./repository.ts), the `Idempotency-Key` middleware and the
 * transactional `runIdempotent` (./middleware.ts), for any route whose effect must happen once, with
 * `storedAnswer` (a replay answered before slow checks) and `runIdempotentAcross` (an effect that ends
 * outside the transaction); for changes made by one statement of another room, its parts of that
 * statement (`keyUnusedSql`, `storeAnswersSql`, `isKeyTaken`, and `usedKeys` to tell which key a failed one met).
 *
 * May touch: nothing else. A room that uses it calls `runIdempotent` inside its own transaction, or
 * puts its parts in its own statement.
 */
export { hashRequest, idempotency, readIdempotencyKey, runIdempotent, runIdempotentAcross, storedAnswer, type IdempotencyState } from './middleware.js';
export { isKeyTaken, keyUnusedSql, storeAnswersSql, usedKeys, type StoredResponse } from './repository.js';
