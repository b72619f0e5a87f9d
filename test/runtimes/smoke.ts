// The runtime smoke suite, written once and run unchanged under Node, Bun, Deno and workerd
// (entries: cli.ts for the first three, worker.ts for workerd). Web-standard globals only.

import {
  ChannelName,
  type Client,
  type ConnectOptions,
  CreateMode,
  connect,
  type LockMessage,
  type RequestMessage,
  type SessionState,
  type TlsOptions,
  type Transport,
  type WatchedEvent,
  ZooKeeperError,
} from '../../src/index.js';
import { Mutex } from '../../src/locks/index.js';
import { channel, nativeChannels, tracingChannel } from '../../src/otel/index.js';
import { detectRuntime } from '../../src/session/transports/runtime.js';
import { checkTimerRules } from './timer-rules.js';

export interface SmokeOptions {
  /** `host:port` of a ZooKeeper server. */
  connectString: string;
  /** Name of the transport, for the report. */
  transportName: string;
  /** The transport; undefined = the library's default for this runtime. */
  transport?: Transport;
  /** Sequential getData calls for the round-trip rate (default 2000). */
  roundTrips?: number;
  /** Also connect over TLS to this server. */
  tls?: { connectString: string; options: true | TlsOptions };
  /** Also log in with SASL DIGEST-MD5 as this user (MD5 and the exchange on this runtime). */
  sasl?: { username: string; password: string };
  log?: (line: string) => void;
}

export interface StepResult {
  name: string;
  ok: boolean;
  ms: number;
  detail?: string;
}

export interface SmokeReport {
  runtime: string;
  transport: string;
  ok: boolean;
  steps: StepResult[];
  /** Sequential getData round trips per second (measured, never asserted). */
  getDataPerSecond: number | null;
}

const STEP_TIMEOUT_MS = 20_000;
const SESSION_TIMEOUT_MS = 10_000;
const text = new TextDecoder();

