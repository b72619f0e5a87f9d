// The session manager: finds a server, keeps one connection alive, pipelines requests over it and
// resumes the same session on another server when the link breaks, until the session ends.
//
// Two queues. The outbox (outbox.ts) holds frames not yet written: user requests in it survive a
// reconnect and go out on the next connection. `pending` holds written requests awaiting replies, answered
// strictly in order; when a link breaks they fail with CONNECTIONLOSS, because nobody can know
// whether the server applied them.
import {
  type Codec,
  codecs,
  decodeConnectResponse,
  decodeReplyHeader,
  decodeWatcherEvent,
  encodeConnectRequest,
  encodeRequest,
} from '../protocol/codecs.js';
import { errorFromCode, makeError, ProtocolError, ZooKeeperError } from '../protocol/errors.js';
import { DEFAULT_MAX_FRAME, FrameDecoder, FrameSizeError } from '../protocol/frame.js';
import { Xid } from '../protocol/ops.js';
import { stripChroot } from '../protocol/paths.js';
import { Reader } from '../protocol/reader.js';
import { type Clock, sleep, systemClock } from './clock.js';
import {
  authFrame,
  handshakeRefusal,
  PING_FRAME,
  REPLY_HEADER_SIZE,
  setWatchesReply,
} from './control-frames.js';
import { eventTypeName } from './events.js';
import { Heartbeat, type SessionTimers, sessionTimers } from './heartbeat.js';
import { formatHost, type HostAddress, type HostList } from './hosts.js';
import { Outbox } from './outbox.js';
import { attemptBudget, reconnectPause } from './pacing.js';
import { Deque } from './queue.js';
import { findReadWriteServer } from './readonly-probe.js';
import { type AuthEntry, makeRequest, type Outbound, type PendingRequest } from './requests.js';
import { setWatchFrames } from './restore.js';
import type { SaslOptions } from './sasl/options.js';
import { saslOnConnection } from './sasl/session-hook.js';
import { isConnected, isFinal, StateMachine } from './state.js';
import type { Connection, Transport } from './transport.js';
import type { SessionState, TlsOptions } from './types.js';
import { CONFIG_NODE, WatchRegistry } from './watches.js';

export interface SessionConfig {
  hosts: HostList;
  chroot: string;
  sessionTimeout: number;
  connectTimeout: number;
  readOnly: boolean;
  auth: readonly { scheme: string; auth: Uint8Array }[];
  /** SASL credentials, exchanged on every connection before any other request. */
  sasl?: SaslOptions;
  tls?: TlsOptions;
  transport: Transport;
  maxFrameSize?: number;
  /** Each call gives up (REQUESTTIMEOUT) after this many ms without a reply; 0 = no limit. */
  requestTimeout?: number;
  clock?: Clock;
  resume?: { id: bigint; password: Uint8Array };
}

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

const CLOSE_REPLY_TIMEOUT = 5_000;

export class Session {
  readonly watches = new WatchRegistry();
  readonly chroot: string;
  private readonly machine = new StateMachine();
  private readonly clock: Clock;
  private readonly maxFrameSize: number;
  private readonly outbox = new Outbox((item) => {
    if (item.kind === 'auth') this.authInFlight.push(item.entry);
    else if (item.request) this.pending.push(item.request);
    this.heartbeat?.sent();
  });
  private readonly pending = new Deque<PendingRequest>();
  private readonly authInFlight = new Deque<AuthEntry>();
  private readonly auth: AuthEntry[];

  private id = 0n;
  private password: Uint8Array = new Uint8Array(16);
  private negotiatedTimeout: number;
  private zxid = 0n;
  private xid = 0;
  private seenReadWriteServer = false;
  private timers: SessionTimers;

  private connection: Connection | null = null;
  private connectedTo: HostAddress | null = null;
  private onReadOnlyServer = false;
  private heartbeat: Heartbeat | null = null;
  private lastHeardAt = 0;
  private expiryTimer: unknown = null;
  private readonly stop = new AbortController();
  private loop: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  /** The server acknowledged closeSession: never reconnect after that. */
  private closeAnswered = false;
  private lastError: unknown = null;
  /** Why the session ended, when something other than the state says it best. */
  private endReason: ZooKeeperError | null = null;
  /** When start()'s connectTimeout runs out (the first pass's budget is shared up to it). */
  private connectDeadline: number | null = null;

