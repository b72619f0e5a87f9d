// Planted bugs in the session core (heartbeat, auth, restoring watches) and in revocation and the
// elections' progress. Like the others they enter through public seams: the transport a client
// is given (the frames it writes and reads), or the client a recipe is given.
import type { Client } from '../../src/client/client.js';
import { OpCode, Xid } from '../../src/protocol/ops.js';
import { Reader } from '../../src/protocol/reader.js';
import { frame } from '../../src/protocol/writer.js';
import type { Connection, Transport } from '../../src/session/transport.js';
import { readRequestHeader, writeReplyHeader } from '../../src/testing/wire/server-codecs.js';
import { forwardLockClient } from '../support/forward-lock-client.js';
import { clientWith, withOwnNodes } from './plant-kit.js';
import type { Plant } from './plants.js';
import { rewriteSetWatches } from './plants.js';

/** The whole frames in `bytes` (the session writes whole frames), or null if it is not whole. */
function framesOf(bytes: Uint8Array): Uint8Array[] | null {
  const frames: Uint8Array[] = [];
  let at = 0;
  while (at + 4 <= bytes.length) {
    const length = new DataView(bytes.buffer, bytes.byteOffset + at).getInt32(0);
    const end = at + 4 + length;
    if (length < 8 || end > bytes.length) return null;
    frames.push(bytes.subarray(at, end));
    at = end;
  }
  return at === bytes.length ? frames : null;
}

function headerOf(frameBytes: Uint8Array): { xid: number; type: number } {
  return readRequestHeader(new Reader(frameBytes.subarray(4)));
}

function join(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, b) => n + b.length, 0));
  let offset = 0;
  for (const b of parts) {
    out.set(b, offset);
    offset += b.length;
  }
  return out;
}

/** A transport whose every connection is `wrap(connection, index)` (index 0 is the first). */
function wrapped(wrap: (connection: Connection, index: number) => Connection) {
  return (inner: Transport): Transport => {
    let dialled = 0;
    return {
      async connect(options) {
        return wrap(await inner.connect(options), dialled++);
      },
    };
  };
}

/**
 * A connection that answers the client's pings itself, at once (the real ones still go out): the
 * session hears from "the server" whenever it pings, so its dead-link detection never fires and a
 * link gone silent (a black hole) looks alive. Inbound bytes are regrouped into whole frames so
 * an answer never lands inside a frame that arrived in pieces.
 */
function answeringPings(connection: Connection): Connection {
  const ready: Uint8Array[] = [];
  let pending: Uint8Array = new Uint8Array(0);
  let ended = false;
  const waiting: { wake: (() => void) | null } = { wake: null };
  const deliver = (bytes: Uint8Array) => {
    ready.push(bytes);
    waiting.wake?.();
  };
  void (async () => {
    try {
      for await (const chunk of connection.chunks) {
        pending = join([pending, chunk]);
        let at = 0;
        while (at + 4 <= pending.length) {
          const length = new DataView(pending.buffer, pending.byteOffset + at).getInt32(0);
          if (at + 4 + length > pending.length) break;
          deliver(pending.slice(at, at + 4 + length));
          at += 4 + length;
        }
        pending = pending.slice(at);
      }
    } catch {
      // The connection ended: the iteration below ends too.
    } finally {
      ended = true;
      waiting.wake?.();
    }
  })();
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (;;) {
      const next = ready.shift();
      if (next) {
        yield next;
        continue;
      }
      if (ended) return;
      await new Promise<void>((resolve) => {
        waiting.wake = resolve;
      });
      waiting.wake = null;
    }
  }
  const pingReply = () => frame((w) => writeReplyHeader(w, { xid: Xid.ping, zxid: 0n, err: 0 }));
  return {
    chunks: chunks(),
    closed: connection.closed,
    close: () => connection.close(),
    get closeError() {
      return connection.closeError;
    },
    write(bytes) {
      const frames = framesOf(bytes) ?? [];
      for (const f of frames) if (headerOf(f).xid === Xid.ping) deliver(pingReply());
      return connection.write(bytes);
    },
  };
}

/** A connection that drops the auth frames the client writes. */
function withoutAuth(connection: Connection): Connection {
  return {
    chunks: connection.chunks,
    closed: connection.closed,
    close: () => connection.close(),
    get closeError() {
      return connection.closeError;
    },
    write(bytes) {
      const frames = framesOf(bytes);
      if (!frames) return connection.write(bytes);
      const kept = frames.filter((f) => headerOf(f).type !== OpCode.auth);
      if (kept.length === frames.length) return connection.write(bytes);
      return kept.length > 0 ? connection.write(join(kept)) : undefined;
    },
  };
}

/** `client` as a recipe sees it when reading its own nodes' data shows them empty. */
function ownDataUnread(client: Client) {
  return withOwnNodes(client, (own) => ({
    getData: (async (path: string, options?: Parameters<Client['getData']>[1]) => {
      const result = await client.getData(path, options);
      return own.has(path) ? { ...result, data: new Uint8Array(0) } : result;
    }) as Client['getData'],
  }));
}

