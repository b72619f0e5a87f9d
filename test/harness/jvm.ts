import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { FAST_JVM_FLAGS } from '../../src/testing/real/install.js';
import { trackChild } from './cleanup.js';
import type { LocalInstall } from './install.js';

/** The real-server handle's start-up flags (zookeeper-ts/testing): one list for both. */
export { FAST_JVM_FLAGS } from '../../src/testing/real/install.js';

const MAIN_CLASS = 'org.apache.zookeeper.server.quorum.QuorumPeerMain';

export interface JvmSpec {
  install: LocalInstall;
  configFile: string;
  logFile: string;
  /** -D system properties, without the "-D". */
  systemProperties: Record<string, string>;
  /** Appended last, so they win. */
  extraFlags: string[];
}

/** One ZooKeeper server JVM that can be started again after it stopped (same config, same data). */
export class JvmProcess {
  private child: ChildProcess | undefined;
  private exitPromise: Promise<void> = Promise.resolve();
  private lastExit: string | undefined;

  constructor(private readonly spec: JvmSpec) {}

  get running(): boolean {
    return this.child !== undefined;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Why the last run ended ("exit code 1", "signal SIGKILL"), if it ended. */
  get exitReason(): string | undefined {
    return this.child === undefined ? this.lastExit : undefined;
  }

  spawn(): void {
    if (this.child) throw new Error('server JVM already running');
    const { install, configFile, logFile, systemProperties, extraFlags } = this.spec;
    const args = [
      ...FAST_JVM_FLAGS,
      ...install.jvmFlags,
      ...Object.entries(systemProperties).map(([key, value]) => `-D${key}=${value}`),
      ...extraFlags,
      '-cp',
      install.classpath.join(':'),
      MAIN_CLASS,
      configFile,
    ];
    // Append: a restarted server keeps one log with its whole history.
    const log = openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(install.java, args, { stdio: ['ignore', log, log] });
    } finally {
      closeSync(log);
    }
    this.child = child;
    this.lastExit = undefined;
    trackChild(child);
    this.exitPromise = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.lastExit = signal ? `signal ${signal}` : `exit code ${code}`;
        if (this.child === child) this.child = undefined;
        resolve();
      });
      child.once('error', (err) => {
        this.lastExit = `spawn failed: ${err.message}`;
        if (this.child === child) this.child = undefined;
        resolve();
      });
    });
  }

  /** SIGTERM, then SIGKILL if the JVM is still alive after `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exitPromise;
    clearTimeout(timer);
  }

  /** SIGKILL: the server gets no chance to close sessions or sockets cleanly. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGKILL');
    await this.exitPromise;
  }

  logTail(lines = 60): string {
    if (!existsSync(this.spec.logFile)) return '(no log yet)';
    const text = readFileSync(this.spec.logFile, 'utf8').trimEnd().split('\n');
    return text.slice(-lines).join('\n');
  }

  /** True when the last failed start looks like a port clash, so a retry with fresh ports may work. */
  failedToBind(): boolean {
    return /BindException|Address already in use/.test(this.logTail(200));
  }
}