  constructor(private readonly config: SessionConfig) {
    this.chroot = config.chroot;
    this.clock = config.clock ?? systemClock;
    this.maxFrameSize = config.maxFrameSize ?? DEFAULT_MAX_FRAME;
    this.negotiatedTimeout = config.sessionTimeout;
    this.timers = sessionTimers(config.sessionTimeout, config.hosts.size);
    this.auth = config.auth.map(({ scheme, auth }) => ({ scheme, auth, waiters: [] }));
    if (config.resume) {
      this.id = config.resume.id;
      this.password = config.resume.password;
      this.seenReadWriteServer = true;
    }
  }

  get state(): SessionState {
    return this.machine.state;
  }
  get sessionId(): bigint {
    return this.id;
  }
  get sessionPassword(): Uint8Array {
    return this.password;
  }
  get sessionTimeout(): number {
    return this.negotiatedTimeout;
  }
  get lastZxid(): bigint {
    return this.zxid;
  }
  get hostList(): HostList {
    return this.config.hosts;
  }
  /** The server the session is connected to, or null while not connected. */
  get server(): HostAddress | null {
    return this.connectedTo;
  }

  onState(
    listener: (state: SessionState, previous: SessionState, cause?: Error) => void,
  ): () => void {
    return this.machine.subscribe(listener);
  }

  /**
   * Starts the connect loop. Resolves once a session is established and the initial credentials
   * are accepted; rejects (and closes) when that takes longer than `connectTimeout`.
   */
  start(): Promise<void> {
    this.connectDeadline = this.clock.now() + this.config.connectTimeout;
    this.loop = this.run();
    const initialAuth = this.auth.map((entry) => {
      const accepted = new Promise<void>((resolve, reject) =>
        entry.waiters.push({ resolve, reject }),
      );
      // Awaited only once a session exists: when connect fails first, shutdown() rejects these
      // with nobody listening, and an unhandled rejection would end the user's process.
      accepted.catch(() => {});
      return accepted;
    });
    const established = new Promise<void>((resolve, reject) => {
      const unsubscribe = this.machine.subscribe((state) => {
        if (isConnected(state)) {
          unsubscribe();
          resolve();
        } else if (isFinal(state)) {
          unsubscribe();
          reject(this.endReason ?? this.finalError());
        }
      });
    });
    let timer: unknown;
    const timeout = new Promise<never>((_, reject) => {
      timer = this.clock.setTimeout(() => {
        const tried = this.config.hosts.all().map(formatHost).join(', ');
        const cause =
          this.lastError instanceof Error ? ` (last error: ${this.lastError.message})` : '';
        const error = makeError(
          'CONNECTIONLOSS',
          `no ZooKeeper session within ${this.config.connectTimeout} ms from ${tried}${cause}`,
          { op: 'connect', cause: this.lastError },
        );
        void this.shutdown('closed', error);
        reject(error);
      }, this.config.connectTimeout);
    });
    const ready = established.then(() => Promise.all(initialAuth)).then(() => {});
    return Promise.race([ready, timeout]).finally(() => this.clock.clearTimeout(timer));
  }

