import type { ServerMode } from './four-letter.js';
import type { ClientAuth } from './tls.js';

/** Options for servers the harness starts. Every field is optional; defaults suit fast tests. */
export interface ServerOptions {
  /** ZooKeeper tick in ms (default 200). Sessions may ask for 2 ticks (400 ms) up to 120 s. */
  tickTime?: number;
  /** Also serve TLS on `tlsPort` (Netty connection factory, self-signed certificate). */
  tls?: boolean;
  /** TLS client certificates: `none` (default), `want` or `need`. `want`/`need` make a client cert with openssl. */
  tlsClientAuth?: ClientAuth;
  /** `readonlymode.enabled`: a member cut off from its quorum keeps serving reads. */
  readOnlyMode?: boolean;
  /** `reconfigEnabled=true` with a dynamic config file; implies a superDigest (default `super:zkts-test`). */
  reconfigEnabled?: boolean;
  /** `user:password` of the super user; the harness computes the digest the server wants. */
  superDigest?: string;
  /**
   * SASL DIGEST-MD5: a JAAS `Server` section (DigestLoginModule) with these users (name ->
   * password) and the SASLAuthenticationProvider. `enforce` also sets enforce.auth (schemes
   * `sasl`): the server then closes sessions that did not authenticate with SASL.
   */
  sasl?: { users: Record<string, string>; enforce?: boolean };
  /** Extra JVM flags, appended last. */
  jvmFlags?: string[];
  /** Extra zoo.cfg lines; they override the harness's own. */
  extraConfig?: Record<string, string>;
  /** How long to wait for the server(s) to serve (default 30 000 ms). */
  startTimeoutMs?: number;
  /**
   * The client port of a standalone server (default: a free port). A taken port fails the start
   * instead of moving to another one.
   */
  clientPort?: number;
}

/** TLS material for a Node client of a TLS server. */
export interface TlsInfo {
  /** PEM certificate to trust (pass as `ca`). */
  ca: string;
  /** PEM client certificate and key, when `tlsClientAuth` is `want` or `need`. */
  cert?: string;
  key?: string;
  /** The client certificate's subject DN, i.e. its x509 ACL id. */
  clientDn?: string;
}

/** One ZooKeeper server the harness controls. */
export interface ZkServer extends AsyncDisposable {
  /** `127.0.0.1:port` (plaintext client port). */
  readonly connectString: string;
  readonly host: string;
  readonly port: number;
  readonly tlsPort?: number;
  /** `127.0.0.1:tlsPort`, when TLS is on. */
  readonly tlsConnectString?: string;
  readonly tls?: TlsInfo;
  /** `user:password` for `addauth digest` that makes a session super, when configured. */
  readonly superAuth?: string;
  /** The JAAS file of a server started with `sasl` (see `writeJaasFile`). */
  readonly jaasFile?: string;
  readonly running: boolean;
  fourLetter(cmd: string): Promise<string>;
  /** `Mode:` from `srvr`, or `undefined` when the server does not answer or is not serving. */
  mode(): Promise<ServerMode | undefined>;
  /** Graceful stop (SIGTERM); the data stays for `start()`. */
  stop(): Promise<void>;
  /** SIGKILL; the data stays for `start()`. */
  kill(): Promise<void>;
  /** Start again with the same configuration, ports and data. */
  start(): Promise<void>;
  /** Last `n` lines of the server log (default 60). */
  logTail(n?: number): string;
  /** Kill the server and delete its files. */
  close(): Promise<void>;
}

/** One member of an ensemble. */
export interface ZkMember extends Omit<ZkServer, 'close' | typeof Symbol.asyncDispose> {
  /** Position in `ZkEnsemble.members`. */
  readonly index: number;
  /** The server id (`myid`), index + 1. */
  readonly id: number;
  readonly quorumPort: number;
  readonly electionPort: number;
}

export interface ZkEnsemble extends AsyncDisposable {
  /** All members' client ports, comma-separated. */
  readonly connectString: string;
  /** All members' TLS ports, comma-separated, when TLS is on. */
  readonly tlsConnectString?: string;
  readonly tls?: TlsInfo;
  readonly superAuth?: string;
  readonly members: ZkMember[];
  /** Index of the member in `Mode: leader` (waits up to 15 s for exactly one). */
  leader(): Promise<number>;
  /** Indexes of members in `Mode: follower`, once there is a leader. */
  followers(): Promise<number[]>;
  mode(i: number): Promise<ServerMode | undefined>;
  stop(i: number): Promise<void>;
  kill(i: number): Promise<void>;
  /** Starts member i again; waits for it to join when a majority is running. */
  start(i: number): Promise<void>;
  /** Waits until every running member is leader/follower/observer with exactly one leader. */
  waitForQuorum(timeoutMs?: number): Promise<void>;
  fourLetter(i: number, cmd: string): Promise<string>;
  /** Kills every member and deletes their files. */
  close(): Promise<void>;
}
