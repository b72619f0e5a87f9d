/**
 * Splits a TCP byte stream into frame bodies. Each frame is int32 length +
 * `length` bytes; the length excludes itself. Frames that lie wholly inside a
 * chunk are handed out where they lie in it (as a view, or to a FrameSink as the
 * chunk and offsets), not copied; only a frame that spans chunks
 * is copied (once, into a buffer allocated when its length is known). Held
 * bytes are always copies, so a transport may reuse its chunk buffers.
 */

import { ProtocolError } from './errors.js';

/** jute.maxbuffer default (0xfffff), the Java client's incoming-frame limit. */
export const DEFAULT_MAX_FRAME = 1_048_575;

/** "HTTP" read as a big-endian length: the first bytes of an HTTP server's answer. */
const HTTP = 0x48545450;
const NOT_ZOOKEEPER =
  ': the peer answered "HTTP...", so this is an HTTP port (the AdminServer, a proxy), not a ZooKeeper client port';

/** A frame length prefix outside 0..maxFrameSize: the frame is never read, the stream is lost. */
export class FrameSizeError extends ProtocolError {
  override name = 'FrameSizeError';

  constructor(
    /** The length the prefix announced. */
    readonly length: number,
    /** The limit it broke. */
    readonly limit: number,
  ) {
    super(`frame length ${length} out of range 0..${limit}${length === HTTP ? NOT_ZOOKEEPER : ''}`);
  }
}

/**
 * Receives decoded frames: an object, so that a long-lived reader needs no closure for it. A frame
 * comes as where it lies, `length` bytes of `bytes` from `start`, with no view made for it (one
 * per reply was a visible share of the reply path's allocations); `bytes` may be the transport's
 * chunk, good only during the call (see {@link FrameDecoder}).
 */
export interface FrameSink {
  frame(bytes: Uint8Array, start: number, length: number): void;
}

/**
 * Where {@link FrameDecoder.decode} hands each frame: a function (given a view of the frame) or
 * a {@link FrameSink}.
 */
export type FrameHandler = ((frame: Uint8Array) => void) | FrameSink;

function deliver(onFrame: FrameHandler, bytes: Uint8Array, start: number, length: number): void {
  if (typeof onFrame !== 'function') onFrame.frame(bytes, start, length);
  else if (start === 0 && length === bytes.length) onFrame(bytes);
  // A view made with the constructor: subarray() asks the chunk for its species on every call, a
  // slower path, and on a Node Buffer would hand out a Buffer.
  else onFrame(new Uint8Array(bytes.buffer, bytes.byteOffset + start, length));
}

export class FrameDecoder {
  private readonly maxFrameSize: number;
  /**
   * Length prefix of a frame that spans chunks (filled up to 4 bytes): made by the first such
   * frame, as an idle connection never sees one and a process may hold thousands.
   */
  private head: Uint8Array | null = null;
  private headFill = 0;
  /** Body of a frame that spans chunks, allocated once its length is valid. */
  private body: Uint8Array | null = null;
  private bodyFill = 0;

  constructor(maxFrameSize = DEFAULT_MAX_FRAME) {
    if (!Number.isInteger(maxFrameSize) || maxFrameSize < 0) {
      throw new RangeError(`invalid maxFrameSize ${maxFrameSize}`);
    }
    this.maxFrameSize = maxFrameSize;
  }

  /** Bytes held while waiting for the rest of a frame. */
  get buffered(): number {
    return this.headFill + this.bodyFill;
  }

  /** Drops any partial frame (e.g. on a new connection). */
  reset(): void {
    this.headFill = 0;
    this.body = null;
    this.bodyFill = 0;
  }

  /**
   * Feeds a chunk and returns every frame body it completes (possibly none).
   * Throws FrameSizeError on a negative or oversize length, before allocating; frames completed
   * earlier in the same chunk are then lost (use `decode` to receive them first). The decoder is
   * reset, but the stream itself is unusable.
   */
  push(chunk: Uint8Array): Uint8Array[] {
    const frames: Uint8Array[] = [];
    this.decode(chunk, (frame) => frames.push(frame));
    return frames;
  }

  /**
   * Feeds a chunk and hands each frame it completes to `onFrame`, in order, as soon as it is
   * complete: a bad length later in the chunk throws only after every earlier frame was handed
   * out (the replies already received are not lost with the stream).
   */
  decode(chunk: Uint8Array, onFrame: FrameHandler): void {
    let pos = this.headFill > 0 ? this.continuePartial(chunk, onFrame) : 0;
    while (chunk.length - pos >= 4) {
      const len = this.checkedLength(chunk, pos);
      if (chunk.length - pos - 4 < len) break;
      const start = pos + 4;
      pos = start + len;
      deliver(onFrame, chunk, start, len);
    }
    if (pos < chunk.length) this.startPartial(chunk.subarray(pos));
  }

  /** Feeds the start of a chunk into the partial frame; returns how many bytes it used. */
  private continuePartial(chunk: Uint8Array, onFrame: FrameHandler): number {
    let pos = 0;
    if (this.headFill < 4) {
      const take = Math.min(4 - this.headFill, chunk.length);
      this.head!.set(chunk.subarray(0, take), this.headFill);
      this.headFill += take;
      pos = take;
      if (this.headFill < 4) return chunk.length;
      this.allocateBody();
    }
    const body = this.body!;
    const take = Math.min(body.length - this.bodyFill, chunk.length - pos);
    body.set(chunk.subarray(pos, pos + take), this.bodyFill);
    this.bodyFill += take;
    pos += take;
    if (this.bodyFill === body.length) {
      this.reset();
      deliver(onFrame, body, 0, body.length);
    }
    return pos;
  }

  /** Copies an incomplete tail (header and/or body start) into the partial state. */
  private startPartial(tail: Uint8Array): void {
    const take = Math.min(4, tail.length);
    this.head ??= new Uint8Array(4);
    this.head.set(tail.subarray(0, take));
    this.headFill = take;
    if (take < 4) return;
    this.allocateBody();
    this.body!.set(tail.subarray(4));
    this.bodyFill = tail.length - 4;
  }

  private allocateBody(): void {
    const len = this.checkedLength(this.head!, 0);
    this.body = new Uint8Array(len);
    this.bodyFill = 0;
  }

  private checkedLength(data: Uint8Array, pos: number): number {
    const len =
      ((data[pos] ?? 0) << 24) |
      ((data[pos + 1] ?? 0) << 16) |
      ((data[pos + 2] ?? 0) << 8) |
      (data[pos + 3] ?? 0);
    if (len < 0 || len > this.maxFrameSize) {
      this.reset();
      throw new FrameSizeError(len, this.maxFrameSize);
    }
    return len;
  }
}
