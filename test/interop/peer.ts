// A lock contender in another process (Curator in a JVM, kazoo in Python), driven over the line
// protocol of java/LockPeer.java and python/lock_peer.py: `<id> <command>` lines on stdin, and
// one `<id> <reply>` line per command on stdout (lock commands in order, others at once).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { trackChild } from '../harness/cleanup.js';

export interface PeerSpec {
  /** For messages: `curator mutex`, `kazoo lock`... */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
}

/** How long a peer may take to start and connect (a JVM on a busy 2-core machine). */
const READY_TIMEOUT_MS = 20_000;
/** How long any reply may take unless the caller says otherwise. */
const REPLY_TIMEOUT_MS = 10_000;
const STDERR_TAIL_CHARS = 2_000;

interface Waiter {
  readonly command: string;
  resolve(line: string): void;
  reject(error: Error): void;
}

/** The untagged first line: `ready`, or `error <why>` when the peer could not connect. */
const START = '(start)';

/** Every peer started and not yet closed, so teardown can close them whatever the test did. */
const live = new Set<LockPeer>();

export class LockPeer {
  /** Requests awaiting their reply, by id; START awaits the first line. */
  private readonly waiters = new Map<string, Waiter>();
  private nextId = 1;
  private stderr = '';
  private exit: string | undefined;
  private readonly exited: Promise<void>;

