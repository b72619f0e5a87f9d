import { describe, expect, it } from 'vitest';
import { LockName, parseContender } from '../../../src/coordination/naming.js';
import {
  predecessorDecision,
  readerDecision,
  sortContenders,
} from '../../../src/coordination/order.js';
import {
  PAST_LIMIT,
  placeInOrder,
  placeInQueue,
  type QueueRule,
} from '../../../src/coordination/place.js';

const MUTEX_NAMES = [LockName.mutex, LockName.kazooMutex];
const RW_NAMES = [LockName.read, LockName.write];
const mutexRule: QueueRule = { names: MUTEX_NAMES, blockedBy: -1 };
const readRule: QueueRule = { names: RW_NAMES, blockedBy: 1 };
const writeRule: QueueRule = { names: RW_NAMES, blockedBy: -1 };

/** A seeded generator, so a failure names the set that broke it. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const pad = (n: number) => String(n).padStart(10, '0');

/** Random children of one lock path: contenders of the given names, foreign nodes, odd names. */
function children(random: () => number, names: readonly string[]): string[] {
  const out: string[] = [];
  const count = 1 + Math.floor(random() * 20);
  const used = new Set<number>();
  for (let i = 0; i < count; i++) {
    let seq = Math.floor(random() * 1000);
    while (used.has(seq)) seq++;
    used.add(seq);
    const name = names[Math.floor(random() * names.length)]!;
    const kazoo = name === LockName.kazooMutex;
    const prefix = kazoo ? crypto.randomUUID().replaceAll('-', '') : `_c_${crypto.randomUUID()}-`;
    out.push(`${prefix}${name}${pad(seq)}`);
  }
  if (random() < 0.3) out.push('readme', 'lock-abc', `_c_x-lease-${pad(5)}`);
  return out.sort(() => random() - 0.5);
}

describe('placeInQueue (one pass, no sort)', () => {
  it('decides as the sorted path does for mutex, reader and writer, on random queues', () => {
    const random = rng(12);
    for (let round = 0; round < 500; round++) {
      const mutexChildren = children(random, MUTEX_NAMES);
      const rwChildren = children(random, RW_NAMES);
      for (const [list, names, rule] of [
        [mutexChildren, MUTEX_NAMES, mutexRule],
        [rwChildren, RW_NAMES, readRule],
        [rwChildren, RW_NAMES, writeRule],
      ] as const) {
        const sorted = sortContenders(list, names);
        for (let own = 0; own < sorted.length; own++) {
          const name = sorted[own]!.name;
          const reader = rule === readRule;
          if (reader && sorted[own]!.lockName !== LockName.read) continue;
          const decision = reader
            ? readerDecision(sorted, own, (name) => name === LockName.write)
            : predecessorDecision(sorted, own);
          const blockers = sorted
            .slice(0, own)
            .filter((c) => !reader || c.lockName === LockName.write).length;
          const place = placeInQueue(list, name, rule);
          expect(place, `${list.join(',')} / ${name}`).toEqual(placeInOrder(sorted, name, rule));
          if (place === PAST_LIMIT || place === undefined) throw new Error('unexpected');
          expect(place.ahead).toBe(blockers);
          expect(place.watch).toBe(decision.acquired ? undefined : decision.watch);
          expect(place.ahead === 0).toBe(decision.acquired);
        }
      }
    }
  });

  it('says when our node is missing, and hands sets at the limit or wrapped to the creation order', () => {
    const a = `_c_${crypto.randomUUID()}-lock-${pad(1)}`;
    const b = `_c_${crypto.randomUUID()}-lock-${pad(2)}`;
    expect(placeInQueue([a], b, mutexRule)).toBeUndefined();
    expect(placeInQueue(['readme'], 'readme', mutexRule)).toBeUndefined();
    expect(placeInQueue([a, b], b, mutexRule)).toEqual({ ahead: 1, watch: a });
    const atLimit = `_c_${crypto.randomUUID()}-lock-2147483647`;
    const wrapped = `_c_${crypto.randomUUID()}-lock--2147483648`;
    const negative = `_c_${crypto.randomUUID()}-lock--000000001`;
    expect(placeInQueue([a, b, atLimit], b, mutexRule)).toBe(PAST_LIMIT);
    expect(placeInQueue([a, b, wrapped], a, mutexRule)).toBe(PAST_LIMIT);
    expect(placeInQueue([a, negative], negative, mutexRule)).toBe(PAST_LIMIT);
    // Not sequences the server writes: not contenders, so never past the limit.
    expect(
      placeInQueue([a, b, `_c_x-lock-2147483648`, `_c_x-lock-${pad(1)}0`], b, mutexRule),
    ).toEqual({ ahead: 1, watch: a });
  });
});

describe('placeInQueue parsing', () => {
  it('counts exactly the names parseContender counts, with the same sequence', () => {
    const uuid = crypto.randomUUID();
    const tricky = [
      `_c_${uuid}-lock-0000000042`,
      `_c_${uuid}-lock--000000001`,
      `_c_${uuid}-lock--2147483648`,
      `_c_${uuid}-lock-2147483647`,
      `_c_${uuid}-lock-2147483648`,
      `_c_${uuid}-lock-00000000042`,
      `_c_${uuid}-lock-000000042`,
      `_c_${uuid}-lock-00000a0042`,
      `lock-0000000001`,
      `lock-lock-0000000001`,
      `x__lock__lock-0000000007`,
      `${uuid.replaceAll('-', '')}__lock__0000000031`,
      `__lock__0000000031`,
      `_c_${uuid}-lease-0000000001`,
      'lock-',
      '0000000001',
      '',
    ];
    for (const name of tricky) {
      const parsed = parseContender(name, MUTEX_NAMES);
      const place = placeInQueue([name], name, mutexRule);
      if (parsed === undefined) expect(place, name).toBeUndefined();
      else if (parsed.sequence === 2_147_483_647 || parsed.sequence < 0) {
        expect(place, name).toBe(PAST_LIMIT);
      } else expect(place, name).toEqual({ ahead: 0, watch: undefined });
    }
    // The sequence itself: each orders against a plain contender exactly as its number says.
    const base = `_c_${uuid}-lock-0000000040`;
    expect(placeInQueue([base, tricky[0]!], tricky[0]!, mutexRule)).toEqual({
      ahead: 1,
      watch: base,
    });
    expect(placeInQueue([base, tricky[10]!], tricky[10]!, mutexRule)).toEqual({
      ahead: 0,
      watch: undefined,
    });
  });
});
