// An in-process world for unit tests that need a REAL Client (the lock engine's direct seam over
// its session) without a ZooKeeper server: the simulator's server model (src/testing/model) behind
// its simulated network, on the simulator's virtual clock. The virtual globals (timers, Date.now,
// Math.random...) are installed only while one test's world is open and put back by `close()`
// (call it in a finally): the unit tests share one process with other files.
import { Client } from '../../../src/client/client.js';
import type { ConnectOptions } from '../../../src/client/types.js';
import { type Lease, Mutex } from '../../../src/locks/index.js';
import { OpCode } from '../../../src/protocol/ops.js';
import type { Connection, Transport } from '../../../src/session/transport.js';
import type { Ensemble } from '../../../src/testing/model/ensemble.js';
import { type Installed, installEnvironment, Rng, Scheduler } from '../../sim/env.js';
import type { SimNetwork } from '../../sim/net.js';
import { oneMemberWorld } from '../../sim/one-member.js';

/** One request a client sent, as read from its bytes on the wire. */
export interface SentRequest {
  /** The client process's name (see {@link ModelWorld.connect}). */
  readonly client: string;
  /** The op's name (`create2`, `getChildren`, `getData`, `delete`...), or its number. */
  readonly op: string;
  /** The request's path as the server sees it (with the chroot). */
  readonly path: string;
  /** The watch flag of a getData/getChildren/exists request. */
  readonly watch: boolean | undefined;
  /** The version of a delete. */
  readonly version: number | undefined;
  /** Virtual time it was written. */
  readonly at: number;
}

const opNames = new Map<number, string>(
  Object.entries(OpCode).map(([name, code]) => [code as number, name]),
);
const WATCHED_READS = new Set(['getData', 'getChildren', 'getChildren2', 'exists']);

export class ModelWorld {
  readonly sched = new Scheduler();
  readonly ensemble: Ensemble;
  readonly net: SimNetwork;
  readonly host: string;
  /** Every request each client wrote, in order. */
  readonly sent: SentRequest[] = [];
  /** Called before a request's bytes go out (a black hole set here holds them too). */
  onSend: ((request: SentRequest) => void) | undefined;
  private readonly env: Installed;
  private readonly clients: Client[] = [];

  constructor(seed = 1) {
    const rng = new Rng(seed);
    this.env = installEnvironment(this.sched, rng.fork(), 1_700_000_000_000);
    const { ensemble, net, host } = oneMemberWorld(this.sched, rng);
    this.ensemble = ensemble;
    this.host = host;
    this.net = net;
    this.net.spikeChance = 0;
  }

  /** A connected Client named `name` (its process's name on the network). */
  async connect(
    name: string,
    options: Omit<ConnectOptions, 'transport'> & { chroot?: string } = {},
  ): Promise<Client> {
    const { chroot, ...rest } = options;
    const client = await this.settle(
      Client.connect(`${this.host}${chroot ?? ''}`, {
        sessionTimeout: 10_000,
        ...rest,
        transport: this.tap(name, this.net.transportFor(name)),
      }),
    );
    this.clients.push(client);
    return client;
  }

  /** Runs the virtual world until `promise` settles (at most `limit` virtual ms); its outcome. */
  async settle<T>(promise: Promise<T>, limit = 120_000): Promise<T> {
    let done = false;
    const watched = promise.then(
      (value) => {
        done = true;
        return value;
      },
      (error: unknown) => {
        done = true;
        throw error;
      },
    );
    watched.catch(() => {});
    const end = this.sched.now + limit;
    while (!done && this.sched.now < end) {
      await this.sched.run(
        Math.min(end, this.sched.now + 1_000),
        () => {},
        () => done,
      );
    }
    if (!done) throw new Error(`still pending after ${limit} virtual ms`);
    return watched;
  }

  /** Runs the virtual world for `ms`. */
  async run(ms: number): Promise<void> {
    await this.sched.run(this.sched.now + ms, () => {});
  }

