/**
 * Jute record combinators. A record is declared once, as an object literal that
 * names each field's jute type in wire order:
 *
 *   export const CreateRequest = record((f) => ({
 *     path: f(string), data: f(buffer), acl: f(ACLs), flags: f(int),
 *   }));
 *   export type CreateRequest = JuteValue<typeof CreateRequest>;
 *
 * and that one declaration is the reader, the writer and the TypeScript type.
 * Reading runs the declaration with `f` reading one value of the given type, so
 * every record is built by its own object literal: one fixed shape per record,
 * as fast as a hand-written reader (a generic loop storing `out[key]` measured
 * 1.5-2x slower on decode, see bench/codec.ts). Writing runs the declaration once,
 * at module load, with `f` returning the type itself: that yields the field list
 * the writer walks. No code generation (`new Function` is refused on Workers).
 *
 * The declaration runs on every read, so the field types in it must be
 * constants: hoist `list(...)` out of it (see `ACLs`, `strings`).
 */

import { ProtocolError } from './errors.js';
import type { Reader } from './reader.js';
import type { Writer } from './writer.js';

/** How one jute type is read and written. Every record and field type is one of these. */
export interface JuteType<T> {
  /** Reads one value at the reader's cursor. */
  read(r: Reader): T;
  /** Appends one value to the writer. */
  write(w: Writer, value: T): void;
}

/** The TypeScript value of a jute type, e.g. `JuteValue<typeof Stat>`. */
export type JuteValue<J> = J extends JuteType<infer T> ? T : never;

// Kinds the record loops handle inline; OTHER goes through the field's own read/write.
const OTHER = 0;
const INT = 1;
const LONG = 2;
const BOOL = 3;
const BUFFER = 4;
const STRING = 5;
const USTRING = 6;

/** A field type with the kind tag the record loops dispatch on. */
interface Kinded<T> extends JuteType<T> {
  readonly kind: number;
}

function primitive<T>(
  kind: number,
  read: (r: Reader) => T,
  write: (w: Writer, v: T) => void,
): JuteType<T> {
  const type: Kinded<T> = { kind, read, write };
  return type;
}

/** jute `int`: 4 bytes, signed, big-endian. */
export const int: JuteType<number> = primitive(
  INT,
  (r) => r.int(),
  (w, v) => {
    w.int(v);
  },
);

/** jute `long`: 8 bytes, signed, big-endian; bigint because zxids and session ids exceed 2^53. */
export const long: JuteType<bigint> = primitive(
  LONG,
  (r) => r.long(),
  (w, v) => {
    w.long(v);
  },
);

/** jute `boolean`: one byte; any non-zero byte reads as true. */
export const bool: JuteType<boolean> = primitive(
  BOOL,
  (r) => r.bool(),
  (w, v) => {
    w.bool(v);
  },
);

/** jute `buffer`: int length + bytes; length -1 is null (distinct from empty). Reads are views. */
export const buffer: JuteType<Uint8Array | null> = primitive(
  BUFFER,
  (r) => r.buffer(),
  (w, v) => {
    w.buffer(v);
  },
);

/** jute `ustring` that may be null on the wire (length -1). */
export const ustring: JuteType<string | null> = primitive(
  USTRING,
  (r) => r.ustring(),
  (w, v) => {
    w.ustring(v);
  },
);

/** jute `ustring` that the protocol never sends as null: a null on the wire reads as ''. */
export const string: JuteType<string> = primitive(
  STRING,
  (r) => r.ustring() ?? '',
  (w, v) => {
    w.ustring(v);
  },
);

/** jute `buffer` that is never null in practice (passwords, auth tokens): null reads as empty. */
export const bytes: JuteType<Uint8Array> = {
  read: (r) => r.buffer() ?? new Uint8Array(0),
  write: (w, v) => {
    w.buffer(v);
  },
};

/** jute `vector<T>` where null (count -1) means "none": reads as [], written as given. */
export function list<T>(item: JuteType<T>): JuteType<T[]> {
  const readItem = (r: Reader): T => item.read(r);
  const writeItem = (w: Writer, v: T): void => item.write(w, v);
  return {
    read: (r) => r.vector(readItem) ?? [],
    write: (w, v) => {
      w.vector(v, writeItem);
    },
  };
}

/** vector<ustring>; null reads as [], null elements as ''. */
export const strings: JuteType<string[]> = list(string);

/**
 * A trailing `boolean` that older peers leave out (ConnectRequest/ConnectResponse
 * readOnly): absent reads as false; always written.
 */
export const trailingBool: JuteType<boolean> = {
  read: (r) => (r.remaining > 0 ? r.bool() : false),
  write: (w, v) => {
    w.bool(v);
  },
};

/** The `f` of a record declaration: one value of the given jute type. */
export type Field = <T>(type: JuteType<T>) => T;

/** A record type: reads and writes its fields in wire order. */
export interface JuteRecord<T> extends JuteType<T> {
  /** Field name -> jute type, in wire order. */
  readonly fields: Readonly<Record<string, JuteType<unknown>>>;
}

// The reader the running declaration reads from. Reads are synchronous and a nested
// record reads from the same reader, so one slot (saved and restored) is enough.
let current: Reader | undefined;

function readField<T>(type: JuteType<T>): T {
  const r = current!;
  // Primitives read inline (one monomorphic call each); records and vectors recurse.
  switch ((type as Kinded<T>).kind) {
    case INT:
      return r.int() as T;
    case LONG:
      return r.long() as T;
    case BOOL:
      return r.bool() as T;
    case BUFFER:
      return r.buffer() as T;
    case STRING:
      return (r.ustring() ?? '') as T;
    case USTRING:
      return r.ustring() as T;
    default:
      return type.read(r);
  }
}

const fieldType = (<T>(type: JuteType<T>): T => type as unknown as T) as Field;

/**
 * Declares a record (see the module comment). `minSize` (bytes) is checked before
 * reading, for fixed-size records whose short input deserves one clear error.
 */
export function record<T extends object>(
  declare: (f: Field) => T,
  options?: { name: string; minSize: number },
): JuteRecord<T> {
  const fields = declare(fieldType) as unknown as Record<string, JuteType<unknown>>;
  const keys = Object.keys(fields);
  const n = keys.length;
  const types = keys.map((k) => fields[k] as Kinded<unknown>);
  const kinds = types.map((t) => t.kind ?? OTHER);
  const minSize = options?.minSize ?? 0;
  const name = options?.name ?? 'record';

  const read = (r: Reader): T => {
    if (r.remaining < minSize) {
      throw new ProtocolError(`short read: ${name} needs ${minSize} bytes, ${r.remaining} left`);
    }
    const outer = current;
    current = r;
    try {
      return declare(readField);
    } finally {
      current = outer;
    }
  };

  const write = (w: Writer, value: T): void => {
    const v = value as Record<string, unknown>;
    for (let i = 0; i < n; i++) {
      const key = keys[i]!;
      switch (kinds[i]) {
        case INT:
          w.int(v[key] as number);
          break;
        case LONG:
          w.long(v[key] as bigint);
          break;
        case BOOL:
          w.bool(v[key] as boolean);
          break;
        case BUFFER:
          w.buffer(v[key] as Uint8Array | null);
          break;
        case STRING:
        case USTRING:
          w.ustring(v[key] as string | null);
          break;
        default:
          types[i]!.write(w, v[key]);
      }
    }
  };

  return { fields, read, write };
}

/** The empty record: header-only requests and replies without a body. */
export const empty: JuteType<undefined> = {
  read: () => undefined,
  write: () => {},
};
