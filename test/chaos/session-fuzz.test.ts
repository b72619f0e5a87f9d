// Hostile servers, randomised: where test/unit/session/hostile-server.test.ts picks each kind of
// bad answer by hand and test/chaos/protocol-fuzz.test.ts fuzzes the decoders alone, this fuzzes
// the live session. Each round a client talks to an in-memory host that mangles one answer (the
// handshake or a reply: flipped bits, cut or resized frames, wrong xids, bogus error codes,
// garbage notifications, duplicates, byte-by-byte delivery) and then behaves, with a good host
// behind it. Whatever comes, a call settles in time with a value or a ZooKeeperError, the client
// keeps or ends its session cleanly, a later call works while the session lives, and close()
// leaves no connection and no timer behind.
//
// Reproducible: SESSION_FUZZ_SEED=<n> SESSION_FUZZ_ROUNDS=<n> (default 200 rounds).
import { describe, expect, it } from 'vitest';
import { type Client, connect, ZooKeeperError } from '../../src/index.js';
import { OpCode, Xid } from '../../src/protocol/ops.js';
import { Reader } from '../../src/protocol/reader.js';
import { frame } from '../../src/protocol/writer.js';
import {
  serverCodecs as codecs,
  readRequestHeader,
  type ServerCodec,
  writeReplyHeader,
} from '../../src/testing/wire/server-codecs.js';
import {
  connectResponse,
  FakeNetwork,
  handshakeThen,
  type Script,
  type ServerSide,
} from '../unit/session/fake-server.js';
import { Prng } from './prng.js';

