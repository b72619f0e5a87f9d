// The contender-order rule has one reference (sortContenders in src/coordination/order.ts); the two
// fast paths that decide a contender's place on every wake (placeInQueue over names, the encoded
// listing over a reply's bytes) must give the reference's answer on every queue. Random queues of
// every naming scheme (Curator's protected `_c_<uuid>-` names of mutex, read/write lock,
// semaphore and latch; kazoo's `<hex>` names of Lock and ReadLock; foreign children), sequences
// near the counter's limit 2^31-1 and past a wrap, from a seeded generator so a failure names its
// seed.
import { describe, expect, it } from 'vitest';
import { EncodedChildren } from '../../../src/coordination/children.js';
import { LockName, parseContender, SEQUENCE_LIMIT } from '../../../src/coordination/naming.js';
import {
  byCreation,
  pastSequenceLimit,
  type SequenceOrder,
  sortContenders,
} from '../../../src/coordination/order.js';
import {
  PAST_LIMIT,
  type Place,
  placeInOrder,
  placeInQueue,
  type QueueRule,
} from '../../../src/coordination/place.js';
import { Reader } from '../../../src/protocol/reader.js';
import { Writer } from '../../../src/protocol/writer.js';
import { prng } from '../protocol/helpers.js';

/** The queues of each recipe: the names that count, and which kind alone blocks (-1: any). */
const RULES: readonly (QueueRule & { label: string })[] = [
  {
    label: 'mutex (Curator and kazoo)',
    names: [LockName.mutex, LockName.kazooMutex],
    blockedBy: -1,
  },
  { label: 'read side', names: [LockName.read, LockName.write], blockedBy: 1 },
  { label: 'write side', names: [LockName.read, LockName.write], blockedBy: -1 },
  { label: 'kazoo read side', names: [LockName.kazooRead, LockName.kazooMutex], blockedBy: 1 },
  { label: 'semaphore leases', names: [LockName.lease], blockedBy: -1 },
  { label: 'latch', names: [LockName.latch], blockedBy: -1 },
];

const hex = (random: () => number, length: number) =>
  Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');

function uuid(random: () => number): string {
  return `${hex(random, 8)}-${hex(random, 4)}-4${hex(random, 3)}-a${hex(random, 3)}-${hex(random, 12)}`;
}

/** `%010d`, as the server writes a sequence: 10 digits, or a minus and 9 or 10 digits. */
const sequenceText = (n: number) =>
  n < 0 ? `-${String(-n).padStart(9, '0')}` : String(n).padStart(10, '0');

/**
 * A sequence as one server counter gives them: low numbers, numbers near the limit, the limit
 * itself (3.5+ stops there: every later child gets it), and numbers past an older server's wrap.
 */
function sequence(random: () => number, regime: number): number {
  const pick = random();
  if (regime === 0) return Math.floor(random() * 200);
  if (regime === 1) return SEQUENCE_LIMIT - Math.floor(random() * 40);
  if (pick < 0.5) return SEQUENCE_LIMIT - Math.floor(random() * 10);
  if (pick < 0.7) return SEQUENCE_LIMIT;
  return -2_147_483_648 + Math.floor(random() * 20);
}

/** One child of a lock path, by any scheme that may share it, contender or not. */
function child(random: () => number, rule: QueueRule, regime: number): string {
  const lockName = rule.names[Math.floor(random() * rule.names.length)]!;
  const seq = sequenceText(sequence(random, regime));
  const pick = random();
  if (pick < 0.5) return `_c_${uuid(random)}-${lockName}${seq}`;
  if (pick < 0.8) return `${uuid(random).replaceAll('-', '')}${lockName}${seq}`;
  if (pick < 0.84) return `${lockName}${seq}`; // no prefix: an older client
  if (pick < 0.87) return `_c_${uuid(random)}-${lockName}${lockName}${seq}`;
  if (pick < 0.9) return `${lockName}9999999999`; // 10 digits past int32: not a contender
  if (pick < 0.93) return `_c_${uuid(random)}-${lockName}${seq}x`; // not a sequence
  if (pick < 0.96) return 'leases'; // a semaphore's folder, a foreign node
  return `_c_${uuid(random)}-other-${seq}`; // another recipe's contender
}

function encode(names: readonly string[]): EncodedChildren {
  const w = new Writer().int(names.length);
  for (const name of names) w.ustring(name);
  return EncodedChildren.read(new Reader(w.finish()));
}

