/**
 * Checkout session status events, across instances. A change of a session is recorded as a
 * `session.changed` event (./record.ts), which sends `NOTIFY paylink_session_status, '<session id>'`
 * inside the transaction that makes it, so the notification goes out exactly when (and only if) the
 * change commits, to every instance listening on the same database. Each instance keeps one `LISTEN`
 * (through `db.listen`) and fans the notifications out to its local SSE streams.
 *
 * One read per change, shared: the streams of one session form a topic, and a notification
 * makes the topic read the session once and hand the result to all of its streams. With 3,000 streams on
 * one session a payment used to cost 3,000 reads; now it costs one. Reads of a topic never overlap: a
 * notification during a read marks the topic for one more read after it, so results reach the streams
 * in order and a burst of notifications costs at most two reads. A stream that joins gets the result of
 * the read in flight, or starts one (so many joining at once cost one read too).
 *
 * The payload is only the id, so nothing depends on message size or on the order notifications arrive
 * in. Every heartbeat the topic reads again (a lost notification, or an expiry no one else noticed,
 * still reaches the client within one heartbeat). When the LISTEN connection drops, the database layer
 * reconnects and LISTENs again, and every topic then reads once (what changed in the gap was not
 * heard). The same code runs on PGlite, where the one embedded connection hears its own notifications.
 */
import type { Database } from '../../db/index.js';
import { LIMIT_DEFAULTS } from '../../limits/options.js';
import { SESSION_CHANNEL } from './record.js';

/** Why a topic read its session: a notification, the heartbeat, the LISTEN reconnect, or a stream that joined. */
export type ReadCause = 'change' | 'heartbeat' | 'resync' | 'join';

/** One stream's part in a topic. */
export interface SessionSubscriber<T = unknown> {
  /** Reads the session. The topic reads with its first subscriber's function: every stream of a session reads it the same way. */
  read(): Promise<T>;
  /** A read's result: after a change, a heartbeat, a reconnect, or the read this stream joined on. */
  onRead(value: T, cause: ReadCause): void;
  /** The read failed (the session is gone, the database is down): the stream ends. */
  onReadError(error: unknown): void;
  /** The service is stopping: end the stream. */
  onClose(): void;
}

/** One instance's fan-out of session notifications. */
export interface SessionEvents {
  /**
   * Starts hearing changes of `sessionId`; resolves once listening, and the subscriber's first `onRead`
   * (or `onReadError`) follows from the read in flight or a new one. Returns the unsubscribe function.
   */
  subscribe<T>(sessionId: string, subscriber: SessionSubscriber<T>): Promise<() => void>;
  /** Reads made so far over all topics (for tests and metrics). */
  readonly reads: number;
  /** Ends every subscription and stops listening. */
  close(): Promise<void>;
}

/** Options of `createSessionEvents`. */
export interface SessionEventsOptions {
  /** Interval of each topic's heartbeat read, in ms (default 15 s). */
  heartbeatMs?: number | undefined;
}

interface Topic {
  subscribers: Set<SessionSubscriber<unknown>>;
  /** Subscribers that joined and wait for their first result. */
  joining: Set<SessionSubscriber<unknown>>;
  reading: boolean;
  /** Why the next read is due, once the one in flight is done (strongest cause wins). */
  again: ReadCause | null;
  heartbeat: ReturnType<typeof setInterval> | undefined;
}

const CAUSE_RANK: Record<ReadCause, number> = { heartbeat: 0, join: 1, resync: 2, change: 3 };

export function createSessionEvents(db: Database, options: SessionEventsOptions = {}): SessionEvents {
  const heartbeatMs = options.heartbeatMs ?? LIMIT_DEFAULTS.sseHeartbeatMs;
  const topics = new Map<string, Topic>();
  let listening: Promise<() => Promise<void>> | undefined;
  let closed = false;
  let reads = 0;

  const refresh = (topic: Topic, cause: ReadCause) => {
    if (topic.reading) {
      if (topic.again === null || CAUSE_RANK[cause] > CAUSE_RANK[topic.again]) topic.again = cause;
      return;
    }
    topic.reading = true;
    const reader = topic.subscribers.values().next().value;
    if (!reader) {
      topic.reading = false;
      return;
    }
    reads++;
    // The subscribers the result is for: those there when the read started (a later one joins the next).
    const readers = [...topic.subscribers];
    topic.joining.clear();
    reader.read().then(
      (value) => {
        for (const subscriber of readers) if (topic.subscribers.has(subscriber)) subscriber.onRead(value, cause);
        done(topic);
      },
      (error: unknown) => {
        for (const subscriber of readers) if (topic.subscribers.has(subscriber)) subscriber.onReadError(error);
        done(topic);
      },
    );
  };

  const done = (topic: Topic) => {
    topic.reading = false;
    const again = topic.joining.size > 0 ? (topic.again ?? 'join') : topic.again;
    topic.again = null;
    if (again !== null && topic.subscribers.size > 0) refresh(topic, again);
  };

  const dispatch = (payload: string) => {
    const topic = topics.get(payload);
    if (topic) refresh(topic, 'change');
  };
  // The database lost and re-established the LISTEN connection (the subscription itself survives,
  // so `listening` stays valid): notifications of the gap are lost, so every topic reads again.
  const resync = () => {
    for (const topic of topics.values()) refresh(topic, 'resync');
  };

  const drop = (sessionId: string, topic: Topic) => {
    if (topic.subscribers.size > 0 || topics.get(sessionId) !== topic) return;
    clearInterval(topic.heartbeat);
    topics.delete(sessionId);
  };

  return {
    async subscribe<T>(sessionId: string, subscriber: SessionSubscriber<T>) {
      if (closed) throw new Error('session events are closed');
      const member = subscriber as SessionSubscriber<unknown>;
      let topic = topics.get(sessionId);
      if (!topic) {
        topic = { subscribers: new Set(), joining: new Set(), reading: false, again: null, heartbeat: undefined };
        topics.set(sessionId, topic);
        const heartbeatTopic = topic;
        topic.heartbeat = setInterval(() => refresh(heartbeatTopic, 'heartbeat'), heartbeatMs);
        topic.heartbeat.unref?.();
      }
      const joined = topic;
      joined.subscribers.add(member);
      listening ??= db.listen(SESSION_CHANNEL, dispatch, resync);
      try {
        await listening;
      } catch (error) {
        listening = undefined;
        joined.subscribers.delete(member);
        drop(sessionId, joined);
        throw error;
      }
      if (closed) {
        joined.subscribers.delete(member);
        throw new Error('session events are closed');
      }
      // The first result: a read that starts now, or, when one is in flight, the one after it (the
      // read in flight started before this subscriber was listening, so it may miss a change).
      if (joined.reading) joined.joining.add(member);
      else refresh(joined, 'join');
      return () => {
        joined.subscribers.delete(member);
        joined.joining.delete(member);
        drop(sessionId, joined);
      };
    },
    get reads() {
      return reads;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const topic of topics.values()) {
        clearInterval(topic.heartbeat);
        for (const subscriber of topic.subscribers) subscriber.onClose();
        topic.subscribers.clear();
      }
      topics.clear();
      const unlisten = await listening?.catch(() => undefined);
      await unlisten?.().catch(() => {});
    },
  };
}
