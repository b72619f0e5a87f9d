/**
 * Micro-benchmark of the jute codecs, no server involved: the encode and decode paths every
 * request and reply crosses. Prints ns/op per case: the best round, in CPU time.
 *
 *   npx tsx bench/codec.ts [--rounds 7] [--ms 300] [--json]
 *
 * tsx loads modules through accessors that distort the figures; for numbers close to
 * a bundled application, bundle first:
 *
 *   npx esbuild bench/codec.ts --bundle --platform=node --format=esm --outfile=/tmp/codec.mjs
 *   node /tmp/codec.mjs
 *
 * To compare two versions of src/protocol (interleaved runs, medians, instruction counts),
 * use bench/codec-compare.ts, which bundles this file against each.
 *
 * `--only N --warmup W --iterations K` runs every case W times, then case N (0-based) K times,
 * and prints nothing (`--list` prints the case names as JSON): a fixed amount of work for an instruction counter (callgrind), where the
 * difference between K and K = 0 is the cost of K operations.
 *
 * Only the codecs' client-side surface (`codecs`, `encodeRequest`, `decodeReplyHeader`, Reader,
 * Writer) is used, and the reply bytes are built with the Writer's primitives, so the same
 * script measures any implementation of src/protocol that keeps those names.
 */

import { codecs, decodeReplyHeader, encodeRequest } from '../src/protocol/codecs.js';
import { OpCode, Perms } from '../src/protocol/ops.js';
import { Reader } from '../src/protocol/reader.js';
import { Writer } from '../src/protocol/writer.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const ROUNDS = arg('rounds', 7);
const ROUND_MS = arg('ms', 300);
const ONLY = arg('only', -1);
const JSON_OUT = process.argv.includes('--json');

const data = new Uint8Array(32).fill(7);
const path = '/app/locks/_c_0f2a9d3b-lock-0000000042';
const children = Array.from(
  { length: 10 },
  (_, i) => `_c_0f2a9d3b-lock-${String(i).padStart(10, '0')}`,
);
const acl = [
  { perms: Perms.ALL, id: { scheme: 'world', id: 'anyone' } },
  { perms: Perms.READ, id: { scheme: 'digest', id: 'user:Yf4kdTL9p2Q1yhIMZKXm5t/p1MM=' } },
];

// Reply bodies, written field by field (the server's side is not part of what is measured).
function bytesOf(write: (w: Writer) => void): Uint8Array {
  const w = new Writer();
  write(w);
  return w.copy();
}
function stat(w: Writer): void {
  w.long(0x1_0000_0010n).long(0x1_0000_0020n).long(1_700_000_000_000n).long(1_700_000_000_500n);
  w.int(3).int(7).int(0).long(0x100_0000_0001n).int(32).int(10).long(0x1_0000_0030n);
}
function childList(w: Writer): void {
  w.vector(children, (iw, name) => iw.ustring(name));
}
function multiHeader(w: Writer, type: number, done: boolean, err: number): void {
  w.int(type).bool(done).int(err);
}
const replyHeader = bytesOf((w) => w.int(7).long(0x1_0000_0042n).int(0));
const existsReply = bytesOf(stat);
const getDataReply = bytesOf((w) => {
  w.buffer(data);
  stat(w);
});
const getChildrenReply = bytesOf(childList);
const getChildren2Reply = bytesOf((w) => {
  childList(w);
  stat(w);
});
const multiReply = bytesOf((w) => {
  multiHeader(w, OpCode.create2, false, 0);
  w.ustring(path);
  stat(w);
  multiHeader(w, OpCode.setData, false, 0);
  stat(w);
  multiHeader(w, OpCode.check, false, 0);
  multiHeader(w, OpCode.delete, false, 0);
  multiHeader(w, -1, true, -1);
});

let sink = 0;

const cases: [string, () => void][] = [
  [
    'getData request encode',
    () => {
      sink += encodeRequest(7, codecs.getData, { path, watch: true }).length;
    },
  ],
  [
    'setData request encode (32 B)',
    () => {
      sink += encodeRequest(7, codecs.setData, { path, data, version: -1 }).length;
    },
  ],
  [
    'create request encode (2 ACLs, 32 B)',
    () => {
      sink += encodeRequest(7, codecs.create, { path, data, acl, flags: 3 }).length;
    },
  ],
  [
    'multi request encode (create, setData, check, delete)',
    () => {
      sink += encodeRequest(7, codecs.multi, {
        ops: [
          { type: 'create2', request: { path, data, acl, flags: 0 } },
          { type: 'setData', request: { path, data, version: -1 } },
          { type: 'check', request: { path, version: 3 } },
          { type: 'delete', request: { path, version: -1 } },
        ],
      }).length;
    },
  ],
  [
    'reply header decode',
    () => {
      sink += decodeReplyHeader(new Reader(replyHeader)).xid;
    },
  ],
  [
    'exists reply decode (Stat)',
    () => {
      sink += codecs.exists.read(new Reader(existsReply)).stat.version;
    },
  ],
  [
    'getData reply decode',
    () => {
      sink += codecs.getData.read(new Reader(getDataReply)).stat.version;
    },
  ],
  [
    'getChildren reply decode (10 names)',
    () => {
      sink += codecs.getChildren.read(new Reader(getChildrenReply)).children.length;
    },
  ],
  [
    'getChildren2 reply decode (10 names + Stat)',
    () => {
      sink += codecs.getChildren2.read(new Reader(getChildren2Reply)).children.length;
    },
  ],
  [
    'multi reply decode (4 results)',
    () => {
      sink += codecs.multi.read(new Reader(multiReply)).length;
    },
  ],
];

/**
 * Best ns/op over the rounds, in CPU time of this process (user + system): on a shared,
 * loaded machine wall time mostly measures the other processes.
 */
function measure(fn: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    let ops = 0;
    const start = process.cpuUsage();
    let used = 0;
    while (used < ROUND_MS * 1000) {
      for (let i = 0; i < 1000; i++) fn();
      ops += 1000;
      const now = process.cpuUsage(start);
      used = now.user + now.system;
    }
    best = Math.min(best, (used * 1000) / ops);
  }
  return best;
}

function fixedWork(only: number, warmup: number, iterations: number): void {
  for (const [, fn] of cases) for (let i = 0; i < warmup; i++) fn();
  const [, fn] = cases[only] ?? [];
  if (!fn) throw new Error(`no case ${only}: 0..${cases.length - 1}`);
  for (let i = 0; i < iterations; i++) fn();
}

if (process.argv.includes('--list')) {
  console.log(JSON.stringify(cases.map(([name]) => name)));
} else if (ONLY >= 0) {
  fixedWork(ONLY, arg('warmup', 20_000), arg('iterations', 100_000));
} else {
  for (const [, fn] of cases) measure(fn); // warm every case before timing any
  const results: Record<string, number> = {};
  for (const [name, fn] of cases) {
    const ns = measure(fn);
    results[name] = ns;
    if (!JSON_OUT) console.log(`${name.padEnd(52)} ${ns.toFixed(0).padStart(6)} ns/op`);
  }
  if (JSON_OUT) console.log(JSON.stringify(results));
}
if (sink === 42) console.log('');
