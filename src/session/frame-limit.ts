// The request frame limit (jute.maxbuffer): a frame over it would make the server drop the link
// instead of answering, so the client refuses it before it is sent.
import { makeError, type ZooKeeperError } from '../protocol/errors.js';

/** The int32 length that starts every frame: jute.maxbuffer limits what follows it. */
const LENGTH_PREFIX = 4;

/** Whether `frame` (its length prefix included) is over the limit of `maxFrameSize` bytes. */
export function overFrameLimit(frame: Uint8Array, maxFrameSize: number): boolean {
  return frame.length - LENGTH_PREFIX > maxFrameSize;
}

/** The BADARGUMENTS error for a request frame {@link overFrameLimit}. */
export function frameLimitError(
  frame: Uint8Array,
  maxFrameSize: number,
  op: string,
  path?: string,
): ZooKeeperError {
  const size = frame.length - LENGTH_PREFIX;
  return makeError(
    'BADARGUMENTS',
    `${op} request is ${size} bytes, over the ${maxFrameSize}-byte frame limit (jute.maxbuffer)`,
    { path, op },
  );
}

/** BADARGUMENTS when a request frame is over the frame limit, else null. */
export function frameTooLarge(
  frame: Uint8Array,
  maxFrameSize: number,
  op: string,
  path?: string,
): ZooKeeperError | null {
  return overFrameLimit(frame, maxFrameSize)
    ? frameLimitError(frame, maxFrameSize, op, path)
    : null;
}
