/**
 * A refund's claim token: what lets whoever holds the claim link (`{paylink_url}/refund/<id>#<token>`)
 * say where the refund goes. 256 random bits, base64url. It travels in the link's fragment, which a
 * browser never sends to a server (no access log, no `Referer` holds it), and from the claim page to the
 * service in the `Paylink-Claim` header, never in a URL. It is never logged.
 *
 * The service keeps it two ways, neither of which gives it back from the database alone:
 * - its SHA-256 digest, which a claim is checked against in constant time;
 * - sealed (AES-256-GCM) under a key derived from the API key that made the refund (HKDF-SHA256, salted
 *   with the refund's id), so that key, and only it, reads the link again while the refund awaits an
 *   address (a lost answer, a retried request, the admin's copy button). The service stores API keys
 *   only as digests: whoever reads the database can't derive the key, so can't open the seal.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new claim token: 32 random bytes, base64url (43 characters). */
export function newClaimToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The digest a token is kept as (hex). */
export function hashClaimToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether `token` is the one `storedHash` was made from, compared in constant time (on digests of equal length). */
export function claimTokenMatches(token: string, storedHash: string): boolean {
  const presented = createHash('sha256').update(token, 'utf8').digest();
  const stored = Buffer.from(storedHash, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}

function sealKey(apiKey: string, refundId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', apiKey, refundId, 'paylink refund claim token', 32));
}

/** `token` sealed under `apiKey` for refund `refundId`: base64url of nonce, ciphertext and tag. */
export function sealClaimToken(token: string, apiKey: string, refundId: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey(apiKey, refundId), nonce);
  const sealed = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The token `sealed` holds, or null when `apiKey` is not the key that sealed it (or it was tampered with). */
export function openClaimToken(sealed: string, apiKey: string, refundId: string): string | null {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < 12 + 16) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealKey(apiKey, refundId), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
