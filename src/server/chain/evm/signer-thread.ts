/**
 * The hot wallet's signatures, made on a thread of their own.
 *
 * A signature costs about a millisecond of CPU (secp256k1 in JavaScript, and the garbage its big
 * integers leave), so a burst of 50 payouts would hold the service's only JavaScript thread for 50 ms
 * or more: every request of the API, every database answer and every node answer waits meanwhile.
 * Here the account lives in a worker thread and the main thread only hands it transactions and gets
 * the signed bytes back (tens of microseconds each).
 *
 * Nothing about the result depends on the thread: signatures are deterministic (RFC 6979), so the
 * same transaction gives the same bytes and hash on either. Should the thread fail to start, or die,
 * the transactions it was signing, and all after, are signed on the main thread instead (and the
 * operator is told once): slower, never different. So are they when the thread does not answer a
 * signature within `answerMs` (default `THREAD_ANSWER_MS`): a thread that hangs must not hold the
 * payouts up, and a late answer is the same bytes, dropped. The key is handed to a thread of the same
 * process, in the same memory the main thread holds it in.
 */
import { Worker } from 'node:worker_threads';
import type { Hex, PrivateKeyAccount, TransactionSerializable } from 'viem';

/** What signs the hot wallet's transactions: `account.signTransaction`, off the main thread where it can. */
export interface ThreadSigner {
  signTransaction(transaction: TransactionSerializable): Promise<Hex>;
  /** Ends the thread (the signatures in flight finish on the main thread). */
  close(): Promise<void>;
}

/**
 * The worker's code: a CommonJS script (`eval`), so it needs no file of its own next to the compiled
 * or the TypeScript sources. It loads viem's accounts module from the URL the main thread resolved.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.accounts).then(({ privateKeyToAccount }) => {
  const account = privateKeyToAccount(workerData.key);
  parentPort.on('message', ({ id, transaction }) => {
    account.signTransaction(transaction).then(
      (signed) => parentPort.postMessage({ id, signed }),
      (error) => parentPort.postMessage({ id, error: String((error && error.message) || error) }),
    );
  });
  parentPort.postMessage({ ready: true });
}, (error) => { throw error; });
`;

/**
 * The longest the thread may take to answer a signature, its own start included, in ms: a thousand
 * times a signature's cost, so only a thread that hangs (not a busy machine) misses it.
 */
export const THREAD_ANSWER_MS = 5_000;

/** Where the thread loads viem's accounts from, and how long it may take to answer (tests change both). */
export interface ThreadSignerOptions {
  /** Default: the module this process resolves for `viem/accounts`. */
  accountsModule?: string;
  /** Default `THREAD_ANSWER_MS`. */
  answerMs?: number;
}

/**
 * Signs as `account` (whose private key is `key`) on a worker thread, started on the first signature.
 * `onFallback` is told, once, when the main thread signs instead (the thread failed, or did not answer
 * in time).
 */
export function createThreadSigner(
  account: PrivateKeyAccount,
  key: Hex,
  onFallback: (error: unknown) => void,
  options: ThreadSignerOptions = {},
): ThreadSigner {
  const accountsModule = options.accountsModule ?? import.meta.resolve('viem/accounts');
  const answerMs = options.answerMs ?? THREAD_ANSWER_MS;
  let worker: Worker | undefined;
  let failed = false;
  let next = 0;
  const pending = new Map<
    number,
    { transaction: TransactionSerializable; resolve: (signed: Hex) => void; reject: (error: unknown) => void; timer: NodeJS.Timeout }
  >();

  /** What the thread was asked and has not answered is signed here. */
  const signHere = () => {
    for (const [id, call] of pending) {
      pending.delete(id);
      clearTimeout(call.timer);
      account.signTransaction(call.transaction).then(call.resolve, call.reject);
    }
  };

  /** The thread is gone (or hangs): what it was signing is signed here, and so is everything after. */
  const fallBack = (error: unknown) => {
    if (failed) return;
    failed = true;
    const thread = worker;
    worker = undefined;
    onFallback(error);
    signHere();
    void thread?.terminate().catch(() => {});
  };

  const start = (): Worker => {
    // Without the process's own flags (a loader, --input-type): the thread runs plain JavaScript only.
    const thread = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { key, accounts: accountsModule } });
    // Idle, the thread must not keep the process alive; while it signs, the callers' promises do.
    thread.unref();
    thread.on('message', (message: { id?: number; signed?: Hex; error?: string }) => {
      if (message.id === undefined) return;
      const call = pending.get(message.id);
      if (!call) return;
      pending.delete(message.id);
      clearTimeout(call.timer);
      if (pending.size === 0) thread.unref();
      if (message.signed) call.resolve(message.signed);
      else call.reject(new Error(message.error ?? 'the signing thread answered nothing'));
    });
    thread.on('error', fallBack);
    thread.on('exit', (code) => {
      if (worker === thread) fallBack(new Error(`the signing thread exited (code ${code})`));
    });
    return thread;
  };

  return {
    signTransaction(transaction) {
      if (failed) return account.signTransaction(transaction);
      try {
        worker ??= start();
      } catch (error) {
        fallBack(error);
        return account.signTransaction(transaction);
      }
      const id = next++;
      const thread = worker;
      // While it has work, the thread keeps the process alive (a command awaiting a signature).
      if (pending.size === 0) thread.ref();
      return new Promise<Hex>((resolve, reject) => {
        // Not unref'd: the caller awaits this signature, so the process stays for it either way.
        const timer = setTimeout(() => fallBack(new Error(`the signing thread did not answer within ${answerMs} ms`)), answerMs);
        pending.set(id, { transaction, resolve, reject, timer });
        thread.postMessage({ id, transaction });
      });
    },
    async close() {
      const thread = worker;
      worker = undefined;
      failed = true; // what is still asked is signed here
      signHere();
      await thread?.terminate();
    },
  };
}
