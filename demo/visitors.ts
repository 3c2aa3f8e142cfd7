/**
 * Who may use the demo: the `Host` check that stops DNS rebinding, and one admin session per
 * visitor instead of one shared cookie.
 *
 * - **Host.** A page on evil.example whose name an attacker re-points at 127.0.0.1 talks to the demo
 *   from the browser's side as if it were the attacker's own origin, admin routes included. So the demo
 *   answers only requests that name a host it was started for: `localhost`, `127.0.0.1`, `[::1]`, the
 *   host it listens on, the hosts of `PAYLINK_PUBLIC_ORIGIN` and `PAYLINK_PUBLIC_URL`, and those listed in
 *   `PAYLINK_ALLOWED_HOSTS` (comma list). Listening on every interface (`0.0.0.0`, `::`), any IP address
 *   is a host too (an address can't be re-pointed). Anything else is a 403 in the one error shape.
 * - **Sessions.** Opening the admin page gives the visitor a session of their own (a random id, kept
 *   here, 12 hours), in a cookie `HttpOnly; SameSite=Strict; Path=/`, `Secure` when the page was served
 *   over https. The proxy's `authorize` accepts a request whose cookie names a live session. Sessions
 *   are counted per client address (at most 20 each): a client that opens the page over and over
 *   (10,000 anonymous loads) replaces its own oldest sessions, never another visitor's; when all
 *   10,000 places are taken, the oldest session of the client holding the most goes.
 */
import { randomBytes } from 'node:crypto';

/** The name of the admin session cookie. */
export const SESSION_COOKIE = 'paylink_demo_session';

/** Hosts the demo answers for. */
export interface HostCheck {
  /** True when the `Host` header names a host the demo was started for. */
  allows(hostHeader: string | null | undefined): boolean;
  /** The hosts allowed by name (for the 403's message). */
  readonly names: readonly string[];
}

/** Options of `createHostCheck`. */
export interface HostCheckOptions {
  /** The address the demo listens on. */
  listenHost: string;
  /** Origins or URLs whose hosts are allowed too (`PAYLINK_PUBLIC_ORIGIN`, `PAYLINK_PUBLIC_URL`). */
  origins?: ReadonlyArray<string | undefined>;
  /** More host names (`PAYLINK_ALLOWED_HOSTS`). */
  hosts?: ReadonlyArray<string>;
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** The host of a `Host` header, lower case, without its port; IPv6 keeps its brackets. */
function hostName(header: string): string {
  const text = header.trim().toLowerCase();
  if (text.startsWith('[')) return text.slice(0, text.indexOf(']') + 1);
  const colon = text.indexOf(':');
  return colon === -1 ? text : text.slice(0, colon);
}

function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host) || /^\[[0-9a-f:.]+\]$/.test(host);
}

/** Builds the check (see the module comment). */
export function createHostCheck(options: HostCheckOptions): HostCheck {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  const listen = options.listenHost.toLowerCase();
  const anyAddress = WILDCARDS.has(listen);
  if (!anyAddress) names.add(listen.includes(':') && !listen.startsWith('[') ? `[${listen}]` : listen);
  for (const origin of options.origins ?? []) {
    if (!origin) continue;
    try {
      names.add(new URL(origin).hostname.toLowerCase());
    } catch {
      // Not a URL: the option that carries it says so where it is read.
    }
  }
  for (const host of options.hosts ?? []) if (host.trim()) names.add(hostName(host));
  return {
    names: [...names],
    allows(header) {
      if (!header) return false;
      const host = hostName(header);
      return names.has(host) || (anyAddress && isIpLiteral(host));
    },
  };
}

/** The admin sessions of the demo's visitors. */
export interface AdminSessions {
  /** True when `id` names a live session. */
  has(id: string | undefined): boolean;
  /** A new session for the visitor at address `client`; returns its `Set-Cookie` value. */
  issue(secure: boolean, client: string): string;
  /** Live sessions (for tests). */
  readonly size: number;
}

/** Options of `createAdminSessions`. */
export interface AdminSessionOptions {
  /** How long a session lives, in ms. Default 12 hours. */
  ttlMs?: number;
  /** Sessions kept at most. Default 10 000 (a visitor is about 100 bytes). */
  maxSessions?: number;
  /** Sessions one client address keeps at most; its oldest go first. Default 20 (a household, an office). */
  maxSessionsPerClient?: number;
  now?: () => number;
}

/** Keeps the sessions in memory: the demo is one process, and a restart signing everyone out is fine. */
export function createAdminSessions(options: AdminSessionOptions = {}): AdminSessions {
  const ttlMs = options.ttlMs ?? 12 * 60 * 60 * 1000;
  const maxSessions = options.maxSessions ?? 10_000;
  const maxPerClient = options.maxSessionsPerClient ?? 20;
  const now = options.now ?? Date.now;
  const sessions = new Map<string, { expiresAt: number; client: string }>();
  /** Each client's session ids, oldest first. */
  const byClient = new Map<string, Set<string>>();
  const remove = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    const ids = byClient.get(session.client)!;
    ids.delete(id);
    if (ids.size === 0) byClient.delete(session.client);
  };
  const oldestOf = (client: string) => byClient.get(client)?.values().next().value;
  /** The client holding the most sessions (an attacker's, when the places run out). */
  const busiestClient = () => {
    let busiest: string | undefined;
    let most = 0;
    for (const [client, ids] of byClient) if (ids.size > most) (busiest = client), (most = ids.size);
    return busiest;
  };
  return {
    has(id) {
      if (id === undefined) return false;
      const session = sessions.get(id);
      if (session === undefined) return false;
      if (session.expiresAt > now()) return true;
      remove(id);
      return false;
    },
    issue(secure, client) {
      if ((byClient.get(client)?.size ?? 0) >= maxPerClient) remove(oldestOf(client)!);
      else if (sessions.size >= maxSessions) {
        // Expired sessions go first; then the busiest client's oldest, never one visitor's only session for another's flood.
        for (const [id, session] of sessions) if (session.expiresAt <= now()) remove(id);
        if (sessions.size >= maxSessions) remove(oldestOf(busiestClient()!)!);
      }
      const id = randomBytes(24).toString('base64url');
      sessions.set(id, { expiresAt: now() + ttlMs, client });
      let ids = byClient.get(client);
      if (!ids) byClient.set(client, (ids = new Set()));
      ids.add(id);
      return `${SESSION_COOKIE}=${id}; Path=/; Max-Age=${Math.floor(ttlMs / 1000)}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
    },
    get size() {
      return sessions.size;
    },
  };
}

/** The value of cookie `name` in a `Cookie` header. */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
