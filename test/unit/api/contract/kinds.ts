// The kinds of exported class the contract knows (docs/contract.md), and what the catalog says
// about each class so that the checker can try it: how to build it the contract's way, how to make
// each of its waits impossible to meet, which events it has and how to make them happen.
import type { Client } from '../../../../src/client/client.js';
import type { RecipeClient } from '../../../../src/client/recipe-client.js';
import type { Env, SubjectClient } from './env.js';

/** The package's entry points, as a user imports them. */
export type EntryName =
  | 'zookeeper-ts'
  | 'zookeeper-ts/locks'
  | 'zookeeper-ts/recipes'
  | 'zookeeper-ts/testing'
  | 'zookeeper-ts/otel'
  | 'zookeeper-ts/transports';

/** An object under check, seen without its class's types (the checker reads its members). */
export type Loose = Record<PropertyKey, unknown>;

/** A wait's bound, as the contract gives every wait. */
export interface Bounds {
  timeout?: number;
  signal?: AbortSignal;
}

/** What a catalog entry's functions are given: the world, a fresh path, the subject. */
export interface Ctx {
  readonly env: Env;
  readonly path: string;
  /** The object under check, built the contract's way on `control.client`. */
  readonly subject: Loose;
  /** The subject's client and its controls (stall the server, see what was sent). */
  readonly control: SubjectClient;
  /** Runs `undo` when the check ends (close what the entry opened to get in the subject's way). */
  defer(undo: () => Promise<unknown> | unknown): void;
}

/** One wait of a class: how to make it impossible to meet, and how to call it. */
export interface WaitSpec {
  /** The method, as findings name it (`start`, `leadership`, `write.acquire`, ...). */
  readonly name: string;
  /**
   * Puts the subject where the wait cannot be met (starting it if the wait needs that): another
   * session holds the lock, the server stops answering, ...
   */
  block(ctx: Ctx): Promise<void>;
  /** Calls the wait with `bounds`. */
  call(subject: Loose, bounds: Bounds): unknown;
  /**
   * The rules that apply, when not all (`timeout`, `abort`, `bad-timeout`, and `closed` for a
   * long-lived object): a start() that waits for nothing on the server cannot be kept from
   * resolving by a timeout, nor be still waiting when the object is closed.
   */
  readonly rules?: readonly WaitRule[];
}

/** The rules of one wait. */
export type WaitRule = 'timeout' | 'abort' | 'bad-timeout' | 'closed';

/** An event of a class, and how to make it happen at least once. */
export interface EventSpec {
  readonly name: string;
  /** Makes the event happen (listeners are already added); resolves once it has been asked for. */
  trigger(ctx: Ctx): Promise<void>;
}

/**
 * An object that works in the background between calls or holds something on the server
 * (elections, kept nodes, caches, counters, a double barrier's member): `start()`/`close()`
 * promises, `[Symbol.asyncDispose]`, `on(event)`, bounded waits.
 */
export interface LongLived {
  readonly kind: 'long-lived';
  readonly entry: EntryName;
  /** The options the contract's form needs (`{ memberQty }`, `{ task }`, ...); `{}` if none. */
  options(env: Env, path: string): object;
  /** Options the constructor must refuse with an `InvalidArgumentError`. */
  readonly badOptions?: object;
  /** Whether it has `start()` (a double barrier holds its member node without one). */
  readonly start: boolean;
  /** Its events besides `error`. */
  readonly events: readonly EventSpec[];
  readonly waits: readonly WaitSpec[];
  /** Takes what it holds on the server and names that node; `await using` must remove it. */
  held?(ctx: Ctx): Promise<string>;
}

/**
 * An object whose calls each run one operation and hold nothing between them (the locks, a
 * barrier, an atomic counter, a time lease): no `start()`/`close()`; every wait bounded.
 */
export interface SingleOperation {
  readonly kind: 'single-operation';
  readonly entry: EntryName;
  /** The options the contract's form needs; `{}` if none. */
  options(env: Env, path: string): object;
  readonly badOptions?: object;
  /**
   * A class whose constructor is not `(client, path, options?)`, and why: how to build one, and
   * a construction it must refuse with an `InvalidArgumentError`.
   */
  readonly madeOtherwise?: {
    readonly why: string;
    build(client: RecipeClient, path: string): object;
    refused(client: RecipeClient): unknown;
  };
  readonly waits: readonly WaitSpec[];
  /** Takes something it gives back with `await using` (a lease), and the nodes that hold it. */
  hold?(ctx: Ctx): Promise<{ held: AsyncDisposable; nodes: readonly string[] }>;
}

/** An error class: its code, and an instance to look at. */
export interface ErrorKind {
  readonly kind: 'error';
  readonly entry: EntryName;
  /** The `code` its instances carry (for a client-side class still to get one: undefined). */
  readonly code: string | undefined;
  /** Whether it is one of the client's own faults (its `errno` lies below -1000). */
  readonly clientSide: boolean;
  /** Whether it is a `ZooKeeperError` (all but what a listener threw). */
  readonly zooKeeperError: boolean;
  make(): Error;
}

/** The client itself: `Client.connect` instead of a constructor, the same lifecycle and listening. */
export interface ClientKind {
  readonly kind: 'client';
  readonly entry: EntryName;
  connect(env: Env): Promise<Client>;
  /** `Client.connect` with `bounds` where no session can be had (a wait that cannot be met). */
  unreachable(env: Env, bounds: Bounds): Promise<Client>;
}

/** A value or utility class (a transport's connection): no lifecycle of the contract's. */
export interface ValueKind {
  readonly kind: 'value';
  readonly entry: EntryName;
  /** Why the recipe contract does not apply to it. */
  readonly why: string;
}

/**
 * What another object hands out and takes back (an entry a queue took): given back with
 * `release()` or `await using`, its `signal` aborting with a `LeaseReleasedError` when it is.
 */
export interface HandleKind {
  readonly kind: 'handle';
  readonly entry: EntryName;
  /** Who hands it out. */
  readonly why: string;
  /** Gets one on `client` (`defer` closes what made it), with the nodes that hold it. */
  take(
    env: Env,
    client: RecipeClient,
    path: string,
    defer: (undo: () => unknown) => void,
  ): Promise<{ handle: Loose; nodes: readonly string[] }>;
}

export type ClassSpec =
  | LongLived
  | SingleOperation
  | ErrorKind
  | ClientKind
  | ValueKind
  | HandleKind;
