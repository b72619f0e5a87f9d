import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import {
  type NodePorts,
  type QuorumSpec,
  serverSystemProperties,
  superAuthOf,
  writeServerConfig,
} from './config.js';
import { fourLetterWord, type ServerMode, serverMode } from './four-letter.js';
import type { LocalInstall } from './install.js';
import { JvmProcess } from './jvm.js';
import { LOOPBACK } from './ports.js';
import { jaasFileIn, saslSystemProperties } from './sasl.js';
import type { TlsMaterial } from './tls.js';
import type { ServerOptions, TlsInfo, ZkServer } from './types.js';
import { waitFor } from './wait.js';

export interface LocalNodeSpec {
  dir: string;
  install: LocalInstall;
  opts: ServerOptions;
  ports: NodePorts;
  quorum?: QuorumSpec;
  tls?: TlsMaterial;
  /** What `start()` waits for after spawning the JVM. */
  ready: (node: LocalNode) => Promise<void>;
}

export const DEFAULT_START_TIMEOUT_MS = 30_000;

/** One ZooKeeper server run as a local JVM: a standalone server or an ensemble member. */
export class LocalNode implements ZkServer {
  readonly host = LOOPBACK;
  readonly port: number;
  readonly connectString: string;
  readonly tlsPort?: number;
  readonly tlsConnectString?: string;
  readonly tls?: TlsInfo;
  readonly superAuth?: string;
  readonly jaasFile?: string;
  readonly dir: string;
  private readonly jvm: JvmProcess;

  constructor(private readonly spec: LocalNodeSpec) {
    this.dir = spec.dir;
    this.port = spec.ports.client;
    this.connectString = `${LOOPBACK}:${this.port}`;
    if (spec.ports.tls !== undefined && spec.tls) {
      this.tlsPort = spec.ports.tls;
      this.tlsConnectString = `${LOOPBACK}:${this.tlsPort}`;
      const { ca, cert, key, clientDn } = spec.tls;
      this.tls = { ca, ...(cert && key ? { cert, key, clientDn } : {}) };
    }
    const superAuth = superAuthOf(spec.opts);
    if (superAuth) this.superAuth = superAuth;
    if (spec.opts.sasl) this.jaasFile = jaasFileIn(spec.dir);
    this.jvm = new JvmProcess({
      install: spec.install,
      configFile: writeServerConfig(spec.dir, spec.opts, spec.ports, spec.quorum),
      logFile: join(spec.dir, 'server.log'),
      systemProperties: {
        ...serverSystemProperties(spec.opts, spec.tls),
        ...saslSystemProperties(spec.dir, spec.opts),
      },
      extraFlags: spec.opts.jvmFlags ?? [],
    });
  }

  get running(): boolean {
    return this.jvm.running;
  }

  get pid(): number | undefined {
    return this.jvm.pid;
  }

  fourLetter(cmd: string): Promise<string> {
    return fourLetterWord(this.host, this.port, cmd);
  }

  mode(): Promise<ServerMode | undefined> {
    return serverMode(this.host, this.port);
  }

  /** Starts the JVM without waiting; pair with `waitUntil`. */
  spawn(): void {
    this.jvm.spawn();
  }

  async start(): Promise<void> {
    if (this.jvm.running) return;
    this.jvm.spawn();
    await this.spec.ready(this);
  }

  stop(): Promise<void> {
    return this.jvm.stop();
  }

  kill(): Promise<void> {
    return this.jvm.kill();
  }

  async close(): Promise<void> {
    await this.jvm.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  logTail(n = 60): string {
    return this.jvm.logTail(n);
  }

  failedToBind(): boolean {
    return this.jvm.failedToBind();
  }

  /** Waits until the JVM answers `ruok` and, with TLS, accepts connections on its TLS port. */
  async waitAlive(timeoutMs: number): Promise<void> {
    await this.waitUntil('a ZooKeeper JVM answering ruok', timeoutMs, async () =>
      (await fourLetterWord(this.host, this.port, 'ruok', 1000)) === 'imok' ? true : undefined,
    );
    const tlsPort = this.tlsPort;
    if (tlsPort !== undefined) {
      await this.waitUntil(`the TLS port ${tlsPort}`, timeoutMs, () =>
        acceptsConnections(this.host, tlsPort),
      );
    }
  }

  /** Waits until `srvr` reports one of `modes`. */
  waitForMode(modes: readonly ServerMode[], timeoutMs: number): Promise<ServerMode> {
    return this.waitUntil(`mode ${modes.join('/')}`, timeoutMs, async () => {
      const mode = await this.mode();
      return mode !== undefined && modes.includes(mode) ? mode : undefined;
    });
  }

  private waitUntil<T>(
    what: string,
    timeoutMs: number,
    probe: () => Promise<T | undefined>,
  ): Promise<T> {
    return waitFor(probe, {
      what: `${this.connectString}: ${what}`,
      timeoutMs,
      abortIf: () =>
        this.jvm.running
          ? undefined
          : `the server JVM is not running (${this.jvm.exitReason ?? 'never started'})`,
      details: () => `--- last lines of ${join(this.dir, 'server.log')} ---\n${this.logTail(40)}`,
    });
  }
}

function acceptsConnections(host: string, port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(undefined));
  });
}
