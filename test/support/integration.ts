// Set-up the integration tests share: waits on a signal or a state change (events, not polls),
// taking a session away from a client the way a server expiry does, collecting a child
// process's output, and reading the repository's docs.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { build } from 'esbuild';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { type Client, type ConnectOptions, connect } from '../../src/index.js';
import { sharedServer, startStandalone, TcpProxy, type ZkServer } from '../harness/index.js';

/** The repository's root folder. */
export const REPO_ROOT = join(import.meta.dirname, '../..');

/**
 * Everything a listener hears from now on, in order: `subscribe` registers the given listener
 * (`recorded<SessionState>((push) => zk.on('state', push))`).
 */
export function recorded<T>(subscribe: (listener: (value: T) => void) => unknown): T[] {
  const heard: T[] = [];
  subscribe((value) => {
    heard.push(value);
  });
  return heard;
}

/** Resolves with the signal's reason once it aborts (at once when it already has). */
export function abortReason(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

/** Anything with a current `state` that tells each change to its `state` listeners. */
export interface StateSource<S> {
  readonly state: S;
  on(event: 'state', listener: (state: S) => void): () => void;
}

/**
 * Resolves with the state once `source` is in a state `want` accepts (at once when it already
 * is); rejects after `timeoutMs`. Waits on the state events, so a state that lasts only while
 * its listeners run (a client's `expired`) is seen too.
 */
export function stateReached<S>(
  source: StateSource<S>,
  want: S | ((state: S) => boolean),
  timeoutMs = 20_000,
): Promise<S> {
  const accepts =
    typeof want === 'function' ? (want as (state: S) => boolean) : (s: S) => s === want;
  return new Promise((resolve, reject) => {
    if (accepts(source.state)) return resolve(source.state);
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no wanted state within ${timeoutMs} ms (now ${String(source.state)})`));
    }, timeoutMs);
    const off = source.on('state', (state) => {
      if (!accepts(state)) return;
      clearTimeout(timer);
      off();
      resolve(state);
    });
  });
}

/**
 * Has the server end `client`'s session for the client: the proxy refuses and cuts the link,
 * another connection resumes the session. By default that connection closes it (the server
 * expires the session) and the proxy lets the client in again; with `keepAlive` it keeps the old
 * session alive on the server and the proxy goes on refusing, and the caller closes the returned
 * client (and un-refuses the proxy) when it wants.
 */
export async function takeSessionAway(
  client: Client,
  proxy: TcpProxy,
  { keepAlive = false }: { keepAlive?: boolean } = {},
): Promise<Client> {
  proxy.refuse(true);
  proxy.cut();
  await stateReached(client, 'suspended', 15_000);
  const thief = await connect(sharedServer().connectString, {
    session: { id: client.sessionId, password: client.sessionPassword },
    renewSession: false,
  });
  if (!keepAlive) {
    await thief.close();
    proxy.refuse(false);
  }
  return thief;
}

/** A proxy to the shared server that the test can cut or freeze, closed after the test. */
export async function proxyToSharedServer(): Promise<TcpProxy> {
  const [host, port] = sharedServer().connectString.split(',')[0]!.split(':') as [string, string];
  const proxy = await TcpProxy.start(host, Number(port));
  onTestFinished(() => proxy.close());
  return proxy;
}

/** What a child process wrote and how it ended. */
export interface ChildOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Collects `child`'s output until it exits; kills it after `killAfterMs` so no test hangs. */
export function childOutput(
  child: ChildProcess & { stdout: Readable; stderr: Readable },
  killAfterMs: number,
): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The first fenced block of `language` in the section of `markdown` headed `heading`. */
export function sectionBlock(markdown: string, heading: string, language: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no "${heading}" section`);
  const end = markdown.indexOf('\n## ', start + heading.length + 2);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section);
  if (!match) throw new Error(`"${heading}" has no ${language} block`);
  return match[1]!;
}

/** Bundles `source` for Node into `target`: written whole, then renamed into place. */
export async function bundleInto(source: string, target: string): Promise<void> {
  const result = await build({
    entryPoints: [source],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'warning',
  });
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}`;
  writeFileSync(partial, result.outputFiles[0]!.contents);
  renameSync(partial, target);
}

/** A server a test file starts for itself, and clients on it (see `privateServer`). */
export interface PrivateServer {
  /** The server (once the file's `beforeAll` has started it). */
  server(): ZkServer;
  /** A client on the server (10 s session unless `options` say otherwise), closed after the file. */
  client(options?: ConnectOptions): Promise<Client>;
}

/**
 * A server of the calling file (or describe) alone: `start` runs before its tests, and after them
 * the clients made here close, then the server. For a server the shared one cannot be: one with
 * other flags, or a crafted snapshot.
 */
export function privateServer(start: () => Promise<ZkServer>): PrivateServer {
  let started: ZkServer | undefined;
  const clients: Client[] = [];
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await started?.close();
  });
  const server = () => {
    if (!started) throw new Error('the private server has not started (use it inside a test)');
    return started;
  };
  return {
    server,
    async client(options = {}) {
      const client = await connect(server().connectString, { sessionTimeout: 10_000, ...options });
      clients.push(client);
      return client;
    },
  };
}

/** A standalone server whose container manager looks every 100 ms: containers and TTL nodes go fast. */
export function startReapingServer(): Promise<ZkServer> {
  return startStandalone({
    jvmFlags: ['-Dznode.container.checkIntervalMs=100', '-Dznode.container.maxPerMinute=100000'],
  });
}
