// Turning one call into a queued request: the frame checked against the size limit, and the
// caller's ways to stop waiting (an AbortSignal, requestTimeout) wired so that a request given up
// before it was written never goes out, and one given up after still has its reply consumed.
import type { Codec } from '../protocol/codecs.js';
import { encodeRequest } from '../protocol/codecs.js';
import { makeError, type ZooKeeperError } from '../protocol/errors.js';
import type { Clock } from './clock.js';
import type { Outbox } from './outbox.js';
import { makeRequest, type Outbound } from './requests.js';

/** The int32 length that starts every frame: jute.maxbuffer limits what follows it. */
const LENGTH_PREFIX = 4;

/**
 * BADARGUMENTS when a request frame is over the frame limit (the server would drop the link
 * instead of answering), else null.
 */
export function frameTooLarge(
  frame: Uint8Array,
  maxFrameSize: number,
  op: string,
  path?: string,
): ZooKeeperError | null {
  const size = frame.length - LENGTH_PREFIX;
  if (size <= maxFrameSize) return null;
  return makeError(
    'BADARGUMENTS',
    `${op} request is ${size} bytes, over the ${maxFrameSize}-byte frame limit (jute.maxbuffer)`,
    { path, op },
  );
}

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
  signal?: AbortSignal;
}

/** What queueing a request needs from the session. */
export interface SubmitRoute {
  readonly clock: Clock;
  readonly outbox: Outbox;
  readonly maxFrameSize: number;
  /** Each call gives up after this many ms without a reply; 0 or undefined = no limit. */
  readonly requestTimeout: number | undefined;
}

/** Encodes and queues one request with the given xid; the promise settles with its reply. */
export function queueRequest<Req, Res>(
  route: SubmitRoute,
  xid: number,
  codec: Codec<Req, Res>,
  body: Req,
  details: SubmitDetails,
): Promise<Res> {
  const { clock, outbox, maxFrameSize } = route;
  const op = details.op ?? codec.name;
  const signal = details.signal;
  let frame: Uint8Array;
  try {
    frame = encodeRequest(xid, codec, body);
  } catch (error) {
    return Promise.reject(error);
  }
  const tooLarge = frameTooLarge(frame, maxFrameSize, op, details.path);
  if (tooLarge) return Promise.reject(tooLarge);
  return new Promise<Res>((resolve, reject) => {
    const giveUp = (reason: unknown) => {
      // Not yet written: take it out. Already written: its reply must still be consumed in
      // order, so it stays pending, abandoned.
      if (!outbox.remove(item)) request.abandoned = true;
      request.settle(reason instanceof Error ? reason : new Error(String(reason)));
    };
    const onAbort = () => giveUp(signal?.reason ?? new Error('aborted'));
    const timeout = route.requestTimeout;
    const timer =
      timeout && timeout > 0
        ? clock.setTimeout(
            () =>
              giveUp(
                makeError('REQUESTTIMEOUT', `${op} got no reply within ${timeout} ms`, {
                  op,
                  path: details.path,
                }),
              ),
            timeout,
          )
        : null;
    const stopWaiting = () => {
      signal?.removeEventListener('abort', onAbort);
      if (timer !== null) clock.clearTimeout(timer);
    };
    const request = makeRequest<Res>({
      xid,
      op,
      path: details.path,
      read: (reader) => codec.read(reader),
      onReply: details.onReply,
      onAbandonedReply: details.onAbandonedReply,
      resolve: (value) => {
        stopWaiting();
        resolve(value);
      },
      reject: (error) => {
        stopWaiting();
        reject(error);
      },
    });
    const item: Outbound = { kind: 'request', frame, request };
    signal?.addEventListener('abort', onAbort, { once: true });
    outbox.push(item);
  });
}
