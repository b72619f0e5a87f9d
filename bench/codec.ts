/**
 * Micro-benchmark of the jute codecs, no server involved: the encode and decode paths every
 * request and reply crosses. Prints ns/op per case: the best round, in CPU time.
 *
 *   npx tsx bench/codec.ts [--rounds 7] [--ms 300]
 *
 * tsx loads modules through accessors that distort the figures; for numbers close to
 * a bundled application, bundle first:
 *
 *   npx esbuild bench/codec.ts --bundle --platform=node --format=esm --outfile=/tmp/codec.mjs
 *   node /tmp/codec.mjs
 *
 * Only the codecs' public surface is used, so the same script measures any implementation
 * of src/protocol that keeps those names.
 */

import { codecs, encodeRequest } from '../src/protocol/codecs.js';
import type { MultiResult } from '../src/protocol/multi.js';
import { Perms } from '../src/protocol/ops.js';
import { Reader } from '../src/protocol/reader.js';
import type { Stat } from '../src/protocol/records.js';
import { Writer } from '../src/protocol/writer.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const ROUNDS = arg('rounds', 7);
const ROUND_MS = arg('ms', 300);

const stat: Stat = {
  czxid: 0x1_0000_0010n,
  mzxid: 0x1_0000_0020n,
  ctime: 1_700_000_000_000n,
  mtime: 1_700_000_000_500n,
  version: 3,
  cversion: 7,
  aversion: 0,
  ephemeralOwner: 0x100_0000_0001n,
  dataLength: 32,
  numChildren: 10,
  pzxid: 0x1_0000_0030n,
};
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

function reply(write: (w: Writer) => void): Uint8Array {
  const w = new Writer();
  write(w);
  return w.copy();
}

const getDataReply = reply((w) => codecs.getData.writeResponse(w, { data, stat }));
const getChildrenReply = reply((w) => codecs.getChildren.writeResponse(w, { children }));
const getChildren2Reply = reply((w) => codecs.getChildren2.writeResponse(w, { children, stat }));
const multiResults: MultiResult[] = [
  { type: 'create2', path, stat },
  { type: 'setData', stat },
  { type: 'check' },
  { type: 'delete' },
];
const multiReply = reply((w) => codecs.multi.writeResponse(w, multiResults));

let sink = 0;

const cases: [string, () => void][] = [
  [
    'getData request encode',
    () => {
      sink += encodeRequest(7, codecs.getData, { path, watch: true }).length;
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

for (const [, fn] of cases) measure(fn); // warm every case before timing any
for (const [name, fn] of cases) {
  console.log(`${name.padEnd(52)} ${measure(fn).toFixed(0).padStart(6)} ns/op`);
}
if (sink === 42) console.log('');
