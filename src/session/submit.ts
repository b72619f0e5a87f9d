// Turning one call into a queued request: the frame checked against the size limit, and the
// caller's ways to stop waiting (an AbortSignal, requestTimeout) wired so that a request given up
// before it was written never goes out, and one given up after still has its reply consumed.
import type { Codec } from '../protocol/codecs.js';
import { encodeRequest } from '../protocol/codecs.js';
import { makeError } from '../protocol/errors.js';
import type { Reader } from '../protocol/reader.js';
import type { RequestMessage } from '../telemetry/messages.js';
import { requestSettled } from '../telemetry/request.js';
import type { Clock } from './clock.js';
import { frameLimitError, overFrameLimit } from './frame-limit.js';
import type { Outbox } from './outbox.js';
import { replyError } from './reply-errors.js';
import type { Outbound, PendingRequest } from './requests.js';
import { promiseSettledBy } from './settlers.js';
import { type AbortWaiter, type StopSignal, stopWaiting, waitOn } from './signal-waiters.js';

/** How a call is sent and awaited. */
export interface SubmitDetails {
  path?: string;
  op?: string;
  /** Runs with the reply's error code before the promise settles (watch registration). */
  onReply?: (err: number) => void;
  /**
   * Runs with the reply's error code when the reply comes after the caller stopped waiting
   * (aborted, requestTimeout): the chance to undo what the server did anyway (a watch it set).
   */
  onAbandonedReply?: (err: number) => void;
  /** Stops waiting for the reply: an AbortSignal, or a wait's own stop (see StopSignal). */
  signal?: StopSignal;
}

/**
 * Where the outcome of a call goes instead of a promise (see {@link queueCall}): one object, told
 * which of its steps answered, so that a recipe driven by replies (the lock engine) allocates no
 * promise and no closure per request.
 */
export interface CallSink {
  /** The request `step` settled: `error`, or null and the (shaped) reply. Must not throw. */
  replied(step: number, error: Error | null, value: unknown): void;
  /**
   * The server refused the request `step` with `code` (an {@link ErrorCode}, not OK). True when
   * the sink expected that answer and acted on it: then no Error is made for it (its stack and
   * message cost CPU on a path where the code is all the sink reads) and `replied` is not called;
   * false to hear it as an Error through `replied`. Must not throw.
   */
  refused?(step: number, code: number): boolean;
}

/** Where a request is in its life (see Submitted.life). */
const Life = {
  /** Queued or written: the caller waits for the outcome. */
  waiting: 0,
  /** The outcome was told. */
  settled: 1,
  /** The caller stopped waiting after the request was written: its reply is consumed unread. */
  abandoned: 2,
} as const;
type Life = (typeof Life)[keyof typeof Life];

/** What queueing a request needs from the session. */
export interface SubmitRoute {
  readonly clock: Clock;
  readonly outbox: Outbox;
  readonly maxFrameSize: number;
  /** Each call gives up after this many ms without a reply; 0 or undefined = no limit. */
  readonly requestTimeout: number | undefined;
}

/**
 * One submitted request: what the reply path needs (PendingRequest) and the caller's ways to stop
 * waiting; a subclass adds where the outcome goes (a promise, or a {@link CallSink}). One object
 * per request rather than a closure per concern: at thousands of requests per second their
 * garbage was a visible share of the client's CPU. Its fields are kept few (the caller's details
 * are held as they are, not copied field by field), as it is made for every request.
 */
abstract class Submitted<Res> implements PendingRequest, AbortWaiter {
  /**
   * Where the request is in its life ({@link Life}): one field where `settled` and `abandoned`
   * were two (each field is 8 bytes of every request).
   */
  protected life: Life = Life.waiting;
  /** When it was written (see PendingRequest): one number, no object per request. */
  sentAt = 0;
  /** The requestTimeout timer, when there is one. */
  timer: unknown = null;

  constructor(
    readonly xid: number,
    private readonly codec: Codec<unknown, Res>,
    /** The caller's (never changed after the call: see SubmitDetails). */
    private readonly details: SubmitDetails,
    private readonly route: SubmitRoute,
    readonly frame: Uint8Array,
    protected readonly shape: ((reply: Res) => unknown) | undefined,
  ) {}

  /** The caller stopped waiting (see {@link giveUp}); the reply is still consumed in order. */
  get abandoned(): boolean {
    return this.life === Life.abandoned;
  }

