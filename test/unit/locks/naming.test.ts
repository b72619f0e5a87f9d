import { describe, expect, it } from 'vitest';
import {
  LockName,
  newOwnerPrefix,
  OwnerPrefixes,
  parseContender,
  parseSequence,
} from '../../../src/coordination/naming.js';
import {
  byCreation,
  pastSequenceLimit,
  predecessorDecision,
  readerDecision,
  sortContenders,
} from '../../../src/coordination/order.js';

const curator = (seq: string, name = 'lock-') => `_c_${crypto.randomUUID()}-${name}${seq}`;

describe('parseSequence', () => {
  it('reads ZooKeeper %010d suffixes as signed 32-bit integers', () => {
    expect(parseSequence('0000000000')).toBe(0);
    expect(parseSequence('0000000042')).toBe(42);
    expect(parseSequence('2147483647')).toBe(2_147_483_647);
    expect(parseSequence('-000000001')).toBe(-1);
    expect(parseSequence('-2147483648')).toBe(-2_147_483_648);
  });

  it('refuses what the server never writes', () => {
    for (const text of [
      '',
      '42',
      '00000000001',
      'abcdefghij',
      '2147483648',
      '-2147483649',
      '+000000001',
      '00000 0001',
    ]) {
      expect(parseSequence(text), text).toBeUndefined();
    }
  });
});

describe('newOwnerPrefix', () => {
  it('makes Curator protected prefixes (40 chars) and kazoo hex prefixes', () => {
    const c = newOwnerPrefix('curator');
    expect(c).toMatch(/^_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-$/);
    expect(c).toHaveLength(40);
    expect(newOwnerPrefix('kazoo')).toMatch(/^[0-9a-f]{32}$/);
    expect(newOwnerPrefix('curator')).not.toBe(c);
  });
});

describe('parseContender', () => {
  it('parses Curator, read/write and kazoo names', () => {
    expect(parseContender(curator('0000000007'), ['lock-'])).toMatchObject({
      lockName: 'lock-',
      sequence: 7,
    });
    expect(
      parseContender(curator('0000000003', '__WRIT__'), [LockName.read, LockName.write]),
    ).toMatchObject({
      lockName: '__WRIT__',
      sequence: 3,
    });
    expect(
      parseContender('8eb60557ba51e0da67eefc47467d3f34__lock__0000000031', ['__lock__']),
    ).toMatchObject({
      sequence: 31,
    });
  });

  it('ignores foreign nodes and other recipes', () => {
    expect(parseContender('readme', ['lock-'])).toBeUndefined();
    expect(parseContender('lock-abc', ['lock-'])).toBeUndefined();
    expect(parseContender(curator('0000000001'), ['__lock__'])).toBeUndefined();
    expect(parseContender('x__lock__0000000001', ['lock-'])).toBeUndefined();
    expect(parseContender(curator('0000000001', 'lease-'), ['lock-'])).toBeUndefined();
  });
});

describe('sortContenders', () => {
  it('orders by sequence, negative (wrapped) sequences first, and drops non-contenders', () => {
    const names = [
      curator('0000000010'),
      'junk',
      curator('0000000009'),
      curator('-000000005'),
      curator('1000000000'),
    ];
    const sorted = sortContenders(names, ['lock-']).map((c) => c.sequence);
    expect(sorted).toEqual([-5, 9, 10, 1_000_000_000]);
  });

  it('breaks ties by name so every process sees the same order', () => {
    const a = `_c_00000000-0000-0000-0000-000000000000-lock-0000000001`;
    const b = `_c_ffffffff-0000-0000-0000-000000000000-lock-0000000001`;
    expect(sortContenders([b, a], ['lock-']).map((c) => c.name)).toEqual([a, b]);
  });
});

describe('decisions', () => {
  const queue = (...kinds: string[]) =>
    sortContenders(
      kinds.map((k, i) => curator(String(i).padStart(10, '0'), k)),
      [LockName.read, LockName.write],
    );

  it('mutex: the head holds, others watch their immediate predecessor', () => {
    const sorted = sortContenders(
      [curator('0000000001'), curator('0000000002'), curator('0000000003')],
      ['lock-'],
    );
    expect(predecessorDecision(sorted, 0)).toEqual({ acquired: true });
    expect(predecessorDecision(sorted, 2)).toEqual({ acquired: false, watch: sorted[1]!.name });
  });

  it('readers share until a writer is ahead, then watch the last writer ahead', () => {
    const sorted = queue('__READ__', '__READ__', '__WRIT__', '__READ__', '__WRIT__', '__READ__');
    expect(readerDecision(sorted, 0, (name) => name === '__WRIT__')).toEqual({ acquired: true });
    expect(readerDecision(sorted, 1, (name) => name === '__WRIT__')).toEqual({ acquired: true });
    expect(readerDecision(sorted, 3, (name) => name === '__WRIT__')).toEqual({
      acquired: false,
      watch: sorted[2]!.name,
    });
    expect(readerDecision(sorted, 5, (name) => name === '__WRIT__')).toEqual({
      acquired: false,
      watch: sorted[4]!.name,
    });
  });

  it('writers wait for their immediate predecessor of either kind', () => {
    const sorted = queue('__READ__', '__WRIT__');
    expect(predecessorDecision(sorted, 1)).toEqual({ acquired: false, watch: sorted[0]!.name });
    expect(predecessorDecision(queue('__WRIT__'), 0)).toEqual({ acquired: true });
  });
});

