// What the session is on the server, kept across connections: its id and password, the timeout
// the server granted (and the timers derived from it), the newest zxid seen, and whether a
// read-write server ever accepted it. Every handshake asks with it and updates it.
import { encodeConnectRequest } from '../protocol/codecs.js';
import type { ConnectResponse } from '../protocol/records.js';
import { type SessionTimers, sessionTimers } from './heartbeat.js';

/** The ConnectRequest's protocol version: the only one ZooKeeper servers know. */
const PROTOCOL_VERSION = 0;
const PASSWORD_LENGTH = 16;
/** How many expired session ids are remembered: handshakes in flight span at most a few. */
const MAX_RETIRED = 8;

export class SessionIdentity {
  /** The session id (0n until a server gave one). */
  id = 0n;
  password: Uint8Array = new Uint8Array(PASSWORD_LENGTH);
  /** The timeout the server granted (the requested one until then), ms. */
  timeout: number;
  /** Read and ping timings for the granted timeout. */
  timers: SessionTimers;
  /**
   * The zxid of the newest change seen, as its two int32 halves: every reply carries one, and a
   * bigint made per reply cost an allocation and a runtime call on the hottest path; the bigint is
   * made when someone reads {@link zxid}. `zxidLow` is unsigned.
   */
  private zxidHigh = 0;
  private zxidLow = 0;
  /** {@link zxid} as last built; null when the halves changed since. */
  private zxidBuilt: bigint | null = 0n;
  /**
   * A session first made on a read-only server is local to it: until a read-write server has
   * accepted it, every handshake asks for a new session instead of resuming it.
   */
  private readWriteSeen = false;
  /**
   * Sessions this client declared expired (the newest few). A handshake sent before the expiry
   * may still be answered by a server that had not yet expired that session: it must not come
   * back to life, since every recipe has already given up what it held on it.
   */
  private readonly retired: bigint[] = [];

  constructor(
    private readonly requestedTimeout: number,
    hostCount: number,
    resume?: { id: bigint; password: Uint8Array },
  ) {
    this.timeout = requestedTimeout;
    this.timers = sessionTimers(requestedTimeout, hostCount);
    if (resume) {
      this.id = resume.id;
      this.password = resume.password;
      this.readWriteSeen = true;
    }
  }

  /** The zxid of the newest change seen: a server behind it must not serve this session. */
  get zxid(): bigint {
    this.zxidBuilt ??= (BigInt(this.zxidHigh) << 32n) | BigInt(this.zxidLow);
    return this.zxidBuilt;
  }

  /**
   * A reply's zxid, as the ReplyHeader's two int32 halves (`low` as read, signed or not). Only a
   * positive one counts: the server sends 0 or -1 where a reply carries no change's zxid.
   */
  saw(high: number, low: number): void {
    if (high < 0 || (high === 0 && low === 0)) return;
    const unsignedLow = low >>> 0;
    if (high === this.zxidHigh && unsignedLow === this.zxidLow) return;
    this.zxidHigh = high;
    this.zxidLow = unsignedLow;
    this.zxidBuilt = null;
  }

  /** The first frame of a connection: resume this session, or ask for a new one. */
  connectRequest(readOnly: boolean): Uint8Array {
    return encodeConnectRequest({
      protocolVersion: PROTOCOL_VERSION,
      lastZxidSeen: this.zxid,
      timeOut: this.requestedTimeout,
      sessionId: this.readWriteSeen ? this.id : 0n,
      passwd: this.readWriteSeen ? this.password : new Uint8Array(PASSWORD_LENGTH),
      readOnly,
    });
  }

  /** A server accepted the session: adopt what it says. */
  adopt(response: ConnectResponse, hostCount: number): void {
    this.id = response.sessionId;
    this.password = response.passwd;
    this.timeout = response.timeOut;
    this.timers = sessionTimers(response.timeOut, hostCount);
    if (!response.readOnly) this.readWriteSeen = true;
  }

  /**
   * The session expired: forget it, so that the next handshake asks for a new one. The newest
   * zxid seen is kept (no server behind it may serve the new session either).
   */
  retire(hostCount: number): void {
    this.retired.push(this.id);
    if (this.retired.length > MAX_RETIRED) this.retired.shift();
    this.id = 0n;
    this.password = new Uint8Array(PASSWORD_LENGTH);
    this.readWriteSeen = false;
    this.timeout = this.requestedTimeout;
    this.timers = sessionTimers(this.requestedTimeout, hostCount);
  }

  /** Whether `id` is a session this client declared expired. */
  isRetired(id: bigint): boolean {
    return id !== 0n && this.retired.includes(id);
  }

  /** `0x…`, as ZooKeeper's logs print session ids. */
  get hexId(): string {
    return hexSessionId(this.id);
  }
}

/** `0x…`, as ZooKeeper's logs print session ids. */
export function hexSessionId(id: bigint): string {
  return `0x${id.toString(16)}`;
}