/**
 * The reference answer: our place in the reference order (creation order past the limit, from
 * the czxids of the server's creation order), or PAST_LIMIT as the fast paths must say when the
 * sequence numbers stop telling the order (then the engine places us by `exact`).
 */
function referencePlace(
  children: readonly string[],
  own: string,
  rule: QueueRule,
  czxids: ReadonlyMap<string, bigint>,
): { fast: Place | undefined | typeof PAST_LIMIT; exact: Place | undefined } {
  const ours = parseContender(own, rule.names);
  if (!ours) return { fast: undefined, exact: undefined };
  const sorted = sortContenders(children, rule.names, 'numeric');
  // Our own number counts too: past the limit, only the creation order can say where we are.
  if (pastSequenceLimit([...sorted, ours])) {
    return { fast: PAST_LIMIT, exact: placeInOrder(byCreation(sorted, czxids), own, rule) };
  }
  const exact = placeInOrder(sorted, own, rule);
  return { fast: exact, exact };
}

function samePlace(a: Place | undefined | string, b: Place | undefined | string): boolean {
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  return a.ahead === b.ahead && a.watch === b.watch;
}

describe('the contender order: fast paths against the reference', () => {
  it('placeInQueue and the encoded listing agree with sortContenders on random queues', () => {
    const seed = 20261128;
    const random = prng(seed);
    const seen = { places: 0, pastLimit: 0, holders: 0, absent: 0 };
    for (let round = 0; round < 1200; round++) {
      const rule = RULES[round % RULES.length]!;
      const regime = Math.floor(random() * 3);
      const count = Math.floor(random() * 30);
      const children = Array.from({ length: count }, () => child(random, rule, regime));
      // The server's creation order: the listing's order shuffled is what a getChildren gives.
      const czxids = new Map(children.map((name, i) => [name, BigInt(1000 + i)] as const));
      const listed = [...children].sort(() => random() - 0.5);
      const encoded = encode(listed);
      for (const own of [...listed, child(random, rule, regime)]) {
        const want = referencePlace(listed, own, rule, czxids);
        const byNames = placeInQueue(listed, own, rule);
        const byBytes = encoded.place(own, rule);
        if (!samePlace(byNames, want.fast) || !samePlace(byBytes, want.fast)) {
          const where = `seed ${seed} round ${round} (${rule.label}) own ${own} in ${JSON.stringify(listed)}`;
          expect({ byNames, byBytes }, where).toEqual({ byNames: want.fast, byBytes: want.fast });
        }
        if (want.fast === PAST_LIMIT) seen.pastLimit++;
        else if (want.fast === undefined) seen.absent++;
        else if (want.fast.ahead === 0) seen.holders++;
        else seen.places++;
      }
    }
    // The generator reaches every kind of answer, so the comparisons above are not vacuous.
    expect(seen.places).toBeGreaterThan(400);
    expect(seen.pastLimit).toBeGreaterThan(400);
    expect(seen.holders).toBeGreaterThan(200);
    expect(seen.absent).toBeGreaterThan(200);
  });

  it('past the limit the creation order gives exactly one holder per mutex queue', () => {
    const random = prng(7);
    for (let round = 0; round < 500; round++) {
      const rule = RULES[0]!;
      const children = Array.from({ length: 1 + Math.floor(random() * 20) }, () =>
        child(random, rule, 2),
      );
      const czxids = new Map(children.map((name, i) => [name, BigInt(i)] as const));
      const holders = children.filter(
        (own) => referencePlace(children, own, rule, czxids).exact?.ahead === 0,
      );
      const contenders = sortContenders(children, rule.names);
      expect(holders.length, `round ${round}`).toBe(contenders.length > 0 ? 1 : 0);
      // Past the limit the holder is the oldest contender, whatever its sequence text says.
      if (pastSequenceLimit(contenders)) {
        const oldest = children.find((name) => parseContender(name, rule.names));
        expect(holders[0]).toBe(oldest);
      }
    }
  });

  it('below the limit the numeric and the interop orders are one order', () => {
    const random = prng(11);
    const orders: SequenceOrder[] = ['numeric', 'interop'];
    for (let round = 0; round < 500; round++) {
      const rule = RULES[round % RULES.length]!;
      const children = Array.from({ length: Math.floor(random() * 30) }, () =>
        child(random, rule, Math.floor(random() * 2)),
      );
      const [numeric, interop] = orders.map((order) =>
        sortContenders(children, rule.names, order).map((c) => c.name),
      );
      expect(interop, `round ${round}`).toEqual(numeric);
    }
  });
});
