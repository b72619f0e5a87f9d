// The world the contract checks run in: an in-process model server over the in-memory transport
// (no JVM, no sockets), a second session to look at the server and to get in the way, and the
// subject's client wrapped so that a check can see what a constructor sent and can make the
// server stop answering (a wait that cannot be met).
import { Client } from '../../../../src/client/client.js';
import type { RecipeClient } from '../../../../src/client/recipe-client.js';
import { startServer, type TestServer } from '../../../../src/testing/index.js';

/** The client calls that send a request (the ones `construction sends nothing` forbids). */
const REQUESTS = new Set([
  'create',
  'create2',
  'delete',
  'exists',
  'getData',
  'getChildren',
  'getChildren2',
  'setData',
  'multi',
  'sync',
  'watch',
]);

/** The subject's client, and the controls a check holds over it. */
export interface SubjectClient {
  /** What the subject is given: a real client, seen through the controls. */
  readonly client: RecipeClient;
  /** Every request method called so far, by name, in order. */
  readonly requests: string[];
  /** From now on requests are held, unanswered (the server is stuck); `watch` still goes out. */
  stall(): void;
  /** Sends the held requests and every later one: the server answers again. */
  release(): void;
}

/** One check's world; see the module comment. */
export interface Env {
  readonly server: TestServer;
  /** The subject's session. */
  readonly client: Client;
  /** Another session: it looks at the server and holds what the subject must wait for. */
  readonly other: Client;
  /** A path nobody used before, under `/conformance`. */
  path(name: string): string;
  /** A client for one subject; see {@link SubjectClient}. */
  subjectClient(): SubjectClient;
  /** Whether `path` exists, as the other session reads it. */
  exists(path: string): Promise<boolean>;
  close(): Promise<void>;
}

export async function startEnv(): Promise<Env> {
  const server = await startServer({ listen: false });
  const connect = () => Client.connect(server.connectString, { transport: server.transport });
  const client = await connect();
  const other = await connect();
  await other.create('/conformance');
  let counter = 0;
  return {
    server,
    client,
    other,
    path: (name) => `/conformance/${name.replace(/[^A-Za-z0-9-]/g, '-')}-${++counter}`,
    subjectClient: () => wrap(client),
    exists: async (path) => (await other.exists(path)) !== null,
    async close() {
      await client.close();
      await other.close();
      await server.close();
    },
  };
}

/** A held request: sent on release, or rejected with its signal's reason when that aborts. */
interface Held {
  send(): void;
}

function wrap(client: Client): SubjectClient {
  const requests: string[] = [];
  const held = new Set<Held>();
  let stalled = false;
  const proxy = new Proxy(client, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      if (typeof key !== 'string' || !REQUESTS.has(key)) return method.bind(target);
      return (...args: unknown[]) => {
        requests.push(key);
        if (!stalled || key === 'watch') return method.apply(target, args);
        return new Promise((resolve, reject) => {
          const signal = signalOf(args);
          const entry: Held = {
            send() {
              held.delete(entry);
              signal?.removeEventListener('abort', onAbort);
              Promise.resolve(method.apply(target, args)).then(resolve, reject);
            },
          };
          const onAbort = () => {
            held.delete(entry);
            reject(signal?.reason);
          };
          if (signal?.aborted) return onAbort();
          signal?.addEventListener('abort', onAbort, { once: true });
          held.add(entry);
        });
      };
    },
  });
  return {
    client: proxy,
    requests,
    stall: () => {
      stalled = true;
    },
    release: () => {
      stalled = false;
      for (const entry of [...held]) entry.send();
    },
  };
}

/** The `signal` of a call's options object (its last object argument), if it has one. */
function signalOf(args: readonly unknown[]): AbortSignal | undefined {
  for (const arg of [...args].reverse()) {
    if (typeof arg === 'object' && arg !== null && 'signal' in arg) {
      const { signal } = arg as { signal?: unknown };
      if (signal instanceof AbortSignal) return signal;
    }
  }
  return undefined;
}