describe('queue order after the sequence counter wraps', () => {
  const names = [
    '_c_a-lock-2147483647',
    '_c_b-lock--2147483648',
    '_c_c-lock--2147483647',
    '_c_d-lock--000000005',
    '_c_e-lock-0000000001',
  ];

  it("'interop' sorts the sequence text as Curator and kazoo do (one order shared by all)", () => {
    const order = sortContenders(names, ['lock-'], 'interop').map((c) => c.name);
    // Java String.compareTo / Python string order of the text after the lock name.
    const curator = [...names].sort((x, y) => {
      const a = x.slice(x.lastIndexOf('lock-') + 5);
      const b = y.slice(y.lastIndexOf('lock-') + 5);
      return a < b ? -1 : a > b ? 1 : 0;
    });
    expect(order).toEqual(curator);
    expect(order).toEqual([
      '_c_d-lock--000000005',
      '_c_c-lock--2147483647',
      '_c_b-lock--2147483648',
      '_c_e-lock-0000000001',
      '_c_a-lock-2147483647',
    ]);
  });

  it("'numeric' (the default) hands a set at or past the limit to creation order", () => {
    const sorted = sortContenders(names, ['lock-']);
    expect(pastSequenceLimit(sorted)).toBe(true);
    expect(pastSequenceLimit(sortContenders([curator('2147483646')], ['lock-']))).toBe(false);
    // Creation zxids: a (the limit) oldest, then the wrapped ones, e last; d has vanished.
    const czxids = new Map<string, bigint>([
      ['_c_e-lock-0000000001', 500n],
      ['_c_c-lock--2147483647', 300n],
      ['_c_a-lock-2147483647', 100n],
      ['_c_b-lock--2147483648', 200n],
    ]);
    expect(byCreation(sorted, czxids).map((c) => c.name)).toEqual([
      '_c_a-lock-2147483647',
      '_c_b-lock--2147483648',
      '_c_c-lock--2147483647',
      '_c_e-lock-0000000001',
    ]);
  });

  it('equal sequences at the limit (ZooKeeper 3.5+ stops the counter there) follow czxid, not name', () => {
    const older = '_c_ffff-lock-2147483647';
    const newer = '_c_0000-lock-2147483647';
    const sorted = sortContenders([newer, older], ['lock-']);
    const czxids = new Map([
      [older, 0x1_0000_0001n],
      [newer, 0x1_0000_0002n],
    ]);
    expect(byCreation(sorted, czxids).map((c) => c.name)).toEqual([older, newer]);
  });
});

describe('newOwnerPrefix randomness', () => {
  it('spells random version 4 UUIDs in canonical lower case, unique over many draws', () => {
    const seen = new Set<string>();
    const canonical = /^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-$/;
    for (let i = 0; i < 2_000; i++) {
      const curator = newOwnerPrefix('curator');
      expect(curator).toMatch(canonical);
      const kazoo = newOwnerPrefix('kazoo');
      expect(kazoo).toMatch(/^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
      seen.add(curator.slice(3, 39).replaceAll('-', ''));
      seen.add(kazoo);
    }
    // A prefix handed out twice would let two contenders take each other's node for their own.
    expect(seen.size).toBe(4_000);
  });

  it('uses every hex digit in every random position', () => {
    // A digit table or an offset off by one would leave some digit or position constant.
    const digits = Array.from({ length: 32 }, () => new Set<string>());
    for (let i = 0; i < 2_000; i++) {
      const kazoo = newOwnerPrefix('kazoo');
      for (let p = 0; p < 32; p++) digits[p]!.add(kazoo[p]!);
    }
    const sizes = digits.map((set) => set.size);
    // Position 12 is the version (always 4), position 16 the variant (8, 9, a or b).
    expect(sizes).toEqual(sizes.map((_, p) => (p === 12 ? 1 : p === 16 ? 4 : 16)));
  });
});

describe('OwnerPrefixes', () => {
  const canonical = /^_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-$/;

  it("spells each attempt's prefix as newOwnerPrefix does, in either style, unique over many draws", () => {
    const curator = new OwnerPrefixes('curator');
    const kazoo = new OwnerPrefixes('kazoo');
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const c = curator.next();
      expect(c).toMatch(canonical);
      expect(c).toHaveLength(40);
      const k = kazoo.next();
      expect(k).toMatch(/^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
      seen.add(c);
      seen.add(k);
      // Still a contender of its lock name, as Curator and kazoo read it.
      expect(parseContender(`${c}lock-0000000042`, ['lock-'])?.sequence).toBe(42);
    }
    // A prefix handed out twice would let two contenders take each other's node for their own.
    expect(seen.size).toBe(4_000);
  });

  it('counts the attempts of one object in the last 12 digits, after a random part of its own', () => {
    const one = new OwnerPrefixes('curator');
    const first = one.next();
    const second = one.next();
    expect(first.slice(0, 27)).toBe(second.slice(0, 27));
    expect(first.slice(27)).toBe('000000000000-');
    expect(second.slice(27)).toBe('000000000001-');
    // Zero-padded to 12 digits whatever the count's length: the 256th attempt counts 0x100.
    const later = Array.from({ length: 300 }, () => one.next());
    expect(later[253]!.slice(27)).toBe('0000000000ff-');
    expect(later[254]!.slice(27)).toBe('000000000100-');
    expect(
      later.every((prefix) => prefix.length === 40 && prefix.startsWith(first.slice(0, 27))),
    ).toBe(true);
    // Another object (another lock, another process) draws a random part of its own.
    const others = new Set(Array.from({ length: 50 }, () => new OwnerPrefixes('curator').next()));
    others.add(first);
    expect(others.size).toBe(51);
  });
});