  /** The request is its own outbox item (see {@link request}): no second object per request. */
  get kind(): 'request' {
    return 'request';
  }

  /** As an outbox item ({@link Outbound}): the request it carries is itself. */
  get request(): this {
    return this;
  }

  get op(): string {
    return this.details.op ?? this.codec.name;
  }

  get path(): string | undefined {
    return this.details.path;
  }

  onReply(err: number): void {
    this.details.onReply?.(err);
  }

  onAbandonedReply(err: number): void {
    this.details.onAbandonedReply?.(err);
  }

  read(reader: Reader): unknown {
    return this.codec.read(reader);
  }

  settle(error: Error | null, value?: unknown): void {
    if (this.life !== Life.waiting) return;
    this.finish(Life.settled);
    this.deliver(error, value);
  }

  /** The outcome, once: `error`, or null and the reply (not yet shaped). */
  protected abstract deliver(error: Error | null, value: unknown): void;

  /** The server refused the request with `code`: the caller gets the reply's error. */
  refuse(code: number, chroot: string): void {
    if (this.life !== Life.waiting) return;
    this.settle(replyError(code, this.path, this.op, chroot));
  }

  /** Settled (`life`): off the signal's shared listener and the requestTimeout timer. */
  protected finish(life: Life): void {
    this.life = life;
    // The signal's one listener is shared with every other request waiting on it (signal-waiters).
    const signal = this.details.signal;
    if (signal) stopWaiting(signal, this);
    if (this.timer !== null) this.route.clock.clearTimeout(this.timer);
  }

  /** The signal this request waits on aborted (told by the signal's one listener). */
  aborted(reason: unknown): void {
    this.giveUp(reason);
  }

  /**
   * The caller stopped waiting. Not yet written: the request is taken out. Already written: its
   * reply must still be consumed in order, so it stays pending, abandoned.
   */
  giveUp(reason: unknown): void {
    if (this.life !== Life.waiting) return;
    const written = !this.route.outbox.remove(this);
    const error = reason instanceof Error ? reason : new Error(String(reason));
    this.finish(written ? Life.abandoned : Life.settled);
    this.deliver(error, undefined);
  }
}

/** A request whose caller awaits a promise (every public call). */
class PromisedRequest<Res, Out> extends Submitted<Res> {
  constructor(
    xid: number,
    codec: Codec<unknown, Res>,
    details: SubmitDetails,
    route: SubmitRoute,
    frame: Uint8Array,
    shape: ((reply: Res) => Out) | undefined,
  ) {
    super(xid, codec, details, route, frame, shape);
  }

  /**
   * The request's telemetry context, when someone listens to requests: only a promised request
   * has one (Session.call sends a traced request through submit), so a sunk one has no field for it.
   */
  trace: RequestMessage | undefined = undefined;

  /** @internal Set by the promise's executor (see promiseSettledBy: no closure per request). */
  resolve!: (value: Out) => void;
  /** @internal */
  reject!: (error: Error) => void;

  protected deliver(error: Error | null, value: unknown): void {
    if (this.trace) requestSettled(this.trace, error);
    if (error) {
      this.reject(error);
      return;
    }
    if (!this.shape) {
      this.resolve(value as Out);
      return;
    }
    let out: Out;
    try {
      out = this.shape(value as Res) as Out;
    } catch (shapeError) {
      this.reject(shapeError instanceof Error ? shapeError : new Error(String(shapeError)));
      return;
    }
    this.resolve(out);
  }
}

/** A request whose outcome goes to a {@link CallSink} (see {@link queueCall}). */
class SunkRequest<Res> extends Submitted<Res> {
  constructor(
    xid: number,
    codec: Codec<unknown, Res>,
    details: SubmitDetails,
    route: SubmitRoute,
    frame: Uint8Array,
    shape: ((reply: Res) => unknown) | undefined,
    private readonly sink: CallSink,
    private readonly step: number,
  ) {
    super(xid, codec, details, route, frame, shape);
  }

  protected deliver(error: Error | null, value: unknown): void {
    // A sink never throws (CallSink), and the lock engine's shapes cannot.
    this.sink.replied(this.step, error, error || !this.shape ? value : this.shape(value as Res));
  }

