import { describe, expect, expectTypeOf, it } from 'vitest';
import { ProtocolError } from '../../../src/protocol/errors.js';
import {
  bytes,
  type JuteValue,
  list,
  record,
  strings,
  trailingBool,
} from '../../../src/protocol/jute.js';
import { Reader } from '../../../src/protocol/reader.js';
import { Writer } from '../../../src/protocol/writer.js';
import { hex, unhex } from './helpers.js';

const Inner = record((f) => ({ n: f.int(), name: f.string() }));
const Inners = list(Inner);
const Outer = record((f) => ({
  id: f.long(),
  inner: f.of(Inner),
  items: f.of(Inners),
  tags: f.of(strings),
  blob: f.buffer(),
  label: f.ustring(),
  flag: f.bool(),
  token: f.of(bytes),
  tail: f.of(trailingBool),
}));

const bytesOf = <T>(type: { write(w: Writer, v: T): void }, value: T): Uint8Array => {
  const w = new Writer(16);
  type.write(w, value);
  return w.copy();
};

describe('jute record combinator', () => {
  it('writes the fields in declaration order, nested records and vectors inline', () => {
    const value = {
      id: 1n,
      inner: { n: 2, name: 'a' },
      items: [{ n: 3, name: 'b' }],
      tags: ['c'],
      blob: null,
      label: null,
      flag: true,
      token: new Uint8Array([9]),
      tail: false,
    };
    expect(hex(bytesOf(Outer, value))).toBe(
      '0000000000000001' + // id
        '00000002' +
        '00000001' +
        '61' + // inner
        '00000001' +
        '00000003' +
        '00000001' +
        '62' + // items
        '00000001' +
        '00000001' +
        '63' + // tags
        'ffffffff' + // blob: null
        'ffffffff' + // label: null
        '01' + // flag
        '00000001' +
        '09' + // token
        '00', // tail
    );
    expect(Outer.read(new Reader(bytesOf(Outer, value)))).toEqual(value);
    expect(Object.keys(Outer.fields)).toEqual(Object.keys(value));
  });

  it('applies the null conventions: string -> "", vectors -> [], bytes -> empty, absent tail -> false', () => {
    const wire = unhex(
      '0000000000000007' +
        '00000005' +
        'ffffffff' + // inner.name null
        'ffffffff' + // items null
        'ffffffff' + // tags null
        'ffffffff' +
        'ffffffff' +
        '00' +
        'ffffffff', // token null, tail absent
    );
    expect(Outer.read(new Reader(wire))).toEqual({
      id: 7n,
      inner: { n: 5, name: '' },
      items: [],
      tags: [],
      blob: null,
      label: null,
      flag: false,
      token: new Uint8Array(0),
      tail: false,
    });
  });

  it('derives the TypeScript type from the declaration', () => {
    expectTypeOf<JuteValue<typeof Inner>>().toEqualTypeOf<{ n: number; name: string }>();
    expectTypeOf<JuteValue<typeof Outer>['blob']>().toEqualTypeOf<Uint8Array | null>();
    expectTypeOf<JuteValue<typeof Outer>['items']>().toEqualTypeOf<{ n: number; name: string }[]>();
  });

  it('a short read inside a nested record throws ProtocolError and the next read is unaffected', () => {
    const good = bytesOf(Inner, { n: 1, name: 'x' });
    expect(() => Outer.read(new Reader(unhex('0000000000000001' + '000000')))).toThrow(
      ProtocolError,
    );
    expect(Inner.read(new Reader(good))).toEqual({ n: 1, name: 'x' });
  });

  it('minSize refuses a short fixed-size record before reading any field', () => {
    const Pair = record((f) => ({ a: f.int(), b: f.int() }), { name: 'Pair', minSize: 8 });
    expect(() => Pair.read(new Reader(unhex('00000001')))).toThrow(
      'short read: Pair needs 8 bytes, 4 left',
    );
  });
});