  private constructor(
    readonly spec: PeerSpec,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    trackChild(child);
    live.add(this);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL_CHARS);
    });
    // A peer that is killed may not read what we write: ignore EPIPE.
    child.stdin.on('error', () => {});
    createInterface({ input: child.stdout }).on('line', (line) => this.onLine(line));
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = signal ? `killed by ${signal}` : `exited with status ${String(code)}`;
        live.delete(this);
        for (const waiter of this.waiters.values()) waiter.reject(this.failure(waiter.command));
        this.waiters.clear();
        resolve();
      });
    });
    child.once('error', (error) => {
      this.exit = `could not run ${spec.command}: ${error.message}`;
    });
  }

  /** Starts the peer and waits for its `ready` line (it has connected to ZooKeeper). */
  static async start(spec: PeerSpec): Promise<LockPeer> {
    const child = spawn(spec.command, [...spec.args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const peer = new LockPeer(spec, child);
    try {
      const line = await within(peer.reply(START), READY_TIMEOUT_MS, `${spec.name} to start`);
      if (line !== 'ready') throw new Error(`${spec.name} said ${JSON.stringify(line)} on start`);
    } catch (error) {
      await peer.close();
      throw error;
    }
    return peer;
  }

  /**
   * Sends one command; resolves with its reply line, rejects on an `error` reply or if the peer
   * exits first. No timeout: wrap it in {@link within} (a pending reply is sometimes the point).
   */
  request(command: string): Promise<string> {
    if (this.exit !== undefined) return Promise.reject(this.failure(command));
    const id = String(this.nextId++);
    const reply = this.reply(command, id);
    this.child.stdin.write(`${id} ${command}\n`);
    return reply;
  }

  /** `acquire`: resolves with the held node's path once the peer holds the lock. */
  acquire(): Promise<string> {
    const held = this.request('acquire').then((line) => this.expectAcquired(line));
    held.catch(() => {}); // as in reply(): a test that fails early may abandon a waiting acquire
    return held;
  }

  /** `acquire <ms>`: the held node's path, or null when the peer's own timeout ran out. */
  async acquireWithin(ms: number): Promise<string | null> {
    const line = await within(this.request(`acquire ${ms}`), ms + REPLY_TIMEOUT_MS, 'acquire');
    return line === 'timeout' ? null : this.expectAcquired(line);
  }

  async release(): Promise<void> {
    const line = await within(
      this.request('release'),
      REPLY_TIMEOUT_MS,
      `${this.spec.name} release`,
    );
    if (line !== 'released') throw new Error(`${this.spec.name}: release answered ${line}`);
  }

  /** The other library's own view of the contenders (see the peer sources). */
  async participants(): Promise<string[]> {
    const line = await within(this.request('participants'), REPLY_TIMEOUT_MS, 'participants');
    const [word, ...rest] = line.split(' ');
    if (word !== 'participants')
      throw new Error(`${this.spec.name}: participants answered ${line}`);
    return rest;
  }

  /** Asks the peer a yes/no question (`protected <name>`). */
  async ask(command: string): Promise<boolean> {
    const line = await within(this.request(command), REPLY_TIMEOUT_MS, command);
    const answer = line.split(' ').at(-1);
    if (answer !== 'true' && answer !== 'false')
      throw new Error(`${this.spec.name}: ${command} answered ${line}`);
    return answer === 'true';
  }

  /**
   * Quits (the peer closes its session, so its nodes go too), and kills the process if it has
   * not exited within a few seconds. Never throws.
   */
  async close(): Promise<void> {
    if (this.exit === undefined) {
      this.child.stdin.end('0 quit\n');
      const quit = await Promise.race([
        this.exited.then(() => true),
        sleep(5_000).then(() => false),
      ]);
      if (!quit && this.child.pid !== undefined) this.child.kill('SIGKILL');
    }
    await this.exited;
  }

  private expectAcquired(line: string): string {
    const match = /^acquired (\/\S+)$/.exec(line);
    if (!match?.[1]) throw new Error(`${this.spec.name}: acquire answered ${line}`);
    return match[1];
  }

  private reply(command: string, id = START): Promise<string> {
    const promise = new Promise<string>((resolve, reject) => {
      this.waiters.set(id, { command, resolve, reject });
    });
    // The caller may never await a reply it did not need (a peer killed while waiting).
    promise.catch(() => {});
    return promise;
  }

  private onLine(line: string): void {
    const space = line.indexOf(' ');
    const tag = space < 0 ? '' : line.slice(0, space);
    let id = tag;
    let text = line.slice(space + 1);
    if (!this.waiters.has(tag) && this.waiters.has(START)) {
      id = START;
      text = line;
    }
    const waiter = this.waiters.get(id);
    if (!waiter) {
      this.stderr += `\n(unexpected output: ${line})`;
      return;
    }
    this.waiters.delete(id);
    if (text.startsWith('error ')) waiter.reject(this.failure(waiter.command, text.slice(6)));
    else waiter.resolve(text);
  }

  private failure(command: string, message?: string): Error {
    const why = message ?? `the process ${this.exit ?? 'is gone'}`;
    const tail = this.stderr.trim();
    return new Error(
      `${this.spec.name}: '${command}' failed: ${why}${tail ? `\n--- stderr ---\n${tail}` : ''}`,
    );
  }
}

/** Closes every peer still running (test teardown). */
export async function closeAllPeers(): Promise<void> {
  await Promise.all([...live].map((peer) => peer.close()));
}

/** `promise`, or a rejection naming `what` if it takes longer than `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * True when `promise` is still pending after `ms`: the bounded check that another process's
 * acquire is (still) waiting. Can only show "not yet", which is what exclusion promises.
 */
export async function stillPendingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const pending = Symbol('pending');
  const outcome = await Promise.race([
    promise.then(
      () => undefined,
      () => undefined,
    ),
    sleep(ms).then(() => pending),
  ]);
  return outcome === pending;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Sends `command` and returns the rest of the reply after its first word, parsed as JSON. */
export async function askJson(peer: LockPeer, command: string): Promise<unknown> {
  const line = await within(peer.request(command), 15_000, command);
  return JSON.parse(line.slice(line.indexOf(' ') + 1));
}

/** Sends `command` and checks the reply is `expected`. */
export async function tell(peer: LockPeer, command: string, expected: string): Promise<void> {
  const line = await within(peer.request(command), 15_000, command);
  if (line !== expected) throw new Error(`${peer.spec.name}: '${command}' answered ${line}`);
}