const seed = Number(process.env.SESSION_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const rounds = Number(process.env.SESSION_FUZZ_ROUNDS ?? 200);
/** Rounds run side by side (each has its own in-memory network). */
const PARALLEL = 8;
/** Negotiated by the fake hosts: the client declares a silent link dead after 2/3 of it. */
const SESSION_TIMEOUT = 900;
/** Longest a call may take: a dead link noticed, the next host tried, the call answered. */
const SETTLE_MS = 4 * SESSION_TIMEOUT;

const STAT = {
  czxid: 3n,
  mzxid: 4n,
  ctime: 1_700_000_000_000n,
  mtime: 1_700_000_000_001n,
  version: 1,
  cversion: 2,
  aversion: 0,
  ephemeralOwner: 0n,
  dataLength: 4,
  numChildren: 2,
  pzxid: 5n,
};

/** What a well-behaved server answers, per request type. */
const ANSWERS = new Map<number, [ServerCodec<unknown, unknown>, unknown]>(
  (
    [
      [codecs.getData, { data: new TextEncoder().encode('good'), stat: STAT }],
      [codecs.exists, { stat: STAT }],
      [codecs.setData, { stat: STAT }],
      [codecs.getChildren, { children: ['a', 'b'] }],
      [codecs.getChildren2, { children: ['a', 'b'], stat: STAT }],
      [codecs.create, { path: '/fuzz/x' }],
      [codecs.create2, { path: '/fuzz/x', stat: STAT }],
      [codecs.delete, undefined],
      [codecs.sync, { path: '/fuzz' }],
    ] as [ServerCodec<unknown, unknown>, unknown][]
  ).map(([codec, answer]) => [codec.code, [codec, answer]]),
);

/** The correct reply frame to one request (length prefix included). */
function correctReply(body: Uint8Array): Uint8Array | undefined {
  const header = readRequestHeader(new Reader(body));
  if (header.type === OpCode.closeSession || header.xid === Xid.ping || header.xid === Xid.auth)
    return frame((w) => writeReplyHeader(w, { xid: header.xid, zxid: 9n, err: 0 }));
  if (header.xid === Xid.setWatches) return undefined;
  const known = ANSWERS.get(header.type);
  return frame((w) => {
    writeReplyHeader(w, { xid: header.xid, zxid: 9n, err: known ? 0 : -6 });
    if (known) known[0].writeResponse(w, known[1]);
  });
}

const MANGLINGS = [
  'flip-bits',
  'truncate-close',
  'truncate-stall',
  'resize',
  'random-bytes',
  'duplicate',
  'wrong-xid',
  'error-code',
  'garbage-notification',
  'byte-by-byte',
  'split-and-close',
] as const;
type Mangling = (typeof MANGLINGS)[number];

const INTERESTING = [0, 1, 3, 15, 16, 17, -1, -2, 2 ** 31 - 1, -(2 ** 31), 0xfffff, 0x100000];

/** Sends `reply` mangled one way (the server then behaves). */
function mangle(server: ServerSide, reply: Uint8Array, how: Mangling, rand: Prng): string {
  const bytes = reply.slice();
  const view = new DataView(bytes.buffer);
  switch (how) {
    case 'flip-bits': {
      const flips = rand.int(1, 6);
      for (let i = 0; i < flips; i++) {
        const at = rand.int(4, bytes.length - 1);
        bytes[at] = bytes[at]! ^ (1 << rand.int(0, 7));
      }
      server.send(bytes);
      return `${flips} bits`;
    }
    case 'truncate-close':
      server.send(bytes.subarray(0, rand.int(0, bytes.length - 1)));
      server.close();
      return 'closed';
    case 'truncate-stall':
      server.send(bytes.subarray(0, rand.int(1, bytes.length - 1)));
      return 'stalled';
    case 'resize': {
      const length = rand.chance(0.5) ? rand.pick(INTERESTING) : bytes.length - 4 + rand.int(-8, 8);
      view.setInt32(0, length);
      server.send(bytes);
      return `length ${length}`;
    }
    case 'random-bytes': {
      const junk = new Uint8Array(rand.int(1, 64)).map(() => rand.int(0, 255));
      server.send(junk);
      return `${junk.length} bytes`;
    }
    case 'duplicate':
      server.send(bytes);
      server.send(bytes.slice());
      return 'twice';
    case 'wrong-xid': {
      const xid = view.getInt32(4) + rand.pick([1, -1, 1000, -(2 ** 31)]);
      view.setInt32(4, xid | 0);
      server.send(bytes);
      return `xid ${xid | 0}`;
    }
    case 'error-code': {
      const err = rand.pick([-4, -7, -101, -112, -118, -119, -127, 1, 999, -(2 ** 31)]);
      // Keep the body: a non-zero code with a body the client must not read.
      view.setInt32(16, err);
      server.send(bytes);
      return `err ${err}`;
    }
    case 'garbage-notification': {
      const junk = new Uint8Array(rand.int(0, 40)).map(() => rand.int(0, 255));
      server.send(
        frame((w) => {
          writeReplyHeader(w, { xid: Xid.notification, zxid: -1n, err: 0 });
          w.raw(junk);
        }),
      );
      server.send(bytes);
      return `notification of ${junk.length} bytes`;
    }
    case 'byte-by-byte':
      for (let i = 0; i < bytes.length; i++) server.send(bytes.subarray(i, i + 1));
      return `${bytes.length} chunks`;
    case 'split-and-close': {
      const cut = rand.int(1, bytes.length - 1);
      server.send(bytes.subarray(0, cut));
      server.send(bytes.subarray(cut));
      server.close();
      return `cut at ${cut}`;
    }
  }
}

/** A host that answers properly, except for one mangled answer: the handshake or a reply. */
function hostileHost(
  rand: Prng,
  target: 'handshake' | 'reply',
  how: Mangling,
  log: string[],
): Script {
  return (server) => {
    let handshaken = false;
    let mangled = false;
    server.onFrame((body) => {
      if (!handshaken) {
        handshaken = true;
        const answer = connectResponse(body, SESSION_TIMEOUT);
        if (target === 'handshake' && !mangled) {
          mangled = true;
          log.push(`handshake ${how} ${mangle(server, answer, how, rand)}`);
        } else server.send(answer);
        return;
      }
      const reply = correctReply(body);
      if (!reply) return;
      const header = readRequestHeader(new Reader(body));
      if (target === 'reply' && !mangled && header.xid > 0) {
        mangled = true;
        log.push(`reply ${how} ${mangle(server, reply, how, rand)}`);
      } else server.send(reply);
    });
  };
}

function goodHost(): Script {
  return handshakeThen((server, body) => {
    const reply = correctReply(body);
    if (reply) server.send(reply);
  }, SESSION_TIMEOUT);
}

type Call = (zk: Client) => Promise<unknown>;
const CALLS: [string, Call][] = [
  ['getData', (zk) => zk.getData('/fuzz')],
  ['exists', (zk) => zk.exists('/fuzz')],
  ['setData', (zk) => zk.setData('/fuzz', 'v')],
  ['getChildren', (zk) => zk.getChildren('/fuzz')],
  ['getChildren2', (zk) => zk.getChildren2('/fuzz')],
  ['create', (zk) => zk.create('/fuzz/x', 'v')],
  ['create2', (zk) => zk.create2('/fuzz/x', 'v')],
  ['delete', (zk) => zk.delete('/fuzz/x')],
  ['sync', (zk) => zk.sync('/fuzz')],
];

/** `promise`'s outcome, or 'hung' when it takes longer than `ms`. */
async function settle(
  promise: Promise<unknown>,
  ms: number,
): Promise<{ value?: unknown; error?: unknown; hung?: true }> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<{ hung: true }>((resolve) => {
    timer = setTimeout(() => resolve({ hung: true }), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      hung,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

interface Problem {
  round: number;
  what: string;
}

async function round(n: number, problems: Problem[]): Promise<string> {
  const rand = new Prng(seed).fork(`round ${n}`);
  const target = rand.chance(0.2) ? 'handshake' : 'reply';
  const how = rand.pick(MANGLINGS);
  const [name, call] = rand.pick(CALLS);
  const log: string[] = [];
  const network = new FakeNetwork({
    'bad:1': hostileHost(rand, target, how, log),
    'good:2': goodHost(),
  });
  const fail = (what: string) =>
    problems.push({
      round: n,
      what: `${name} after ${log.join(', ') || `${target} ${how}`}: ${what}`,
    });
  let zk: Client | undefined;
  const opened = await settle(
    connect('bad:1,good:2', {
      transport: network,
      sessionTimeout: SESSION_TIMEOUT,
      connectTimeout: SETTLE_MS,
      shuffleHosts: false,
    }),
    SETTLE_MS + 1_000,
  );
  if (opened.hung) fail('connect() hung');
  else if (opened.error !== undefined) {
    if (!(opened.error instanceof ZooKeeperError))
      fail(`connect() rejected untyped: ${String(opened.error)}`);
  } else zk = opened.value as Client;

  if (zk) {
    // With renewal on, an expiry is not final: the state moves on to connecting at once. A call
    // that failed SESSIONEXPIRED after one (the client declares it when no server answered for a
    // whole session timeout, which a loaded machine can reach) failed for a session that ended.
    let expired = false;
    zk.on('state', (state) => {
      if (state === 'expired') expired = true;
    });
    const first = await settle(call(zk), SETTLE_MS);
    if (first.hung) fail('the call hung');
    else if (first.error !== undefined && !(first.error instanceof ZooKeeperError))
      fail(`the call rejected untyped: ${String(first.error)}`);
    // Whatever that did to the link, the session carries on (or ended, and says so). A link the
    // mangling left silently out of step fails what was written on it when the client finds out:
    // CONNECTIONLOSS (read timeout), or MARSHALLINGERROR when the bytes it got out of step read as
    // a frame too large for the request waiting. Both are answers about that link: retry.
    let next: Awaited<ReturnType<typeof settle>> = {};
    for (let attempt = 0; attempt < 3; attempt++) {
      next = await settle(call(zk), SETTLE_MS);
      const linkError =
        next.error instanceof ZooKeeperError &&
        (next.error.code === 'CONNECTIONLOSS' || next.error.code === 'MARSHALLINGERROR');
      if (!linkError) break;
    }
    const final =
      ['expired', 'closed', 'auth-failed'].includes(zk.state) ||
      (expired && next.error instanceof ZooKeeperError && next.error.code === 'SESSIONEXPIRED');
    if (next.hung) fail(`a later call hung (state ${zk.state})`);
    else if (next.error !== undefined && !final)
      fail(`a later call failed while the session lives (${zk.state}): ${String(next.error)}`);
    else if (next.error !== undefined && !(next.error instanceof ZooKeeperError))
      fail(`a later call rejected untyped: ${String(next.error)}`);
    const closed = await settle(zk.close(), SETTLE_MS);
    if (closed.hung) fail('close() hung');
    else if (closed.error !== undefined) fail(`close() rejected: ${String(closed.error)}`);
  }
  // Give the fake network a turn to deliver the last closes.
  await new Promise((resolve) => setImmediate(resolve));
  if (network.openConnections() > 0) fail(`${network.openConnections()} connection(s) left open`);
  return `${target} ${how}`;
}

function timers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

describe('session fuzz: hostile hosts, randomised', () => {
  it(
    `every call settles typed, the session survives or ends cleanly (seed ${seed}, ${rounds} rounds)`,
    async () => {
      console.log(`session fuzz: SESSION_FUZZ_SEED=${seed} SESSION_FUZZ_ROUNDS=${rounds}`);
      const timersBefore = timers();
      const problems: Problem[] = [];
      const seen = new Map<string, number>();
      let next = 0;
      await Promise.all(
        Array.from({ length: PARALLEL }, async () => {
          while (next < rounds) {
            const kind = await round(next++, problems);
            seen.set(kind, (seen.get(kind) ?? 0) + 1);
          }
        }),
      );
      const report = problems
        .slice(0, 15)
        .map((p) => `round ${p.round}: ${p.what}`)
        .join('\n');
      expect(problems, `SESSION_FUZZ_SEED=${seed}\n${report}`).toEqual([]);
      // The rounds must have covered every mangling, or the fuzz proves little.
      const kinds = new Set([...seen.keys()].map((k) => k.split(' ')[1]));
      if (rounds >= 100) expect(kinds.size).toBe(MANGLINGS.length);
      // Nothing of the rounds may keep a timer alive.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(timers()).toBeLessThanOrEqual(timersBefore);
    },
    Math.max(60_000, rounds * 1_000),
  );
});
