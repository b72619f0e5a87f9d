// The lock engine's seam to the session: the four requests of an acquisition and its release,
// each answered through a CallSink (a step number and the reply) instead of a promise. On a
// Client the requests go straight to its session, with no argument checks (the engine only sends
// paths it built under a path checked once) and no promise or closure per request; any other
// LockClient (a wrapper that logs or counts calls) is driven through its public calls, so that
// the one engine serves both.
import { Client } from '../client/client.js';
import type { ClientCore } from '../client/core.js';
import { DEFAULT_ACL } from '../client/create-request.js';
import { toStat } from '../client/stat.js';
import { CreateMode, type Stat, type WatchedEvent } from '../client/types.js';
import { codecs, type ResponseOf } from '../protocol/codecs.js';
import { ErrorCode } from '../protocol/errors.js';
import type { CallSink } from '../session/session.js';
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
  createSequential(
    path: string,
    data: Uint8Array,
    signal: AbortSignal | undefined,
    sink: CallSink,
    step: number,
  ): void;
  /** getChildren of `path` without a watch; replies the names (string[]). */
  getChildren(path: string, signal: AbortSignal | undefined, sink: CallSink, step: number): void;
  /** getData of `path` leaving `watcher` as its one-shot data watch when it succeeds. */
  watchData(
    path: string,
    watcher: (event: WatchedEvent) => void,
    signal: AbortSignal | undefined,
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
  if (!seam) {
    const core = Client.coreOf(client);
    seam = core ? new SessionSeam(core) : new CallsSeam(client);
    seams.set(client, seam);
  }
  return seam;
}

const childrenOf = (reply: ResponseOf<'getChildren'>): string[] => reply.children;
const nothing = (): undefined => undefined;

/** Requests queued on the session itself. */
class SessionSeam implements LockSeam {
  private readonly created: (reply: ResponseOf<'create2'>) => CreatedNode;

  constructor(private readonly core: ClientCore) {
    const paths = core.paths;
    this.created = (reply) => ({ path: paths.fromServer(reply.path), stat: toStat(reply.stat) });
  }

  createSequential(
    path: string,
    data: Uint8Array,
    signal: AbortSignal | undefined,
    sink: CallSink,
    step: number,
  ): void {
    const body = {
      path: this.core.paths.toServer(path),
      data,
      acl: DEFAULT_ACL,
      flags: CreateMode.EPHEMERAL_SEQUENTIAL,
      ttl: -1n,
    };
    const details = { path, op: 'create2', signal };
    this.core.session.call(codecs.create2, body, details, sink, step, this.created);
  }

  getChildren(path: string, signal: AbortSignal | undefined, sink: CallSink, step: number): void {
    const body = { path: this.core.paths.toServer(path), watch: false };
    const details = { path, op: 'getChildren', signal };
    this.core.session.call(codecs.getChildren, body, details, sink, step, childrenOf);
  }

  watchData(
    path: string,
    watcher: (event: WatchedEvent) => void,
    signal: AbortSignal | undefined,
    sink: CallSink,
    step: number,
  ): void {
    const session = this.core.session;
    const body = { path: this.core.paths.toServer(path), watch: true };
    const onReply = (err: number) => {
      if (err === ErrorCode.OK) session.watches.add('data', path, watcher);
    };
    const details = { path, op: 'getData', signal, onReply };
    session.call(codecs.getData, body, details, sink, step, nothing);
  }

  delete(path: string, sink: CallSink, step: number): void {
    const body = { path: this.core.paths.toServer(path), version: -1 };
    this.core.session.call(codecs.delete, body, { path, op: 'delete' }, sink, step, nothing);
  }
}

/** Requests made through the public calls of any other LockClient. */
class CallsSeam implements LockSeam {
  constructor(private readonly client: LockClient) {}

  createSequential(
    path: string,
    data: Uint8Array,
    signal: AbortSignal | undefined,
    sink: CallSink,
    step: number,
  ): void {
    const mode = CreateMode.EPHEMERAL_SEQUENTIAL;
    tell(sink, step, () => this.client.create2(path, data, { mode, signal }));
  }

  getChildren(path: string, signal: AbortSignal | undefined, sink: CallSink, step: number): void {
    tell(sink, step, () => this.client.getChildren(path, signal ? { signal } : {}));
  }

  watchData(
    path: string,
    watcher: (event: WatchedEvent) => void,
    signal: AbortSignal | undefined,
    sink: CallSink,
    step: number,
  ): void {
    tell(sink, step, () => this.client.getData(path, { watch: watcher, signal }));
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