/** The sequence number at the end of a node name. */
function sequenceOf(name: string): number {
  const match = /(\d+)$/.exec(name);
  return match ? Number(match[1]) : Number.NaN;
}

/** `client` as the latch sees it when its watches on the other candidates' nodes are never set. */
function predecessorWatchesDropped(client: Client) {
  return withOwnNodes(client, (own) => {
    const others = (path: string) => path.includes('/election/') && !own.has(path);
    return {
      getData: ((path: string, options?: Parameters<Client['getData']>[1]) =>
        client.getData(
          path,
          others(path) ? { ...options, watch: undefined } : options,
        )) as Client['getData'],
      exists: ((path: string, options?: Parameters<Client['exists']>[1]) =>
        client.exists(
          path,
          others(path) ? { ...options, watch: undefined } : options,
        )) as Client['exists'],
    };
  });
}

/** `client` with the watches on its own registration node never set (every other member forwarded). */
function ownNodeUnwatched(client: Client): Client {
  const unwatched = (call: 'getData' | 'exists') => (path: string, options?: { watch?: unknown }) =>
    (client[call] as (p: string, o?: object) => Promise<unknown>)(
      path,
      path.includes('/members/') ? { ...options, watch: undefined } : options,
    );
  return clientWith(client, (property) =>
    property === 'getData' || property === 'exists' ? unwatched(property) : undefined,
  );
}

export const sessionPlants: Record<string, Plant> = {
  'registration-unwatched': {
    name: 'registration-unwatched',
    description:
      'a PersistentNode never sets the watch on its own node: deleted by someone else, it is not created again',
    workload: 'registration',
    wrap: (client) => ownNodeUnwatched(client),
  },
  'reconnect-without-pause': {
    name: 'reconnect-without-pause',
    description:
      'the random pause before dialling again after a dropped connection is always zero (enters through Math.random, the pacing random source)',
    workload: 'mutex',
    // One member: the client has nowhere else to go while it flaps.
    members: 1,
    faultKinds: ['flap', 'flap', 'reset'],
    faultGap: [500, 3000],
    random: () => 0,
  },
  'latch-never-wakes': {
    name: 'latch-never-wakes',
    description:
      "a latch candidate's watch on the candidate ahead of it is never set: when that one goes, it does not notice",
    workload: 'latch',
    wrap: (client) => predecessorWatchesDropped(client),
  },
  'heartbeat-never-dead': {
    name: 'heartbeat-never-dead',
    description:
      'the session counts its own pings as the server speaking: a silent link is never declared dead, the holder is never suspended',
    workload: 'mutex',
    holds: 'long',
    faultKinds: ['holeLong', 'holeLong', 'holeShort'],
    faultGap: [1000, 4000],
    transport: wrapped((connection) => answeringPings(connection)),
  },
  'auth-not-resent': {
    name: 'auth-not-resent',
    description:
      'the credentials are sent on the first connection only, not again after a reconnect or a renewal',
    workload: 'mutex',
    auth: true,
    faultKinds: ['reset', 'cut', 'holeShort'],
    faultGap: [500, 3000],
    transport: wrapped((connection, index) => (index === 0 ? connection : withoutAuth(connection))),
  },
  'restore-drops-exist-watches': {
    name: 'restore-drops-exist-watches',
    description:
      'SetWatches after a reconnect leaves out the exist watches (watches on nodes that did not exist)',
    workload: 'mutex',
    watchResets: true,
    faultKinds: ['reset', 'holeShort'],
    faultGap: [1000, 4000],
    transport: wrapped((connection) =>
      rewriteSetWatches(connection, (paths, field) => (field === 'existWatches' ? [] : paths)),
    ),
  },
  'restore-drops-child-watches': {
    name: 'restore-drops-child-watches',
    description: 'SetWatches after a reconnect leaves out the child watches',
    workload: 'semaphore',
    faultKinds: ['reset', 'cut', 'holeShort'],
    faultGap: [500, 3000],
    transport: wrapped((connection) =>
      rewriteSetWatches(connection, (paths, field) => (field === 'childWatches' ? [] : paths)),
    ),
  },
  'revocation-unheard': {
    name: 'revocation-unheard',
    description:
      "a revocable holder reads its own node's data as empty: it never hears it was asked to release",
    workload: 'revocation',
    wrap: (client) => ownDataUnread(client),
  },
  'latch-misses-the-leader': {
    name: 'latch-misses-the-leader',
    description:
      "the latch's listing of the election leaves out the first candidate: the one in line never leads",
    workload: 'latch',
    wrap: (client) =>
      forwardLockClient(client, {
        getChildren: (async (path: string, options?: Parameters<Client['getChildren']>[1]) => {
          const children = await client.getChildren(path, options);
          if (!path.endsWith('/election') || children.length < 2) return children;
          const first = children.reduce((a, b) => (sequenceOf(b) < sequenceOf(a) ? b : a));
          return children.filter((c) => c !== first);
        }) as Client['getChildren'],
      }),
  },
};
