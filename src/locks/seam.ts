// The lock engine's seam to the session: the four requests of an acquisition and its release,
// each answered through a CallSink (a step number and the reply) instead of a promise. On a
// Client the requests go straight to its session, with no argument checks (the engine only sends
// paths it built under a path checked once) and no promise or closure per request; any other
// LockClient (a wrapper that logs or counts calls) is driven through its public calls, so that
// the one engine serves both.

import { Client } from '../client/client.js';
import type { ClientCore } from '../client/core.js';
import { DEFAULT_ACL } from '../client/create-request.js';
import { CreateMode, type Stat, type WatchedEvent } from '../client/types.js';
import { EncodedChildren } from '../coordination/children.js';
import { type Codec, codecs, type RequestOf } from '../protocol/codecs.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Reader } from '../protocol/reader.js';
import type { CallSink, Session, SubmitDetails } from '../session/session.js';
import type { LockClient } from './types.js';

/** A node created by {@link LockSeam.createSequential}, in the client's paths. */
export interface CreatedNode {
  readonly path: string;
  readonly stat: Stat;
}

/**
 * The requests the lock engine makes on its hot path. Each tells `sink.replied(step, error,
 * value)` once, never synchronously.
 */
export interface LockSeam {
  /** create2 of an EPHEMERAL_SEQUENTIAL node `path` + sequence; replies a {@link CreatedNode}. */
  createSequential(path: string, data: Uint8Array, sink: CallSink, step: number): void;
  /** getChildren of `path` without a watch; replies the names ({@link Children}). */
  getChildren(path: string, sink: CallSink, step: number): void;
  /** getData of `path` leaving `watcher` as its one-shot data watch when it succeeds. */
  watchData(
    path: string,
    watcher: (event: WatchedEvent) => void,
    sink: CallSink,
    step: number,
  ): void;
  /** delete of `path` at any version; replies nothing. */
  delete(path: string, sink: CallSink, step: number): void;
}

const seams = new WeakMap<LockClient, LockSeam>();

/** The seam for `client`: straight to the session of a Client, else through its public calls. */
export function seamOf(client: LockClient): LockSeam {
  let seam = seams.get(client);
  // Stryker disable next-line ConditionalExpression: a seam keeps no state; a new one per lookup acts the same
  if (!seam) {
    const core = Client.coreOf(client);
    seam = core ? new SessionSeam(core) : new CallsSeam(client);
    seams.set(client, seam);
  }
  return seam;
}

// The replies read only as far as the engine needs them: the create's path and Stat straight
// into the public form, the names of a listing without a wrapping record, nothing of the getData
// that sets a watch (its data and Stat are not looked at) or of a delete.

/**
 * A jute long as the number `Number(r.long())` gives, with no bigint made for it: the high word
 * times 2^32 is exact, and adding the low word rounds once, to the nearest as Number() does.
 */
function longAsNumber(r: Reader): number {
  const high = r.int();
  return high * 4_294_967_296 + (r.int() >>> 0);
}

/** A create2 reply: the server's path and the public Stat, with no wire Stat in between. */
function readCreated(r: Reader): CreatedNode {
  const path = r.string();
  const czxid = r.long();
  const mzxid = r.long();
  const ctime = longAsNumber(r);
  const mtime = longAsNumber(r);
  const version = r.int();
  const cversion = r.int();
  const aversion = r.int();
  const ephemeralOwner = r.long();
  const dataLength = r.int();
  const numChildren = r.int();
  const pzxid = r.long();
  // The field order of toStat's objects (client/stat.ts): one shape for every Stat.
  const stat = {
    czxid,
    mzxid,
    ctime,
    mtime,
    version,
    cversion,
    aversion,
    ephemeralOwner,
    dataLength,
    numChildren,
    pzxid,
  };
  return { path, stat };
}

const createCodec: Codec<RequestOf<'create2'>, CreatedNode> = {
  // Stryker disable next-line StringLiteral: every request here names its op in its details, so the codec's name is never read
  name: 'create2',
  code: codecs.create2.code,
  write: codecs.create2.write,
  read: readCreated,
};
const listCodec: Codec<RequestOf<'getChildren'>, EncodedChildren> = {
  // Stryker disable next-line StringLiteral: every request here names its op in its details, so the codec's name is never read
  name: 'getChildren',
  code: codecs.getChildren.code,
  write: codecs.getChildren.write,
  read: EncodedChildren.read,
};
const watchCodec: Codec<RequestOf<'getData'>, undefined> = {
  // Stryker disable next-line StringLiteral: every request here names its op in its details, so the codec's name is never read
  name: 'getData',
  code: codecs.getData.code,
  write: codecs.getData.write,
  read: () => undefined,
};
const deleteCodec: Codec<RequestOf<'delete'>, undefined> = {
  // Stryker disable next-line StringLiteral: every request here names its op in its details, so the codec's name is never read
  name: 'delete',
  code: codecs.delete.code,
  write: codecs.delete.write,
  read: () => undefined,
};