  /** Runs until a request matching `match` has been written (at most `limit` virtual ms). */
  async until(match: (request: SentRequest) => boolean, limit = 60_000): Promise<SentRequest> {
    const start = this.sent.length;
    const found = () => this.sent.slice(start).find(match);
    const end = this.sched.now + limit;
    while (!found() && this.sched.now < end) {
      await this.sched.run(
        end,
        () => {},
        () => found() !== undefined,
      );
    }
    const request = found();
    if (!request) throw new Error(`no such request within ${limit} virtual ms`);
    return request;
  }

  /** The requests `client` sent from index `from` on, as `op path` lines. */
  requests(client: string, from = 0): string[] {
    return this.sent
      .slice(from)
      .filter((r) => r.client === client)
      .map((r) => `${r.op} ${r.path}`);
  }

  /** Runs `then` once, when `client` (any client if undefined) next writes an `op` request. */
  onceSent(client: string | undefined, op: string, then: (request: SentRequest) => void): void {
    this.onSend = (request) => {
      if ((client === undefined || request.client === client) && request.op === op) {
        this.onSend = undefined;
        then(request);
      }
    };
  }

  /** Closes the clients and puts the real globals back. */
  async close(): Promise<void> {
    try {
      for (const client of this.clients) {
        await this.settle(client.close(), 60_000).catch(() => {});
      }
    } finally {
      this.env.restore();
    }
  }

  /** Records every request a client writes (after its connect request). */
  private tap(client: string, transport: Transport): Transport {
    return {
      connect: async (options) => {
        const inner = await transport.connect(options);
        let handshake = true;
        const wrapped: Connection = {
          chunks: inner.chunks,
          closed: inner.closed,
          get closeError() {
            return inner.closeError;
          },
          close: () => inner.close(),
          write: (bytes) => {
            if (handshake) handshake = false;
            else this.record(client, bytes);
            return inner.write(bytes);
          },
        };
        return wrapped;
      },
    };
  }

  private record(client: string, bytes: Uint8Array): void {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = 0;
    while (at + 12 <= bytes.length) {
      const length = view.getInt32(at);
      const type = view.getInt32(at + 8);
      const op = opNames.get(type) ?? String(type);
      let path = '';
      let watch: boolean | undefined;
      let version: number | undefined;
      if (type > 0 && at + 16 <= bytes.length && op !== 'ping') {
        const pathLength = view.getInt32(at + 12);
        if (pathLength >= 0 && at + 16 + pathLength <= bytes.length) {
          path = new TextDecoder().decode(bytes.subarray(at + 16, at + 16 + pathLength));
          const after = at + 16 + pathLength;
          if (WATCHED_READS.has(op)) watch = bytes[after] === 1;
          if (op === 'delete') version = view.getInt32(after);
        }
      }
      const request = { client, op, path, watch, version, at: this.sched.now };
      this.onSend?.(request);
      this.sent.push(request);
      at += 4 + length;
    }
  }
}

/** Runs `body` in a fresh world, always closing it (and restoring the globals) after. */
export async function inModel(body: (world: ModelWorld) => Promise<void>, seed = 1): Promise<void> {
  const world = new ModelWorld(seed);
  try {
    await body(world);
  } finally {
    await world.close();
  }
}

/** Makes the lock directory `/locks/m` through a client named `name`. */
export async function lockDir(world: ModelWorld, name = 'setup'): Promise<void> {
  const client = await world.connect(name);
  await world.settle(client.create('/locks'));
  await world.settle(client.create('/locks/m'));
}

/**
 * The lock directory (made by a client named `setupName`), then clients `a` and `b`, with `a`
 * holding `/locks/m`.
 */
export async function holderAndWaiter(
  world: ModelWorld,
  setupName?: string,
): Promise<{ a: Client; b: Client; held: Lease }> {
  await lockDir(world, setupName);
  const a = await world.connect('a');
  const b = await world.connect('b');
  const held = await world.settle(new Mutex(a, '/locks/m').acquire());
  return { a, b, held };
}