class SmokeFailure extends Error {}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new SmokeFailure(message);
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SmokeFailure(`${what}: no result within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function until(what: string, probe: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new SmokeFailure(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function waitForState(client: Client, wanted: SessionState): Promise<void> {
  if (client.state === wanted) return Promise.resolve();
  return new Promise((resolve) => {
    const off = client.on('state', (state) => {
      if (state === wanted) {
        off();
        resolve();
      }
    });
  });
}

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
    return 'OK';
  } catch (error) {
    if (error instanceof ZooKeeperError) return error.code;
    throw error;
  }
}

async function deleteTree(client: Client, path: string): Promise<void> {
  let children: string[];
  try {
    children = await client.getChildren(path);
  } catch (error) {
    if (error instanceof ZooKeeperError && error.code === 'NONODE') return;
    throw error;
  }
  for (const child of children) await deleteTree(client, `${path}/${child}`);
  await codeOf(client.delete(path));
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = error instanceof ZooKeeperError ? `${error.code}: ` : '';
    return `${code}${error.message}`;
  }
  return String(error);
}

export async function runSmoke(options: SmokeOptions): Promise<SmokeReport> {
  const runtime = detectRuntime();
  const log = options.log ?? (() => {});
  const steps: StepResult[] = [];
  const clients: Client[] = [];
  let rate: number | null = null;
  const connectOptions: ConnectOptions = {
    sessionTimeout: SESSION_TIMEOUT_MS,
    ...(options.transport ? { transport: options.transport } : {}),
  };
  const open = async (): Promise<Client> => {
    const client = await connect(options.connectString, connectOptions);
    clients.push(client);
    return client;
  };

  const step = async (name: string, body: () => Promise<void>): Promise<boolean> => {
    const started = Date.now();
    try {
      await withTimeout(body(), STEP_TIMEOUT_MS, name);
      steps.push({ name, ok: true, ms: Date.now() - started });
      log(`  ok   ${name}`);
      return true;
    } catch (error) {
      const detail = describe(error);
      steps.push({ name, ok: false, ms: Date.now() - started, detail });
      log(`  FAIL ${name}: ${detail}`);
      return false;
    }
  };

  const root = `/zkts-runtimes/${runtime}-${options.transportName}-${crypto.randomUUID().slice(0, 8)}`;
  const first: { client?: Client } = {};
  try {
    await step('connect', async () => {
      const client = await open();
      check(client.state === 'connected', `state is ${client.state}`);
      check(client.sessionId !== 0n, 'no session id');
      check(client.sessionPassword.byteLength === 16, 'password is not 16 bytes');
      await codeOf(client.create('/zkts-runtimes'));
      first.client = client;
    });
    const zk = first.client;
    if (!zk) return finish();

    await step('crud', async () => {
      check((await zk.create(root, 'v0')) === root, 'create returned another path');
      const first = await zk.getData(root);
      check(text.decode(first.data) === 'v0', 'getData after create');
      check((await zk.setData(root, 'v1', 0)).version === 1, 'setData did not bump the version');
      check((await codeOf(zk.setData(root, 'v2', 0))) === 'BADVERSION', 'stale version accepted');
      check((await codeOf(zk.create(root))) === 'NODEEXISTS', 'duplicate create accepted');
      const child = await zk.create(`${root}/child-`, 'c', {
        mode: CreateMode.PERSISTENT_SEQUENTIAL,
      });
      check(/\/child-\d{10}$/.test(child), `sequential name ${child}`);
      const children = await zk.getChildren(root);
      check(children.length === 1 && `${root}/${children[0]}` === child, 'getChildren');
      await zk.delete(child);
      check((await zk.exists(child)) === null, 'exists after delete');
      check(
        (await codeOf(zk.getData(`${root}/missing`))) === 'NONODE',
        'getData of a missing node',
      );
    });

    await step('large pipelined writes', async () => {
      // 8 x 512 KiB in flight at once: more than socket buffers hold, so every adapter's
      // backpressure path runs (node 'drain', Bun's partial writes, the web writer's queue).
      const size = 512 * 1024;
      const payload = (seed: number) => {
        const bytes = new Uint8Array(size);
        for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed * 7) & 0xff;
        return bytes;
      };
      const paths = Array.from({ length: 8 }, (_, i) => `${root}/big-${i}`);
      await Promise.all(paths.map((path, i) => zk.create(path, payload(i))));
      const read = await Promise.all(paths.map((path) => zk.getData(path)));
      read.forEach(({ data }, i) => {
        const expected = payload(i);
        check(data.byteLength === size, `big-${i}: ${data.byteLength} bytes back`);
        check(
          data.every((byte, at) => byte === expected[at]),
          `big-${i}: bytes differ`,
        );
      });
      await Promise.all(paths.map((path) => zk.delete(path)));
    });

    await step('refused connection fails', async () => {
      // Port 1 on loopback: nothing listens. connect() must reject, not hang.
      const started = Date.now();
      const code = await codeOf(
        connect('127.0.0.1:1', { ...connectOptions, connectTimeout: 1_000 }).then((c) => c.close()),
      );
      // workerd's connect() never reports a refusal (the socket just never opens), so there the
      // attempt runs out of connectTimeout: TIMEOUT. Every other runtime hears the refusal.
      const expected = runtime === 'workerd' ? 'TIMEOUT' : 'CONNECTIONLOSS';
      check(code === expected, `connect to a closed port: ${code}, expected ${expected}`);
      check(Date.now() - started < STEP_TIMEOUT_MS / 2, 'connect did not honour connectTimeout');
    });

    await step('one-shot watch', async () => {
      const path = `${root}/watched`;
      await zk.create(path, 'before');
      const events: WatchedEvent[] = [];
      let fired!: () => void;
      const firedOnce = new Promise<void>((resolve) => {
        fired = resolve;
      });
      await zk.getData(path, {
        watch: (event) => {
          events.push(event);
          fired();
        },
      });
      await zk.setData(path, 'after');
      await firedOnce;
      check(events[0]?.type === 'NodeDataChanged' && events[0].path === path, 'wrong event');
      // One-shot: the server sends a notification before the reply to our own write.
      await zk.setData(path, 'again');
      check(events.length === 1, `watch fired ${events.length} times`);
    });

    await step('persistent watch', async () => {
      const dir = `${root}/persistent`;
      await zk.create(dir);
      const stop = new AbortController();
      const watch = zk.watch(dir, { recursive: true, signal: stop.signal });
      await zk.create(`${dir}/x`, '1');
      await zk.setData(`${dir}/x`, '2');
      await zk.delete(`${dir}/x`);
      const seen: string[] = [];
      for await (const event of watch) {
        seen.push(`${event.type} ${event.path.slice(dir.length)}`);
        if (seen.length === 3) break;
      }
      stop.abort();
      const expected = ['NodeCreated /x', 'NodeDataChanged /x', 'NodeDeleted /x'];
      check(seen.join() === expected.join(), `events: ${seen.join(', ')}`);
    });

    await step('reconnect', async () => {
      const ephemeral = await zk.create(`${root}/ephemeral`, 'e', { mode: CreateMode.EPHEMERAL });
      const id = zk.sessionId;
      const states: SessionState[] = [];
      const off = zk.on('state', (state) => states.push(state));
      const suspended = waitForState(zk, 'suspended');
      zk.dropConnection('runtime smoke test');
      await suspended;
      await waitForState(zk, 'connected');
      off();
      check(zk.sessionId === id, 'a new session after reconnecting');
      check(states[0] === 'suspended' && states.includes('connected'), `states ${states.join()}`);
      const stat = await zk.exists(ephemeral);
      check(stat?.ephemeralOwner === id, 'the ephemeral node did not survive the reconnect');
    });

    await step('idle past the session timeout', async () => {
      // Only the session's own pings (the runtime's timers) can keep this session alive.
      const idle = await connect(options.connectString, {
        ...connectOptions,
        sessionTimeout: 2_000,
      });
      clients.push(idle);
      const ephemeral = await idle.create(`${root}/idle`, '', { mode: CreateMode.EPHEMERAL });
      await new Promise((resolve) => setTimeout(resolve, idle.sessionTimeout * 2.5));
      const stat = await idle.exists(ephemeral);
      check(stat?.ephemeralOwner === idle.sessionId, 'the idle session expired');
      await idle.close();
    });

    await step('contended mutex (2 sessions)', async () => {
      const other = await open();
      check(other.sessionId !== zk.sessionId, 'second client shares the session');
      const path = `${root}/lock`;
      const mine = new Mutex(zk, path);
      const theirs = new Mutex(other, path);
      const held = await mine.acquire({ timeout: 10_000 });
      check((await theirs.tryAcquire()) === null, 'tryAcquire got a held mutex');
      let granted = false;
      const waiting = theirs.acquire({ timeout: 15_000 }).then((lease) => {
        granted = true;
        return lease;
      });
      await until('the second contender to queue', async () => {
        return (await zk.getChildren(path)).length === 2;
      });
      // The waiter's node exists and a full round trip later it still has not been granted.
      await zk.getData(path);
      check(!granted, 'second session acquired a held mutex');
      check(!held.signal.aborted, 'the holder lost its lease');
      await held.release();
      const next = await waiting;
      check(next.fencingToken > held.fencingToken, 'fencing token did not grow');
      await next.release();
      check((await zk.getChildren(path)).length === 0, 'lock nodes left behind');
    });

    await step('lock timer rules', async () => {
      await checkTimerRules(zk, await open(), `${root}/timers`, check);
    });

    await step('telemetry channels', async () => {
      // Node, Bun and Deno publish on their own diagnostics_channel (subscribed here through it,
      // as an APM agent would); workerd without nodejs_compat on the portable channels.
      const builtin = (
        globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
      ).process?.getBuiltinModule?.('node:diagnostics_channel') as
        | { subscribe(name: string, fn: (message: unknown) => void): void }
        | undefined;
      check(nativeChannels === (runtime !== 'workerd'), `nativeChannels is ${nativeChannels}`);
      const locks: LockMessage[] = [];
      const onLock = (message: unknown) => locks.push(message as LockMessage);
      if (nativeChannels && builtin) builtin.subscribe(ChannelName.lock, onLock);
      else channel(ChannelName.lock).subscribe(onLock);
      const starts: RequestMessage[] = [];
      const requests = { start: (message: RequestMessage) => starts.push(message) };
      tracingChannel<RequestMessage>(ChannelName.request).subscribe(requests);
      try {
        const lease = await new Mutex(zk, `${root}/telemetry`).acquire({ timeout: 10_000 });
        await lease.release();
      } finally {
        channel(ChannelName.lock).unsubscribe(onLock);
        tracingChannel<RequestMessage>(ChannelName.request).unsubscribe(requests);
      }
      const types = locks.map((m) => m.type).join(',');
      check(types === 'acquire-start,granted,released', `lock events: ${types}`);
      check(
        starts.some((m) => m.op === 'delete' && m.server === zk.server),
        `request starts: ${starts.map((m) => m.op).join(',')}`,
      );
    });

    await step('round trips', async () => {
      const n = options.roundTrips ?? 2000;
      // Warm up first (JIT, buffers), so the figure is the steady state.
      for (let i = 0; i < Math.ceil(n / 10); i++) await zk.getData(root);
      const started = performance.now();
      for (let i = 0; i < n; i++) await zk.getData(root);
      const elapsed = performance.now() - started;
      rate = elapsed > 0 ? Math.round((n * 1000) / elapsed) : null;
      log(`       ${n} sequential getData: ${elapsed.toFixed(0)} ms (${rate ?? '?'} /s)`);
    });

    if (options.tls) {
      const tls = options.tls;
      await step('tls', async () => {
        const secure = await connect(tls.connectString, { ...connectOptions, tls: tls.options });
        clients.push(secure);
        const { stat } = await secure.getData(root);
        check(stat.version >= 1, 'tls client read stale data');
        await secure.close();
      });
    }

    if (options.sasl) {
      const { username, password } = options.sasl;
      await step('sasl digest-md5', async () => {
        const user = await connect(options.connectString, {
          ...connectOptions,
          sasl: { mechanism: 'DIGEST-MD5', username, password },
        });
        clients.push(user);
        const ids = await user.whoAmI();
        check(
          ids.some((id) => id.authScheme === 'sasl' && id.user === username),
          `identities ${JSON.stringify(ids)}`,
        );
        const path = `${root}/sasl-only`;
        await user.create(path, 'mine', {
          acl: [{ perms: 31, id: { scheme: 'sasl', id: username } }],
        });
        check((await codeOf(zk.getData(path))) === 'NOAUTH', 'a non-SASL session read a sasl node');
        check(text.decode((await user.getData(path)).data) === 'mine', 'the SASL user cannot read');
        await user.delete(path);
        await user.close();
        const wrong = await codeOf(
          connect(options.connectString, {
            ...connectOptions,
            sasl: { mechanism: 'DIGEST-MD5', username, password: `${password}-wrong` },
          }).then((c) => c.close()),
        );
        check(wrong === 'AUTHFAILED', `a wrong password gave ${wrong}`);
      });
    }

    await step('close', async () => {
      const ephemeral = `${root}/ephemeral`;
      const observer =
        clients.find((client) => client !== zk && client.state === 'connected') ?? (await open());
      await zk.close();
      check(zk.state === 'closed', `state after close: ${zk.state}`);
      check((await observer.exists(ephemeral)) === null, 'ephemeral node outlived close()');
      await deleteTree(observer, root);
      await observer.close();
    });
  } finally {
    for (const client of clients) await client.close().catch(() => {});
  }
  return finish();

  function finish(): SmokeReport {
    return {
      runtime,
      transport: options.transportName,
      ok: steps.length > 0 && steps.every((s) => s.ok),
      steps,
      getDataPerSecond: rate,
    };
  }
}
