/**
 * Checkout session status events, across instances. A change of a session is recorded as a
 * `session.changed` event (./record.ts), which sends `NOTIFY paylink_session_status, '<session id>'`
 * inside the transaction that makes it, so the
 * notification goes out exactly when (and only if) the change commits, to every instance listening
 * on the same database. Each instance keeps one `LISTEN` (through `db.listen`) and fans the
 * notifications out to its local SSE streams, which re-read the session: the payload is only the
 * id, so nothing depends on message size or on the order notifications arrive in. When the LISTEN
 * connection drops, the database layer reconnects and LISTENs again, and every stream then re-reads
 * its session once (what changed in the gap was not heard). The same code runs on PGlite, where the
 * one embedded connection hears its own notifications.
 */
import type { Database } from '../../db/index.js';
import { SESSION_CHANNEL } from './record.js';

export interface SessionSubscriber {
  /** The session changed (on any instance): re-read it. */
  onChange(): void;
  /** The service is stopping: end the stream. */
  onClose(): void;
}

/** One instance's fan-out of session notifications. */
export interface SessionEvents {
  /** Starts hearing changes of `sessionId`; resolves once listening. Returns the unsubscribe function. */
  subscribe(sessionId: string, subscriber: SessionSubscriber): Promise<() => void>;
  /** Ends every subscription and stops listening. */
  close(): Promise<void>;
}

export function createSessionEvents(db: Database): SessionEvents {
  const subscribers = new Map<string, Set<SessionSubscriber>>();
  let listening: Promise<() => Promise<void>> | undefined;
  let closed = false;

  const dispatch = (payload: string) => {
    for (const subscriber of subscribers.get(payload) ?? []) subscriber.onChange();
  };
  // The database lost and re-established the LISTEN connection (the subscription itself survives,
  // so `listening` stays valid): notifications of the gap are lost, so every stream re-reads.
  const resync = () => {
    for (const set of subscribers.values()) for (const subscriber of set) subscriber.onChange();
  };

  return {
    async subscribe(sessionId, subscriber) {
      if (closed) throw new Error('session events are closed');
      let set = subscribers.get(sessionId);
      if (!set) subscribers.set(sessionId, (set = new Set()));
      set.add(subscriber);
      listening ??= db.listen(SESSION_CHANNEL, dispatch, resync);
      try {
        await listening;
      } catch (error) {
        listening = undefined;
        set.delete(subscriber);
        throw error;
      }
      return () => {
        set.delete(subscriber);
        if (set.size === 0 && subscribers.get(sessionId) === set) subscribers.delete(sessionId);
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const set of subscribers.values()) for (const subscriber of set) subscriber.onClose();
      subscribers.clear();
      const unlisten = await listening?.catch(() => undefined);
      await unlisten?.().catch(() => {});
    },
  };
}
