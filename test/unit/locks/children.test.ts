// The encoded listing (src/coordination/children.ts) must decide exactly as placeInQueue does over the
// decoded names: random queues of every naming, odd and non-ASCII names, equal sequence numbers
// (only names made by hand can have them), the sequence limit, a wrap, null and empty names.
import { describe, expect, it } from 'vitest';
import { EncodedChildren, namesOf, placeAmong } from '../../../src/coordination/children.js';
import { LockName } from '../../../src/coordination/naming.js';
import { PAST_LIMIT, placeInQueue, type QueueRule } from '../../../src/coordination/place.js';
import { Reader } from '../../../src/protocol/reader.js';
import { Writer } from '../../../src/protocol/writer.js';

const MUTEX_NAMES = [LockName.mutex, LockName.kazooMutex];
const RW_NAMES = [LockName.read, LockName.write];
const ODD_NAMES = ['lock-', 'ロック-', 'l🔒-'];
const rules: QueueRule[] = [
  { names: MUTEX_NAMES, blockedBy: -1 },
  { names: RW_NAMES, blockedBy: 1 },
  { names: RW_NAMES, blockedBy: -1 },
  { names: ODD_NAMES, blockedBy: -1 },
  { names: ODD_NAMES, blockedBy: 2 },
];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A getChildren reply's vector: the count, then each name (null for `null`). */
function encode(names: readonly (string | null)[]): Uint8Array {
  const w = new Writer().int(names.length);
  for (const name of names) w.ustring(name);
  return w.finish();
}

/** As the lock seam reads it: through a Reader over a reply with bytes before and after. */
function encoded(names: readonly (string | null)[]): EncodedChildren {
  const body = encode(names);
  const reply = new Uint8Array(body.length + 8);
  reply.set(body, 3);
  const r = new Reader(reply);
  for (let i = 0; i < 3; i++) r.bool();
  const children = EncodedChildren.read(r);
  expect(r.remaining).toBe(5);
  return children;
}

function randomName(random: () => number, names: readonly string[]): string {
  const pick = random();
  const seq = Math.floor(random() * 60);
  const pad = (n: number) => String(n).padStart(10, '0');
  const lockName = names[Math.floor(random() * names.length)]!;
  if (pick < 0.55) return `_c_${crypto.randomUUID()}-${lockName}${pad(seq)}`;
  if (pick < 0.65) return `${crypto.randomUUID().replaceAll('-', '')}${lockName}${pad(seq)}`;
  if (pick < 0.72) return `é${Math.floor(random() * 3)}${lockName}${pad(seq)}`;
  if (pick < 0.76) return `${lockName}${pad(seq)}`;
  if (pick < 0.79) return `x${lockName}2147483647`;
  if (pick < 0.81) return `x${lockName}-2147483648`;
  if (pick < 0.83) return `x${lockName}-000000001`;
  if (pick < 0.86) return `x${lockName}${pad(seq)}0`;
  if (pick < 0.89) return `${lockName}${lockName}${pad(seq)}`;
  if (pick < 0.92) return `ü${lockName}00000a00${seq % 10}`;
  if (pick < 0.95) return 'readme';
  if (pick < 0.97) return '';
  return `${lockName}`;
}

describe('EncodedChildren', () => {
  it('places every contender of random queues exactly as placeInQueue does over the names', () => {
    const random = rng(7);
    let decided = 0;
    for (let round = 0; round < 600; round++) {
      const rule = rules[round % rules.length]!;
      const count = Math.floor(random() * 24);
      const names = Array.from({ length: count }, () => randomName(random, rule.names));
      const list = encoded(names);
      expect(list.names()).toEqual(names);
      const fresh = encoded(names);
      for (const own of [...names, randomName(random, rule.names)]) {
        const expected = placeInQueue(names, own, rule);
        // A fresh listing each time: a decoded one answers through placeInQueue itself.
        expect(encoded(names).place(own, rule), `${names.join(',')} / ${own}`).toEqual(expected);
        expect(placeAmong(fresh, own, rule)).toEqual(expected);
        if (expected !== undefined && expected !== PAST_LIMIT) decided++;
      }
    }
    // The random queues reach real decisions, not only "not a contender".
    expect(decided).toBeGreaterThan(2000);
  });

  it('orders two contenders of one sequence number by name, as the decoded rule does', () => {
    const rule = rules[0]!;
    const a = 'a-lock-0000000005';
    const b = 'b-lock-0000000005';
    const c = 'c-lock-0000000005';
    const early = '_c_0-lock-0000000001';
    for (const names of [
      [a, b, c, early],
      [c, b, a, early],
      [b, early, c, a],
    ]) {
      for (const own of names) {
        expect(encoded(names).place(own, rule)).toEqual(placeInQueue(names, own, rule));
      }
    }
    expect(encoded([a, b, c]).place(c, rule)).toEqual({ ahead: 2, watch: b });
  });

  it('reads null names as empty, finds names by their bytes, and decodes on demand', () => {
    const names = ['_c_1-lock-0000000001', null, 'ロック-0000000002', ''];
    const list = encoded(names);
    expect(list.includes('ロック-0000000002')).toBe(true);
    expect(list.includes('ロック-000000000')).toBe(false);
    expect(list.includes('')).toBe(true);
    expect(encoded(['x']).includes('')).toBe(false);
    expect(namesOf(list)).toEqual(['_c_1-lock-0000000001', '', 'ロック-0000000002', '']);
    expect(list.includes('_c_1-lock-0000000001')).toBe(true);
    expect(encoded([]).place('_c_1-lock-0000000001', rules[0]!)).toBeUndefined();
    expect(namesOf(['a'])).toEqual(['a']);
  });

  it('refuses a malformed vector as the reader does, before deciding anything', () => {
    const body = encode(['_c_1-lock-0000000001']);
    const cut = body.subarray(0, body.length - 3);
    expect(() => new Reader(cut).strings()).toThrow();
    expect(() => EncodedChildren.read(new Reader(cut))).toThrow();
  });
});