  /**
   * A sink that expects the code hears it as such, with no Error made (see
   * {@link CallSink.refused}); otherwise as any request. Never traced (Session.call sends traced
   * requests through submit).
   */
  override refuse(code: number, chroot: string): void {
    if (this.life !== Life.waiting) return;
    const sink = this.sink;
    if (sink.refused === undefined) {
      super.refuse(code, chroot);
      return;
    }
    this.finish(Life.settled);
    if (sink.refused(this.step, code)) return;
    sink.replied(this.step, replyError(code, this.path, this.op, chroot), undefined);
  }
}

/**
 * Encodes and queues one request with the given xid; the promise settles with its reply, or with
 * `shape(reply)` when there is a shape: a client call that returns part of the reply then needs no
 * promise step of its own after the session's.
 */
export function queueRequest<Req, Res, Out = Res>(
  route: SubmitRoute,
  xid: number,
  codec: Codec<Req, Res>,
  body: Req,
  details: SubmitDetails,
  shape?: (reply: Res) => Out,
  trace?: RequestMessage,
): Promise<Out> {
  let frame: Uint8Array;
  try {
    frame = requestFrame(route, xid, codec, body, details);
  } catch (error) {
    return Promise.reject(error);
  }
  const request = new PromisedRequest<Res, Out>(
    xid,
    codec as Codec<unknown, Res>,
    details,
    route,
    frame,
    shape,
  );
  if (trace) {
    trace.bytesSent = frame.length;
    request.trace = trace;
  }
  const promise = promiseSettledBy(request);
  enqueue(route, request, details);
  return promise;
}

/**
 * As {@link queueRequest}, but the outcome goes to `sink.replied(step, ...)` instead of a
 * promise: the seam the lock engine drives its state machine over. The sink hears of every
 * outcome exactly once, an encoding or size error included, never synchronously from this call
 * (so that a sink is never re-entered while it is sending).
 */
export function queueCall<Req, Res, Out = Res>(
  route: SubmitRoute,
  xid: number,
  codec: Codec<Req, Res>,
  body: Req,
  details: SubmitDetails,
  sink: CallSink,
  step: number,
  shape?: (reply: Res) => Out,
): void {
  let frame: Uint8Array;
  try {
    frame = requestFrame(route, xid, codec, body, details);
  } catch (error) {
    replyLater(sink, step, error as Error);
    return;
  }
  const request = new SunkRequest<Res>(
    xid,
    codec as Codec<unknown, Res>,
    details,
    route,
    frame,
    shape as ((reply: Res) => unknown) | undefined,
    sink,
    step,
  );
  enqueue(route, request, details);
}

/**
 * Tells `sink` of an error that stopped a call before it was queued, after the caller returns.
 * A function of its own: a closure inside {@link queueCall} would make V8 allocate a context for
 * `sink` and `step` on every call, the calls that never fail included.
 */
function replyLater(sink: CallSink, step: number, error: Error): void {
  queueMicrotask(() => sink.replied(step, error, undefined));
}

/** The request's frame; throws BADARGUMENTS when it is over the frame limit. */
function requestFrame<Req>(
  route: SubmitRoute,
  xid: number,
  codec: Codec<Req, unknown>,
  body: Req,
  details: SubmitDetails,
): Uint8Array {
  const frame = encodeRequest(xid, codec, body);
  // The op and path are read only for the error: details come in many shapes, and a read of
  // them per request is a lookup the common case has no use for.
  if (overFrameLimit(frame, route.maxFrameSize)) {
    throw frameLimitError(frame, route.maxFrameSize, details.op ?? codec.name, details.path);
  }
  return frame;
}

/** Arms the request's timeout and abort, and queues it. */
function enqueue<Res>(route: SubmitRoute, request: Submitted<Res>, details: SubmitDetails): void {
  const signal = details.signal;
  const timeout = route.requestTimeout;
  if (timeout && timeout > 0) armTimeout(route.clock, request, timeout);
  // Not aborted yet: the session rejects a call on an aborted signal before it gets here.
  if (signal) waitOn(signal, request);
  route.outbox.push(request);
}

/**
 * The requestTimeout timer. A function of its own, so that the closure's context is made only
 * for a request that has a timeout, not for every request (see {@link replyLater}).
 */
function armTimeout<Res>(clock: Clock, request: Submitted<Res>, timeout: number): void {
  const op = request.op;
  request.timer = clock.setTimeout(
    () =>
      request.giveUp(
        makeError('REQUESTTIMEOUT', `${op} got no reply within ${timeout} ms`, {
          op,
          path: request.path,
        }),
      ),
    timeout,
  );
}