  /** Queues a request; it is written on the current connection or the next one. */
  submit<Req, Res>(codec: Codec<Req, Res>, body: Req, details: SubmitDetails = {}): Promise<Res> {
    const op = details.op ?? codec.name;
    if (isFinal(this.state) || this.closing) {
      return Promise.reject(this.finalError(op, details.path));
    }
    const signal = details.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const xid = this.nextXid();
    let frame: Uint8Array;
    try {
      frame = encodeRequest(xid, codec, body);
    } catch (error) {
      return Promise.reject(error);
    }
    if (frame.length - 4 > this.maxFrameSize) {
      return Promise.reject(
        makeError(
          'BADARGUMENTS',
          `${op} request is ${frame.length - 4} bytes, over the ${this.maxFrameSize}-byte frame limit (jute.maxbuffer)`,
          { path: details.path, op },
        ),
      );
    }
    return new Promise<Res>((resolve, reject) => {
      const giveUp = (reason: unknown) => {
        // Not yet written: take it out. Already written: its reply must still be consumed in
        // order, so it stays pending, abandoned.
        if (!this.outbox.remove(item)) request.abandoned = true;
        request.settle(reason instanceof Error ? reason : new Error(String(reason)));
      };
      const onAbort = () => giveUp(signal?.reason ?? new Error('aborted'));
      const timeout = this.config.requestTimeout;
      const timer =
        timeout && timeout > 0
          ? this.clock.setTimeout(
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
        if (timer !== null) this.clock.clearTimeout(timer);
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
      this.outbox.push(item);
    });
  }

  /** Adds credentials now and for every later reconnect; resolves when the server accepts them. */
  addAuth(scheme: string, auth: Uint8Array): Promise<void> {
    if (isFinal(this.state) || this.closing) return Promise.reject(this.finalError('addAuth'));
    // Kept and re-sent with every handshake: one the server must refuse would loop forever.
    const size = authFrame({ scheme, auth, waiters: [] }).frame.length - 4;
    if (size > this.maxFrameSize) {
      return Promise.reject(
        makeError(
          'BADARGUMENTS',
          `addAuth request is ${size} bytes, over the ${this.maxFrameSize}-byte frame limit (jute.maxbuffer)`,
          { op: 'addAuth' },
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const entry: AuthEntry = { scheme, auth, waiters: [{ resolve, reject }] };
      this.auth.push(entry);
      // When not connected, the next handshake sends it with the others.
      if (this.connection) this.outbox.push(authFrame(entry));
    });
  }

  close(): Promise<void> {
    if (!this.closing) this.closing = this.closeSession();
    return this.closing;
  }

  /** Drops the current connection (for tests of failover and for moving to another server). */
  dropConnection(reason = 'dropped by the client'): void {
    if (!this.connection) return;
    this.lastError = makeError('CONNECTIONLOSS', reason);
    this.connection.close();
  }

  // ---- connect loop ------------------------------------------------------------------------

  private async run(): Promise<void> {
    let failures = 0;
    let attempts = 0;
    while (!isFinal(this.state) && !this.stop.signal.aborted && !this.closeAnswered) {
      const { host, cycled } = this.config.hosts.next();
      if (cycled && failures > 0) {
        // A whole round without a session: pause before the next, as the Java client does,
        // but never so long that a short session cannot be resumed in time.
        failures = 0;
        const pause = Math.min(1_000, Math.floor(this.negotiatedTimeout / 4));
        if (!(await this.pause(pause * (0.5 + Math.random() / 2)))) return;
      }
      const budget = attemptBudget({
        perHost: this.timers.connectTimeout,
        deadline: this.state === 'connecting' ? this.connectDeadline : null,
        now: this.clock.now(),
        hostCount: this.config.hosts.size,
        attempts: attempts++,
      });
      if (await this.attempt(host, budget)) {
        failures = 0;
        // The link broke after a session was had: a random pause before dialling again.
        if (!(await this.pause(reconnectPause(this.negotiatedTimeout)))) return;
      } else {
        failures++;
      }
    }
  }

  /** Sleeps unless the session is stopping; false when it is. */
  private async pause(ms: number): Promise<boolean> {
    if (isFinal(this.state) || this.closeAnswered) return false;
    try {
      await sleep(this.clock, ms, this.stop.signal);
      return true;
    } catch {
      return false;
    }
  }

  /** One connection: handshake, then serve it until it breaks. Returns whether a session was had. */
  private async attempt(host: HostAddress, budget: number): Promise<boolean> {
    const attempt = new AbortController();
    const onStop = () => attempt.abort(this.stop.signal.reason);
    this.stop.signal.addEventListener('abort', onStop, { once: true });
    const timedOut = makeError(
      'CONNECTIONLOSS',
      `no handshake from ${formatHost(host)} within ${budget} ms`,
    );
    const handshakeTimer = this.clock.setTimeout(() => attempt.abort(timedOut), budget);
    let connection: Connection | null = null;
    const onAbort = () => connection?.close();
    attempt.signal.addEventListener('abort', onAbort, { once: true });
    try {
      connection = await this.config.transport.connect({
        host: host.host,
        port: host.port,
        tls: this.config.tls,
        signal: attempt.signal,
      });
      return await this.serve(connection, host, () => this.clock.clearTimeout(handshakeTimer));
    } catch (error) {
      const reason: unknown = attempt.signal.aborted ? attempt.signal.reason : error;
      // An attempt that connect()'s deadline cut short says only that time ran out: keep the
      // earlier failure (a refused certificate, a refused connection) that says why.
      const cutShort = reason === timedOut && budget < this.timers.connectTimeout;
      if (!(cutShort && this.lastError)) this.lastError = reason;
      if (error instanceof ZooKeeperError && error.code === 'BADARGUMENTS') {
        // The transport refused our settings (e.g. TLS options a runtime cannot honour): no
        // retry can succeed, so stop now with that reason instead of at connectTimeout.
        void this.shutdown('closed', error);
      }
      return false;
    } finally {
      this.clock.clearTimeout(handshakeTimer);
      attempt.signal.removeEventListener('abort', onAbort);
      this.stop.signal.removeEventListener('abort', onStop);
      connection?.close();
    }
  }

  private async serve(
    connection: Connection,
    host: HostAddress,
    handshakeDone: () => void,
  ): Promise<boolean> {
    const decoder = new FrameDecoder(this.maxFrameSize);
    let established = false;
    connection.write(
      encodeConnectRequest({
        protocolVersion: 0,
        lastZxidSeen: this.zxid,
        timeOut: this.config.sessionTimeout,
        sessionId: this.seenReadWriteServer ? this.id : 0n,
        passwd: this.seenReadWriteServer ? this.password : new Uint8Array(16),
        readOnly: this.config.readOnly,
      }),
    );
    try {
      let refused = false;
      for await (const chunk of connection.chunks) {
        // Frames are handled as they are decoded, so that the replies ahead of an oversized one
        // in the same chunk are delivered before the oversized length ends the stream.
        decoder.decode(chunk, (frame) => {
          if (refused) return;
          if (established) {
            this.handleFrame(frame);
            return;
          }
          handshakeDone();
          if (!this.handshake(frame, connection, host)) {
            refused = true;
            return;
          }
          established = true;
          if (this.onReadOnlyServer) void this.probeForReadWrite(connection, host);
        });
        if (refused) return false;
      }
      const closeError = connection.closeError;
      if (!established) {
        this.lastError = makeError(
          'CONNECTIONLOSS',
          closeError
            ? `${formatHost(host)} closed the connection during the handshake: ${closeError.message}`
            : `${formatHost(host)} closed the connection during the handshake (a read-only server, or one behind our last zxid)`,
          { cause: closeError },
        );
      } else if (this.lastError === null && closeError) {
        // The peer or the network ended it (a reset, a TLS alert): that is the cause users see.
        this.lastError = closeError;
      }
    } catch (error) {
      // Malformed or hostile bytes: drop this link, keep the session, try the next host.
      this.lastError = error;
      if (established && error instanceof FrameSizeError && error.length > error.limit) {
        // Every earlier frame was handled, so the oversized frame is the reply to the oldest
        // pending request (a huge child list): tell that caller why, or it would see a bare
        // CONNECTIONLOSS and retry forever.
        const head = this.pending.shift();
        head?.settle(
          new ProtocolError(
            `the reply to ${head.op} is over the ${this.maxFrameSize}-byte frame limit (${error.message}); raise maxFrameSize (the server's jute.maxbuffer must allow it too)`,
            { op: head.op, path: head.path },
          ),
        );
      }
    } finally {
      if (established) this.connectionLost(connection, host);
    }
    return established;
  }

  private handshake(frame: Uint8Array, connection: Connection, host: HostAddress): boolean {
    if (frame.length === REPLY_HEADER_SIZE) throw handshakeRefusal(frame);
    const response = decodeConnectResponse(frame);
    if (response.timeOut <= 0) {
      // The server no longer knows this session (expired, or a wrong password).
      this.expire(makeError('SESSIONEXPIRED', `session 0x${this.id.toString(16)} has expired`));
      return false;
    }
    this.id = response.sessionId;
    this.password = response.passwd;
    this.negotiatedTimeout = response.timeOut;
    this.timers = sessionTimers(response.timeOut, this.config.hosts.size);
    this.onReadOnlyServer = response.readOnly;
    if (!response.readOnly) this.seenReadWriteServer = true;
    this.config.hosts.markConnected();
    this.connection = connection;
    // Before any transition: a 'connected' listener may read `server`.
    this.connectedTo = host;
    this.lastError = null;
    this.clearExpiryTimer();
    this.lastHeardAt = this.clock.now();
    this.heartbeat = new Heartbeat(this.clock, this.timers, {
      ping: () => this.outbox.push({ kind: 'control', frame: PING_FRAME }),
      dead: (silentFor) => {
        this.lastError = makeError(
          'CONNECTIONLOSS',
          `no reply from the server for ${Math.round(silentFor)} ms`,
        );
        connection.close();
      },
    });
    this.heartbeat.start();
    const sasl = this.config.sasl;
    if (!sasl) this.openForRequests(connection, response.readOnly);
    else
      saslOnConnection(sasl, this.pending, connection, {
        nextXid: () => this.nextXid(),
        sent: () => this.heartbeat?.sent(),
        done: () => {
          if (this.connection === connection) this.openForRequests(connection, response.readOnly);
        },
        failed: (error) => this.authFailed(error),
      });
    return true;
  }

  /** The connection is ready (authenticated): restore its state, then let every request out. */
  private openForRequests(connection: Connection, readOnly: boolean): void {
    // Ahead of anything already queued: the credentials, then the watches to restore.
    const connectedState = readOnly ? 'connected-readonly' : 'connected';
    const first: Outbound[] = this.auth.map(authFrame);
    const watchFrames = setWatchFrames(this.watches.paths(), this.chroot, this.zxid);
    // Announce the connection only once every watch is armed again on the server: a change
    // made after a listener saw 'connected' must reach the watches (persistent watches get no
    // catch-up events from SetWatches).
    let restoring = watchFrames.length;
    for (const frame of watchFrames) {
      first.push({
        kind: 'control',
        frame,
        request: setWatchesReply(() => {
          restoring--;
          if (restoring === 0 && this.connection === connection)
            this.machine.transition(connectedState);
        }),
      });
    }
    this.outbox.pushFront(first);
    if (restoring === 0) this.machine.transition(connectedState);
    this.outbox.attach(connection);
  }

  private handleFrame(frame: Uint8Array): void {
    const reader = new Reader(frame);
    const header = decodeReplyHeader(reader);
    this.heartbeat?.heard();
    this.lastHeardAt = this.clock.now();
    if (header.xid === Xid.notification) {
      const event = decodeWatcherEvent(reader);
      const type = eventTypeName(event.type);
      if (type) {
        const path = stripChroot(this.chroot, event.path);
        // A path outside the chroot is the configuration node's: only getConfig watches it.
        if (this.chroot === '' || path !== event.path) this.watches.dispatch(type, path);
        if (event.path === CONFIG_NODE) this.watches.dispatchConfig(type);
      }
      return;
    }
    if (header.xid === Xid.ping) return;
    if (header.xid === Xid.auth) {
      const entry = this.authInFlight.shift();
      const waiters = entry?.waiters.splice(0) ?? [];
      if (header.err === 0) {
        for (const waiter of waiters) waiter.resolve();
        return;
      }
      const error = errorFromCode(header.err, { op: 'addAuth' });
      for (const waiter of waiters) waiter.reject(error);
      this.authFailed(error);
      return;
    }
    const request = this.pending.shift();
    if (!request || request.xid !== header.xid) {
      if (request) this.pending.unshift(request);
      throw new ProtocolError(
        `reply xid ${header.xid} does not match the oldest request (${request ? request.xid : 'none'})`,
      );
    }
    if (header.zxid > 0n) this.zxid = header.zxid;
    try {
      if (request.abandoned) request.onAbandonedReply?.(header.err);
      else request.onReply?.(header.err);
    } catch {
      // Watch bookkeeping must never break reply delivery.
    }
    if (request.abandoned) return;
    if (header.err !== 0) {
      request.settle(errorFromCode(header.err, { path: request.path, op: request.op }));
      return;
    }
    let value: unknown;
    try {
      value = request.read(reader);
    } catch (error) {
      request.settle(error instanceof Error ? error : new ProtocolError(String(error)));
      throw error;
    }
    request.settle(null, value);
  }

  private connectionLost(connection: Connection, host: HostAddress): void {
    if (this.connection !== connection) return;
    this.connection = null;
    this.connectedTo = null;
    this.heartbeat?.stop();
    this.heartbeat = null;
    const reason =
      this.lastError instanceof Error ? this.lastError.message : 'the connection closed';
    const message = `connection to ${formatHost(host)} lost: ${reason}`;
    const cause = this.lastError instanceof Error ? this.lastError : undefined;
    for (const request of this.pending.drain()) {
      request.settle(
        makeError('CONNECTIONLOSS', message, {
          op: request.op,
          path: request.path,
          cause,
        }),
      );
    }
    // Credentials without a reply are re-sent (with their waiters) by the next handshake.
    this.authInFlight.drain();
    this.outbox.detach();
    if (isFinal(this.state) || this.closeAnswered) return;
    this.machine.transition('suspended', cause);
    this.armExpiryTimer();
  }

  /**
   * On a read-only server, keep looking for a read-write one; when found, leave for it (the
   * session obtained read-only is replaced by a read-write one, as in the Java client).
   */
  private async probeForReadWrite(connection: Connection, current: HostAddress): Promise<void> {
    const stop = new AbortController();
    void connection.closed.then(() => stop.abort());
    const others = () =>
      this.config.hosts.all().filter((h) => h.host !== current.host || h.port !== current.port);
    const found = await findReadWriteServer(
      this.config.transport,
      others,
      this.config.tls,
      this.clock,
      AbortSignal.any([stop.signal, this.stop.signal]),
    );
    if (!found || this.connection !== connection) return;
    this.config.hosts.preferNext(found);
    this.dropConnection(
      `${formatHost(found)} serves reads and writes; leaving the read-only server`,
    );
  }

  // ---- writing -----------------------------------------------------------------------------

  private nextXid(): number {
    // The Java client's rule: 1 .. 2^31-1, wrapping to 1; 0 and negatives are reserved.
    this.xid = this.xid >= 0x7fffffff ? 1 : this.xid + 1;
    return this.xid;
  }

  // ---- endings -----------------------------------------------------------------------------

  private armExpiryTimer(): void {
    this.clearExpiryTimer();
    if (this.id === 0n) return;
    // Nothing heard for a whole session timeout: the server has expired us, or will before we
    // could prove otherwise. Declaring it here keeps locks safe and stops retrying forever.
    const remaining = Math.max(0, this.lastHeardAt + this.negotiatedTimeout - this.clock.now());
    this.expiryTimer = this.clock.setTimeout(() => {
      this.expiryTimer = null;
      if (isConnected(this.state) || isFinal(this.state)) return;
      this.expire(
        makeError(
          'SESSIONEXPIRED',
          `no server answered for ${this.negotiatedTimeout} ms (the session timeout): session 0x${this.id.toString(16)} is considered expired`,
        ),
      );
    }, remaining);
  }

  private clearExpiryTimer(): void {
    if (this.expiryTimer !== null) this.clock.clearTimeout(this.expiryTimer);
    this.expiryTimer = null;
  }

  private expire(error: ZooKeeperError): void {
    void this.shutdown('expired', error);
  }

  private authFailed(error: ZooKeeperError): void {
    void this.shutdown('auth-failed', error);
  }

  private finalError(op?: string, path?: string): ZooKeeperError {
    const details = { op, path };
    switch (this.state) {
      case 'expired':
        return makeError(
          'SESSIONEXPIRED',
          `session 0x${this.id.toString(16)} has expired`,
          details,
        );
      case 'auth-failed':
        return makeError('AUTHFAILED', 'authentication failed; the session is unusable', details);
      default:
        return makeError('SESSIONEXPIRED', 'the client is closed', details);
    }
  }

  /** Moves to a final state and fails everything that waits. */
  private async shutdown(
    state: 'expired' | 'auth-failed' | 'closed',
    error: ZooKeeperError,
  ): Promise<void> {
    if (isFinal(this.state)) return;
    this.endReason = error;
    this.clearExpiryTimer();
    this.heartbeat?.stop();
    this.heartbeat = null;
    this.machine.transition(state, error);
    this.stop.abort(error);
    const connection = this.connection;
    this.connection = null;
    this.connectedTo = null;
    connection?.close();
    const fail = (request: PendingRequest | undefined) =>
      request?.settle(
        errorFromCode(error.errno, {
          message: error.message,
          op: request.op,
          path: request.path,
          cause: error.cause,
        }),
      );
    for (const request of this.pending.drain()) fail(request);
    for (const item of this.outbox.drain()) if (item.kind !== 'auth') fail(item.request);
    this.authInFlight.drain();
    for (const entry of this.auth)
      for (const waiter of entry.waiters.splice(0)) waiter.reject(error);
    this.watches.endAll(state, error);
    await this.loop?.catch(() => {});
  }

  /**
   * Ends the session on the server (its ephemeral nodes go at once). A suspended session first
   * waits, within a bound, for a connection to come back: otherwise its ephemerals (lock nodes
   * included) would linger for a whole session timeout.
   */
  private async closeSession(): Promise<void> {
    // Half the session timeout at most, so an explicit close ends as 'closed', not 'expired'.
    const bound = Math.min(CLOSE_REPLY_TIMEOUT, Math.floor(this.negotiatedTimeout / 2));
    const deadline = this.clock.now() + bound;
    while (!isFinal(this.state) && this.id !== 0n) {
      const remaining = deadline - this.clock.now();
      if (remaining <= 0) break;
      if (!isConnected(this.state)) {
        if (!(await this.waitForConnection(remaining))) break;
        continue;
      }
      if (await this.sendCloseSession(remaining)) break;
    }
    await this.shutdown('closed', makeError('SESSIONEXPIRED', 'the client is closed'));
  }

  /** True once the server answered closeSession; false if the link broke or time ran out. */
  private sendCloseSession(timeout: number): Promise<boolean> {
    const xid = this.nextXid();
    return new Promise<boolean>((resolve) => {
      const timer = this.clock.setTimeout(() => resolve(false), timeout);
      const done = (answered: boolean) => {
        this.clock.clearTimeout(timer);
        if (answered) this.closeAnswered = true;
        resolve(answered);
      };
      const request = makeRequest({
        xid,
        op: 'closeSession',
        read: () => undefined,
        resolve: () => done(true),
        reject: (error) =>
          done(!(error instanceof ZooKeeperError && error.code === 'CONNECTIONLOSS')),
      });
      this.outbox.push({
        kind: 'request',
        frame: encodeRequest(xid, codecs.closeSession, undefined),
        request,
      });
    });
  }

  private waitForConnection(timeout: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = this.clock.setTimeout(() => {
        unsubscribe();
        resolve(false);
      }, timeout);
      const unsubscribe = this.machine.subscribe((state) => {
        if (!isConnected(state) && !isFinal(state)) return;
        this.clock.clearTimeout(timer);
        unsubscribe();
        resolve(isConnected(state));
      });
    });
  }
}
