// The real-server handle's network: every client connection passes through a Link (the same one
// the model's connections pass through, where black holes and reply delays live) and on to the
// member's JVM over loopback TCP. The relay reads the frames going by: the handshake's answer
// gives each connection's session id and password (what `expireSession` needs to end it from
// outside), and request and reply headers let it lose the reply of a chosen write.
import type { Socket } from 'node:net';
import type { Link } from '../links.js';
import { WRITE_OPS } from '../wire/writes.js';

/** A session as the server granted it on a connection. */
export interface GrantedSession {
  id: bigint;
  password: Uint8Array;
}

// Larger than any frame: the first four bytes are a four-letter word, and the answer is text.
const MAX_FRAME = 0x10_0000 * 16;

/** Splits a byte stream into ZooKeeper frames (4-byte big-endian length, then the body). */
class Frames {
  private buffer = new Uint8Array(0);

  /** The complete frames (bodies, without their length) now available. */
  push(bytes: Uint8Array): Uint8Array[] {
    const joined = new Uint8Array(this.buffer.length + bytes.length);
    joined.set(this.buffer);
    joined.set(bytes, this.buffer.length);
    const frames: Uint8Array[] = [];
    let at = 0;
    while (joined.length - at >= 4) {
      const length = new DataView(joined.buffer, at).getInt32(0);
      if (joined.length - at - 4 < length) break;
      frames.push(joined.slice(at + 4, at + 4 + length));
      at += 4 + length;
    }
    this.buffer = joined.slice(at);
    return frames;
  }
}

function withLength(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + 4);
  new DataView(out.buffer).setInt32(0, body.length);
  out.set(body, 4);
  return out;
}

/** @internal What a relayed connection reports to the handle. */
export interface RelayHooks {
  /** The server granted (or renewed) a session on the link. */
  granted(link: Link, session: GrantedSession): void;
  /** Whether the next write of this link's client is to lose its reply (and disarm it). */
  takeLostReply(link: Link): boolean;
}

/**
 * @internal Wires a Link's server end to a TCP socket to the member: the client's bytes go up
 * unchanged; the server's come down frame by frame (or as raw text after a four-letter word).
 */
export function relay(link: Link, upstream: Socket, hooks: RelayHooks): void {
  const up = new Frames();
  const down = new Frames();
  let raw: boolean | undefined;
  let handshaken = false;
  let answered = false;
  const doomed = new Set<number>();
  upstream.setNoDelay(true);
  link.server.onData = (bytes) => {
    if (raw === undefined && bytes.length >= 4) {
      const length = new DataView(bytes.buffer, bytes.byteOffset).getInt32(0);
      raw = length < 0 || length > MAX_FRAME;
    }
    if (!raw) {
      for (const frame of up.push(bytes)) {
        if (!handshaken) {
          handshaken = true;
          continue;
        }
        if (frame.length < 8) continue;
        const view = new DataView(frame.buffer, frame.byteOffset);
        const xid = view.getInt32(0);
        if (WRITE_OPS.has(view.getInt32(4)) && hooks.takeLostReply(link)) doomed.add(xid);
      }
    }
    if (!upstream.destroyed) upstream.write(bytes);
  };
  link.server.onClose = () => upstream.destroy();
  upstream.on('data', (chunk: Uint8Array) => {
    if (raw) {
      link.server.send(chunk);
      return;
    }
    for (const frame of down.push(chunk)) {
      if (link.closed) return;
      const view = new DataView(frame.buffer, frame.byteOffset);
      if (!answered) {
        answered = true;
        const session = parseConnectResponse(view, frame);
        if (session) hooks.granted(link, session);
      } else if (frame.length >= 4 && doomed.has(view.getInt32(0))) {
        // Applied by the server, its reply never reaches the client: the connection resets.
        link.close();
        return;
      }
      link.server.send(withLength(frame));
    }
  });
  upstream.on('error', () => {});
  upstream.once('close', () => link.close());
}

/** protocolVersion, timeOut, sessionId (int64), passwd (int32 length + bytes), readOnly. */
function parseConnectResponse(view: DataView, frame: Uint8Array): GrantedSession | undefined {
  if (frame.length < 20) return undefined;
  const id = view.getBigInt64(8);
  const length = view.getInt32(16);
  if (id === 0n || length <= 0 || frame.length < 20 + length) return undefined;
  return { id, password: frame.slice(20, 20 + length) };
}
