// The public shape of a test server: what `startServer` takes and the handle it gives back.
import type { Transport } from '../session/transport.js';
import type { ManualClock } from './clock.js';

/** A session, by its id or by a client that has one (a connected `Client`). */
export type SessionTarget = bigint | SessionHolder;

/** Anything with a session id: a connected `Client`. */
export interface SessionHolder {
  /** The id of its current session. */
  readonly sessionId: bigint;
}

/** The connections of a named in-memory client (see {@link TestServer.transportFor}). */
export interface ClientTarget {
  /** The name given to {@link TestServer.transportFor}. */
  readonly client: string;
}

/** Which server `startServer` starts: the in-process model, or a real ZooKeeper's JVMs. */
export type TestServerKind = 'model' | 'real';

/** Options of `startServer`. */
export interface TestServerOptions {
  /**
   * `'model'`: the in-process ZooKeeper (no Java). `'real'`: a real ZooKeeper started from a local
   * install (Debian's package or `ZOOKEEPER_HOME`, with `java`), behind the same handle; Node, Bun
   * and Deno only. Default: the `ZKTS_TEST_SERVER` environment variable where there is one, else
   * `'model'`, so one test file runs on either by configuration.
   */
  kind?: TestServerKind;
  /** Members of the ensemble (1: standalone). Default 1. */
  members?: number;
  /**
   * `'real'` (default): the server's time is the runtime's. A {@link ManualClock} from
   * `manualClock()`: session expiry, delays, elections and restarts wait for `clock.advance()`.
   */
  clock?: 'real' | ManualClock;
  /**
   * Listen on TCP loopback ports (one per member) so that any client can connect, ours or
   * another language's. Default true; false where `node:net` does not exist (workerd), where only
   * {@link TestServer.transport} reaches the server.
   */
  listen?: boolean;
  /** The address to listen on. Default `127.0.0.1`. */
  host?: string;
  /** The first member's port (member n gets `port + n - 1`). Default 0: any free ports. */
  port?: number;
  /** ZooKeeper's tickTime (ms): sessions get timeouts clamped to [2, 20] ticks. Default 2000. */
  tickTime?: number;
  /**
   * As `enforce.auth.enabled` with the digest scheme: a connection must first add these digest
   * credentials (`user:password`), or its first other request closes the session.
   */
  requireDigest?: string;
  /** Seed of the server's random choices (session passwords, the order of listed children). */
  seed?: number;
}

/** One member of a test server, as it is now. */
export interface TestServerMember {
  /** 1 to `members`. */
  readonly id: number;
  /** Its address (`host:port`) in the connect string. */
  readonly address: string;
  /** It leads and has a quorum behind it. */
  readonly leader: boolean;
  /** Its process runs (false between `crash` and its restart). */
  readonly up: boolean;
  /** It serves clients (false while it is down, cut off, electing or catching up). */
  readonly serving: boolean;
}

/**
 * An in-process ZooKeeper for tests: connect with {@link connectString} (TCP, any client) or with
 * `{ transport: server.transport }` (in memory, every runtime), and call the fault controls.
 * Not durable, not secure, not for production.
 */
export interface TestServer extends AsyncDisposable {
  /** Which server this is (see {@link TestServerOptions.kind}). */
  readonly kind: TestServerKind;
  /** `host:port,...` of every member. */
  readonly connectString: string;
  /** A transport reaching the members in memory: `Client.connect(connectString, { transport })`. */
  readonly transport: Transport;
  /**
   * The members, as they are now (on a real server: as of its start and the last crash or
   * restart, when the handle last asked them).
   */
  readonly members: readonly TestServerMember[];
  /** An in-memory transport whose connections carry the client name `client` (for faults). */
  transportFor(client: string): Transport;
  /**
   * Expires a session as the server's session tracker does when its timeout passes: its
   * ephemerals are deleted, its connection closed, and its client learns it expired when it
   * reconnects. Resolves false if there is no such live session. (On a real server another
   * connection takes the session over and closes it, as Curator's KillSession does.)
   */
  expireSession(target: SessionTarget): Promise<boolean>;
  /** Expires every session whose connection came through `transportFor(client)`; the count. */
  expireSessions(client: string): Promise<number>;
  /** Closes the server's side of the matching connections (all when unset); the count. */
  dropConnections(target?: SessionTarget | ClientTarget): number;
  /**
   * Holds every byte both ways on the matching connections (all when unset) for `ms`, as a link
   * that silently drops packets while TCP retransmits: nothing is lost, everything is late.
   */
  blackHole(target: SessionTarget | ClientTarget | undefined, ms: number): void;
  /** Delays every reply and event on the matching connections by `ms` from now on (0 clears). */
  delayReplies(ms: number, target?: SessionTarget | ClientTarget): void;
  /**
   * The next write of the matching client is applied, and its reply lost: the connection is
   * reset just before the reply gets out (the client must find out what happened).
   */
  loseNextReply(target: SessionTarget | ClientTarget): void;
  /**
   * Cuts member `id` off from the others for `ms` (it stops serving once it notices). The model
   * only: a real server rejects it with UNIMPLEMENTED.
   */
  partition(member: number, ms: number): void;
  /**
   * Kills member `id`'s process: its clients are cut off; it restarts after `downFor` if set.
   * Resolves once the process is gone (on a real ensemble: once the others serve again).
   */
  crash(member: number, options?: { downFor?: number }): Promise<void>;
  /**
   * Restarts a crashed member: it catches up with the leader (or an election runs) and serves.
   * Resolves once it serves (at once on the model, where the catch-up runs on the server's clock).
   */
  restart(member: number): Promise<void>;
  /**
   * Member `id` (a follower) applies the leader's changes `ms` late from now on (0 clears). The
   * model only: a real server rejects it with UNIMPLEMENTED.
   */
  lagFollower(member: number, ms: number): void;
  /** Stops the server: every connection closed, the ports released. Idempotent. */
  close(): Promise<void>;
}
