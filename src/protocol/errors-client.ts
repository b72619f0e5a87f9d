// The errors the client and its recipes raise on their own, which no server sends: a wait that
// ran out of time, an argument refused before anything was sent, a closed object, a released
// lease. Each is a ZooKeeperError (so `err.code` and `instanceof ZooKeeperError` work as for the
// server's errors) with a code of its own, so that no client-side fault wears a server code.
import { type ErrorDetails, ZooKeeperError } from './errors-base.js';
import { BadArgumentsError } from './errors-classes.js';

/** Details of a client-side error: the path and operation it concerns, and its cause. */
export type ClientErrorDetails = Omit<ErrorDetails, 'errno'>;

/**
 * The one timeout error: every wait of the client and its recipes that is given `{ timeout }`
 * rejects with it (or a subclass, such as the locks' `LockTimeoutError`) when the time runs out.
 * Code `TIMEOUT`, never the server's `OPERATIONTIMEOUT`. Its `name` is `'TimeoutError'`, the
 * name the web platform gives `AbortSignal.timeout()`'s reason, so a check of `error.name`
 * treats both alike.
 */
export class TimeoutError extends ZooKeeperError {
  /** The class name, for logs. */
  override name = 'TimeoutError';
  /** The timeout that elapsed, ms. */
  readonly timeout: number;

  /**
   * @param timeout The timeout that elapsed, ms.
   * @param message What was waited for (default `timed out after <timeout> ms`).
   */
  constructor(timeout: number, message?: string, details: ClientErrorDetails = {}) {
    super('TIMEOUT', message ?? `timed out after ${timeout} ms`, details);
    this.timeout = timeout;
  }
}

/**
 * An argument the client refused before sending anything: a malformed path, a bad option, a
 * listener that is not a function. Its code is `BADARGUMENTS`, the name ZooKeeper gives the same
 * fault when a server finds it; `instanceof InvalidArgumentError` tells that the client refused
 * it (nothing was sent), `instanceof BadArgumentsError` matches both.
 */
export class InvalidArgumentError extends BadArgumentsError {
  /** The class name, for logs. */
  override name = 'InvalidArgumentError';

  constructor(message: string, details: ClientErrorDetails = {}) {
    super(message, details);
    this.name = 'InvalidArgumentError';
  }
}

/**
 * A recipe object (a latch, a cache, a barrier, ...) was closed: its waits end with this error
 * and calls made after `close()` reject with it. Code `CLOSED`.
 */
export class ClosedError extends ZooKeeperError {
  /** The class name, for logs. */
  override name = 'ClosedError';

  /** @param what What was closed, as the message names it (`the latch /app/leader`). */
  constructor(what: string, details: ClientErrorDetails = {}) {
    super('CLOSED', `${what} was closed`, details);
  }
}

/**
 * The client was closed (`client.close()`): a call made after it, or still waiting for its reply,
 * rejects with this. Code `CLIENTCLOSED`: the session was ended on purpose, it did not expire.
 */
export class ClientClosedError extends ZooKeeperError {
  /** The class name, for logs. */
  override name = 'ClientClosedError';

  constructor(details: ClientErrorDetails = {}) {
    super('CLIENTCLOSED', 'the client is closed', details);
  }

  /** True: a closed client's session is over (the server deleted its ephemeral nodes). */
  override get sessionOver(): boolean {
    return true;
  }
}