/**
 * The details of a getData that sets a watch, which also registers the watcher once the server
 * answers OK: one object per wait where a details record and an `onReply` closure (with its
 * context) were two, on every wait of a contended lock.
 */
class WatchingRead implements SubmitDetails {
  readonly op = 'getData';
  /** As a getData body (see {@link SessionSeam}): the read sets a watch. */
  readonly watch = true;

  constructor(
    readonly path: string,
    private readonly session: Session,
    private readonly watcher: (event: WatchedEvent) => void,
  ) {}

  onReply(err: number): void {
    if (err === ErrorCode.OK) this.session.watches.add('data', this.path, this.watcher);
  }
}

/** A getChildren request without a watch, as the session takes it. */
interface Listing {
  readonly body: RequestOf<'getChildren'>;
  readonly details: { readonly path: string; readonly op: string };
}

/**
 * Requests queued on the session itself. Without a chroot the server's path is the caller's, and
 * one object serves as both the request's body and its details (the codec writes only the fields
 * its record declares; the session reads only the details' path, op and callbacks, and changes
 * neither): one object per request fewer.
 */
class SessionSeam implements LockSeam {
  /**
   * The last listing's request body and details, sent again as they are: a client's locks list
   * the same path over and over (nearly always one path per client), and the session neither
   * changes nor keeps either past encoding and answering the request.
   */
  private listing: Listing | undefined = undefined;
  /** Maps a created node's path out of the chroot; undefined without a chroot. */
  private readonly created: ((reply: CreatedNode) => CreatedNode) | undefined;

  constructor(private readonly core: ClientCore) {
    const paths = core.paths;
    this.created =
      // Stryker disable next-line StringLiteral: a chroot is never that string, and mapping a path out of no chroot leaves it as it is
      paths.chroot === ''
        ? undefined
        : (reply) => ({ path: paths.fromServer(reply.path), stat: reply.stat });
  }

  createSequential(path: string, data: Uint8Array, sink: CallSink, step: number): void {
    const serverPath = this.core.paths.toServer(path);
    const body = {
      path: serverPath,
      data,
      acl: DEFAULT_ACL,
      flags: CreateMode.EPHEMERAL_SEQUENTIAL,
      ttl: -1n,
      op: 'create2',
    };
    const details = serverPath === path ? body : { path, op: 'create2' };
    this.core.session.call(createCodec, body, details, sink, step, this.created);
  }

  getChildren(path: string, sink: CallSink, step: number): void {
    let listing = this.listing;
    if (listing === undefined || listing.details.path !== path) {
      const body = { path: this.core.paths.toServer(path), watch: false, op: 'getChildren' };
      listing = { body, details: body.path === path ? body : { path, op: 'getChildren' } };
      this.listing = listing;
    }
    this.core.session.call(listCodec, listing.body, listing.details, sink, step);
  }

  watchData(
    path: string,
    watcher: (event: WatchedEvent) => void,
    sink: CallSink,
    step: number,
  ): void {
    const session = this.core.session;
    const serverPath = this.core.paths.toServer(path);
    const details = new WatchingRead(path, session, watcher);
    const body = serverPath === path ? details : { path: serverPath, watch: true };
    session.call(watchCodec, body, details, sink, step);
  }

  delete(path: string, sink: CallSink, step: number): void {
    const serverPath = this.core.paths.toServer(path);
    const body = { path: serverPath, version: -1, op: 'delete' };
    const details = serverPath === path ? body : { path, op: 'delete' };
    this.core.session.call(deleteCodec, body, details, sink, step);
  }
}

/** Requests made through the public calls of any other LockClient. */
class CallsSeam implements LockSeam {
  constructor(private readonly client: LockClient) {}

  createSequential(path: string, data: Uint8Array, sink: CallSink, step: number): void {
    const mode = CreateMode.EPHEMERAL_SEQUENTIAL;
    tell(sink, step, () => this.client.create2(path, data, { mode }));
  }

  getChildren(path: string, sink: CallSink, step: number): void {
    tell(sink, step, () => this.client.getChildren(path));
  }

  watchData(
    path: string,
    watcher: (event: WatchedEvent) => void,
    sink: CallSink,
    step: number,
  ): void {
    tell(sink, step, () => this.client.getData(path, { watch: watcher }));
  }

  delete(path: string, sink: CallSink, step: number): void {
    tell(sink, step, () => this.client.delete(path));
  }
}

function tell(sink: CallSink, step: number, call: () => Promise<unknown>): void {
  let pending: Promise<unknown>;
  try {
    pending = call();
  } catch (error) {
    pending = Promise.reject(error);
  }
  pending.then(
    (value) => sink.replied(step, null, value),
    (error: unknown) =>
      sink.replied(step, error instanceof Error ? error : new Error(String(error)), undefined),
  );
}
