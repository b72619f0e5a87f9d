// The one-pass place finder (place.ts) on names the random queues of place.test.ts do not draw:
// it must accept exactly the names parseContender accepts, and honour a rule whose blocking kind
// is the first name. Pure functions, tested directly: no recipe builds such a rule or name.
import { describe, expect, it } from 'vitest';
import { LockName, parseContender } from '../../../src/coordination/naming.js';
import { predecessorDecision, sortContenders } from '../../../src/coordination/order.js';
import { PAST_LIMIT, placeInOrder, placeInQueue } from '../../../src/coordination/place.js';

const NAMES = [LockName.mutex, LockName.kazooMutex];
const rule = { names: NAMES, blockedBy: -1 };

const TRICKY = [
  '_c_a-lock-000000000a', // a letter among the digits
  '_c_a-lock-00000000/0', // a character just below '0'
  '_c_a-lock-9999999999', // ten digits above 2^31 - 1
  '_c_a-lock-2147483648', // one above the limit
  '_c_a-lock--2147483649', // one below the wrap
  '_c_a-lock--9999999999',
  '_c_a-lock-+000000001', // a plus sign
  '_c_a-lock--00000001', // a minus and 8 digits
  '_c_a-lock-00000000001', // 11 digits, no sign
  'lock-12345', // shorter than a sequence
  'lock-',
  '_c_a-lock-0000000007',
  '_c_a-lock--000000005',
  '_c_a-lock--2147483648',
  '0123__lock__0000000009',
];

describe('placeInQueue on unusual names', () => {
  it('accepts exactly the names parseContender accepts', () => {
    for (const name of TRICKY) {
      const parsed = parseContender(name, NAMES);
      const place = placeInQueue([name], name, rule);
      if (parsed === undefined) expect(place, name).toBeUndefined();
      else if (parsed.sequence < 0) expect(place, name).toBe(PAST_LIMIT);
      else expect(place, name).toEqual({ ahead: 0, watch: undefined });
    }
  });

  it('ignores every non-contender among the children', () => {
    const own = '_c_z-lock-0000000100';
    // Every name but the two valid wrapped ones (those would ask for the creation order).
    const below = TRICKY.filter((n) => (parseContender(n, NAMES)?.sequence ?? 0) >= 0);
    expect(below).toHaveLength(TRICKY.length - 2);
    const place = placeInQueue([...below, own], own, rule);
    expect(place).toEqual({ ahead: 2, watch: '0123__lock__0000000009' });
  });

  it('our own node at the limit or past a wrap needs the creation order', () => {
    for (const own of ['_c_a-lock-2147483647', '_c_a-lock--000000001']) {
      expect(placeInQueue([own, '_c_b-lock-0000000001'], own, rule)).toBe(PAST_LIMIT);
    }
  });

  it('a rule whose blocking kind is the first name: only that kind keeps us waiting', () => {
    const names = [LockName.write, LockName.read];
    const writerFirst = { names, blockedBy: 0 };
    const children = [
      '_c_r-__READ__0000000001',
      '_c_w-__WRIT__0000000002',
      '_c_s-__READ__0000000003',
      '_c_me-__READ__0000000004',
    ];
    const own = '_c_me-__READ__0000000004';
    const expected = { ahead: 1, watch: '_c_w-__WRIT__0000000002' };
    expect(placeInQueue(children, own, writerFirst)).toEqual(expected);
    expect(placeInOrder(sortContenders(children, names), own, writerFirst)).toEqual(expected);
  });
});

describe('predecessorDecision', () => {
  it('refuses an index past the queue with a RangeError', () => {
    expect(() => predecessorDecision([], 3)).toThrow(RangeError);
    expect(() => predecessorDecision([], 3)).toThrow('contender index 3 out of range');
  });
});
