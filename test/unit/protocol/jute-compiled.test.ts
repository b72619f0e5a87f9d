/**
 * The record combinator against an independent oracle: random record shapes (every field type,
 * nested records, vectors of records) are declared through `record`, and random values are
 * written by the compiled writer (jute.ts chains one closure per field) and by a plain encoder
 * written here from the shape with the Writer's primitives. The bytes must be equal, and the
 * record's reader must give the value back. Reproducible: JUTE_SEED=<n>.
 */

import { describe, expect, it } from 'vitest';
import {
  bytes,
  type JuteType,
  list,
  record,
  strings,
  string as stringType,
  trailingBool,
  ustring,
} from '../../../src/protocol/jute.js';
import { Reader } from '../../../src/protocol/reader.js';
import { Writer } from '../../../src/protocol/writer.js';
import { hex, prng } from './helpers.js';

const seed = Number(process.env.JUTE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const SHAPES = 300;
const VALUES_PER_SHAPE = 5;

type Scalar = 'int' | 'long' | 'bool' | 'buffer' | 'ustring' | 'string' | 'bytes' | 'strings';
type FieldSpec =
  | { name: string; kind: Scalar }
  | { name: string; kind: 'record' | 'list'; fields: FieldSpec[] }
  // The two generic field types passed to f.of rather than called as f.xxx().
  | { name: string; kind: 'ofString' | 'ofUstring' };
type Value = Record<string, unknown>;
const SCALARS: Scalar[] = [
  'int',
  'long',
  'bool',
  'buffer',
  'ustring',
  'string',
  'bytes',
  'strings',
];

function shape(rand: () => number, depth: number): FieldSpec[] {
  const n = 1 + Math.floor(rand() * 12);
  const fields: FieldSpec[] = [];
  for (let i = 0; i < n; i++) {
    const name = `f${i}_${Math.floor(rand() * 1000)}`;
    const r = rand();
    if (depth < 2 && r < 0.1) fields.push({ name, kind: 'record', fields: shape(rand, depth + 1) });
    else if (depth < 2 && r < 0.18)
      fields.push({ name, kind: 'list', fields: shape(rand, depth + 1) });
    else if (r < 0.22) fields.push({ name, kind: rand() < 0.5 ? 'ofString' : 'ofUstring' });
    else fields.push({ name, kind: SCALARS[Math.floor(rand() * SCALARS.length)]! });
  }
  return fields;
}

/** Declares the shape through the combinator (the way src/protocol declares its records). */
function declare(spec: FieldSpec[]): JuteType<Value> {
  // Types handed to f.of must be constants: built once, outside the declaration.
  const nested = spec.map((s): JuteType<unknown> | undefined => {
    if (s.kind === 'record') return declare(s.fields);
    if (s.kind === 'list') return list(declare(s.fields));
    if (s.kind === 'strings') return strings;
    if (s.kind === 'bytes') return bytes;
    if (s.kind === 'ofString') return stringType;
    if (s.kind === 'ofUstring') return ustring;
    return undefined;
  });
  return record((f) => {
    const out: Value = {};
    spec.forEach((s, i) => {
      switch (s.kind) {
        case 'int':
          out[s.name] = f.int();
          break;
        case 'long':
          out[s.name] = f.long();
          break;
        case 'bool':
          out[s.name] = f.bool();
          break;
        case 'buffer':
          out[s.name] = f.buffer();
          break;
        case 'ustring':
          out[s.name] = f.ustring();
          break;
        case 'string':
          out[s.name] = f.string();
          break;
        default:
          out[s.name] = f.of(nested[i]!);
      }
    });
    return out;
  });
}

const CHARS = ['a', 'z', '/', '-', '0', 'é', 'ü', '€', '😀', '_'];
function text(rand: () => number): string {
  let s = '';
  const n = Math.floor(rand() * 12);
  for (let i = 0; i < n; i++) s += CHARS[Math.floor(rand() * CHARS.length)];
  return s;
}
function buf(rand: () => number): Uint8Array {
  return Uint8Array.from({ length: Math.floor(rand() * 10) }, () => Math.floor(rand() * 256));
}

/** A random value of the shape, in its canonical form (what the reader gives back). */
function value(spec: FieldSpec[], rand: () => number): Value {
  const out: Value = {};
  for (const s of spec) {
    switch (s.kind) {
      case 'int':
        out[s.name] = Math.floor(rand() * 2 ** 32) - 2 ** 31;
        break;
      case 'long':
        out[s.name] = BigInt.asIntN(64, BigInt(Math.floor(rand() * 2 ** 53)) << 11n);
        break;
      case 'bool':
        out[s.name] = rand() < 0.5;
        break;
      case 'buffer':
        out[s.name] = rand() < 0.2 ? null : buf(rand);
        break;
      case 'ustring':
      case 'ofUstring':
        out[s.name] = rand() < 0.2 ? null : text(rand);
        break;
      case 'string':
      case 'ofString':
        out[s.name] = text(rand);
        break;
      case 'bytes':
        out[s.name] = buf(rand);
        break;
      case 'strings':
        out[s.name] = Array.from({ length: Math.floor(rand() * 4) }, () => text(rand));
        break;
      case 'record':
        out[s.name] = value(s.fields, rand);
        break;
      case 'list':
        out[s.name] = Array.from({ length: Math.floor(rand() * 3) }, () => value(s.fields, rand));
        break;
    }
  }
  return out;
}

/** The oracle: the shape's wire form written field by field with the Writer's primitives. */
function plainWrite(w: Writer, spec: FieldSpec[], v: Value): void {
  for (const s of spec) {
    const x = v[s.name];
    switch (s.kind) {
      case 'int':
        w.int(x as number);
        break;
      case 'long':
        w.long(x as bigint);
        break;
      case 'bool':
        w.bool(x as boolean);
        break;
      case 'buffer':
      case 'bytes':
        w.buffer(x as Uint8Array | null);
        break;
      case 'ustring':
      case 'string':
      case 'ofString':
      case 'ofUstring':
        w.ustring(x as string | null);
        break;
      case 'strings':
        w.int((x as string[]).length);
        for (const item of x as string[]) w.ustring(item);
        break;
      case 'record':
        plainWrite(w, s.fields, x as Value);
        break;
      case 'list':
        w.int((x as Value[]).length);
        for (const item of x as Value[]) plainWrite(w, s.fields, item);
        break;
    }
  }
}

/** The same value with its keys (at every level) in reverse order. */
function reversed(spec: FieldSpec[], v: Value): Value {
  const out: Value = {};
  for (const s of [...spec].reverse()) {
    const x = v[s.name];
    if (s.kind === 'record') out[s.name] = reversed(s.fields, x as Value);
    else if (s.kind === 'list') out[s.name] = (x as Value[]).map((i) => reversed(s.fields, i));
    else out[s.name] = x;
  }
  return out;
}

const bytesOf = (write: (w: Writer) => void): Uint8Array => {
  const w = new Writer(16);
  write(w);
  return w.copy();
};

describe(`compiled jute records vs a plain encoder (seed ${seed})`, () => {
  it('write the same bytes and read the value back, for random shapes and values', () => {
    const rand = prng(seed);
    for (let i = 0; i < SHAPES; i++) {
      const spec = shape(rand, 0);
      const type = declare(spec);
      for (let j = 0; j < VALUES_PER_SHAPE; j++) {
        const v = value(spec, rand);
        const expected = bytesOf((w) => plainWrite(w, spec, v));
        const context = `shape ${i} value ${j}: ${JSON.stringify(spec)}`;
        expect(hex(bytesOf((w) => type.write(w, v))), context).toBe(hex(expected));
        // The writer finds fields by name: the value's own key order does not matter.
        expect(hex(bytesOf((w) => type.write(w, reversed(spec, v)))), context).toBe(hex(expected));
        const r = new Reader(expected);
        expect(type.read(r), context).toEqual(v);
        expect(r.remaining, context).toBe(0);
      }
    }
  });

  it('vectors written as null read as [] and a trailing boolean may be absent', () => {
    const Rec = record((f) => ({
      names: f.of(strings),
      items: f.of(list(bytes)),
      tail: f.of(trailingBool),
    }));
    const nulls = { names: null, items: null, tail: true } as unknown as Parameters<
      typeof Rec.write
    >[1];
    const wire = bytesOf((w) => Rec.write(w, nulls));
    expect(hex(wire)).toBe('ffffffff' + 'ffffffff' + '01');
    expect(Rec.read(new Reader(wire.subarray(0, 8)))).toEqual({
      names: [],
      items: [],
      tail: false,
    });
  });

  it('an empty declaration writes nothing and reads an empty object', () => {
    const Empty = record(() => ({}));
    expect(bytesOf((w) => Empty.write(w, {})).length).toBe(0);
    expect(Empty.read(new Reader(new Uint8Array(0)))).toEqual({});
  });
});
